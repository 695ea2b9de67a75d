package ccwrap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/abifloor/abifloor/cache"
	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/floor"
	"github.com/abifloor/abifloor/glibc"
	"github.com/abifloor/abifloor/internal/run"
	"github.com/abifloor/abifloor/report"
	"github.com/abifloor/abifloor/symver"
)

// What the host's pkg-config and CMake promise, the target must have. A
// host library above the target cannot be linked (hostlibs.go), but a
// build system that found it through pkg-config or CMake's find_library
// has already decided to use it: tmux's configure takes the host's
// libevent from pkg-config, and every later probe then fails to link
// (the user sees "conflicting types for 'forkpty'"); pcre2's CMake finds
// the host's libreadline by path and its last link fails. zig's builds
// find neither and go on without. So the wrappers `--install` writes
// beside cc hide them the same way: pkg-config answers "not found" for a
// package whose libraries the link would refuse, and the CMake toolchain
// file makes find_library answer NOTFOUND for such a library.

// PkgConfig runs the pkg-config command line argv (argv[0] is the real
// pkg-config) for a link by compiler (cc when ""): when a package it names
// has a library the link would refuse (its own glibc floor above the
// target), the command fails as pkg-config does for a package it cannot
// find, saying why; otherwise the real pkg-config runs with the caller's
// streams. It returns the exit code; an error is abifloor's own failure.
func (w *Wrapper) PkgConfig(ctx context.Context, compiler string, argv []string) (int, error) {
	if len(argv) == 0 {
		return 0, errors.New("no pkg-config command")
	}
	pa := parsePkgConfigArgs(argv[1:])
	if len(pa.pkgs) > 0 {
		refused, err := w.refusedPackages(ctx, compiler, argv[0], pa)
		if err != nil {
			return 0, err
		}
		if len(refused) > 0 {
			if pa.printErrors() {
				out := w.o.Stderr
				if pa.toStdout {
					out = w.o.Stdout
				}
				for _, r := range refused {
					// The package is the caller's word and the reason holds a
					// library's DT_SONAME: neither reaches a terminal raw.
					fmt.Fprintf(out, "Package '%s' is hidden by abifloor: %s\n", report.Clean(r.pkg), report.CleanLines(r.why))
				}
			}
			return 1, nil
		}
	}
	return w.runCompiler(ctx, w.o.Stderr, argv, nil)
}

// refusal is a package a link for the target cannot use.
type refusal struct {
	pkg string
	why string // Hidden.String of its first refused library
}

// refusedPackages asks the real pkg-config for each package's libraries
// (one at a time: a package it cannot find is its own to report) and
// returns those of which the link would refuse one.
func (w *Wrapper) refusedPackages(ctx context.Context, compiler, real string, pa pkgConfigArgs) ([]refusal, error) {
	var lr *libRefuser
	var out []refusal
	for _, p := range pa.pkgs {
		args := []string{"--libs"}
		if pa.static {
			args = append(args, "--static")
		}
		res, err := run.Cmd{Path: real, Args: append(args, "--", p), MaxOutput: 1 << 20}.Run(ctx)
		if err != nil {
			var e *run.Error
			if errors.As(err, &e) && e.ExitCode > 0 {
				continue // not found, or broken: pkg-config says so itself
			}
			return nil, err
		}
		libs := pkgConfigLibs(splitPkgConfigWords(string(res.Stdout)))
		if len(libs.names) == 0 && len(libs.files) == 0 {
			continue
		}
		if lr == nil {
			if lr, err = w.newLibRefuser(ctx, compiler); err != nil {
				return nil, err
			}
		}
		h, err := lr.refused(ctx, libs)
		if err != nil {
			return nil, err
		}
		if len(h) > 0 {
			out = append(out, refusal{pkg: p, why: h[0].String()})
		}
	}
	return out, nil
}

// Refuses reports, for each library file named, why a link for the target
// would refuse it (its own glibc floor is above the target's), or nothing
// when it would take it. It answers the CMake toolchain file's
// find_library. Files that are not libraries, and glibc's own, which the
// stubs stand for, are taken.
func (w *Wrapper) Refuses(ctx context.Context, compiler string, paths []string) ([]Hidden, error) {
	lr, err := w.newLibRefuser(ctx, compiler)
	if err != nil {
		return nil, err
	}
	return lr.refused(ctx, linkLibs{files: paths})
}

// libRefuser decides, for one compiler and target, which libraries a link
// would refuse.
type libRefuser struct {
	c      *cache.Cache
	comp   *glibc.Compiler
	target string
	// dirs are the compiler's search directories, asked for once; an
	// error asking is kept and returned to every later caller too.
	dirs    []string
	dirsErr error
	asked   bool
}

func (w *Wrapper) newLibRefuser(ctx context.Context, compiler string) (*libRefuser, error) {
	if compiler == "" {
		compiler = "cc"
	}
	comp, c, err := w.compilerWithCache(compiler)
	if err != nil {
		return nil, err
	}
	return &libRefuser{c: c, comp: comp, target: w.limits["GLIBC"]}, nil
}

func (lr *libRefuser) searchDirs(ctx context.Context) ([]string, error) {
	if !lr.asked {
		lr.asked = true
		lr.dirs, lr.dirsErr = searchDirs(ctx, lr.c, lr.comp)
	}
	return lr.dirs, lr.dirsErr
}

// linkLibs are the libraries a link command names: -L directories, -l
// names (with -l:FILE as ":FILE") and files named by path.
type linkLibs struct {
	dirs, names, files []string
}

// pkgConfigLibs reads the words of pkg-config --libs.
func pkgConfigLibs(words []string) linkLibs {
	var l linkLibs
	for i := 0; i < len(words); i++ {
		a := words[i]
		switch {
		case (a == "-L" || a == "-l") && i+1 < len(words):
			i++
			if a == "-L" {
				l.dirs = append(l.dirs, words[i])
			} else {
				l.names = append(l.names, words[i])
			}
		case strings.HasPrefix(a, "-L") && len(a) > 2:
			l.dirs = append(l.dirs, a[2:])
		case strings.HasPrefix(a, "-l") && len(a) > 2:
			l.names = append(l.names, a[2:])
		case !strings.HasPrefix(a, "-") && filepath.IsAbs(a) && isSharedName(a):
			l.files = append(l.files, a)
		}
	}
	return l
}

// isSharedName: libfoo.so or libfoo.so.1.2.
func isSharedName(p string) bool {
	b := filepath.Base(p)
	return strings.HasSuffix(b, ".so") || strings.Contains(b, ".so.")
}

// maxScriptDepth bounds linker scripts that name linker scripts.
const maxScriptDepth = 4

// refused resolves the libraries as the link editor would (the -L
// directories, then the compiler's; a shared library before an archive;
// linker scripts followed) and returns those whose glibc floor is above
// the target. An archive is taken (its objects are floored with the
// output's), as is a library glibc or the C++ runtime provide.
func (lr *libRefuser) refused(ctx context.Context, libs linkLibs) ([]Hidden, error) {
	// memo holds each file's answer: the library it leads to that the
	// link refuses (nil: none). A file being read is in it as nil, so a
	// script that names itself ends.
	memo := map[string]*Hidden{}
	var visit func(path string, depth int) (*Hidden, error)
	visit = func(path string, depth int) (*Hidden, error) {
		if h, ok := memo[path]; ok || depth > maxScriptDepth {
			return h, nil
		}
		memo[path] = nil
		info, err := lr.libFloor(ctx, path)
		if err != nil {
			return nil, err
		}
		switch {
		case info.script != nil:
			for _, n := range info.script {
				var p string
				switch {
				case strings.HasPrefix(n, "-l"):
					if p, err = lr.find(ctx, libs.dirs, n[2:]); err != nil {
						return nil, err
					}
				case filepath.IsAbs(n):
					p = n
				default:
					// A plain name: beside the script, else on the
					// search path, as ld looks for it.
					if p = filepath.Join(filepath.Dir(path), n); !exists(p) {
						if p, err = lr.find(ctx, libs.dirs, ":"+n); err != nil {
							return nil, err
						}
					}
				}
				if p == "" {
					continue
				}
				h, err := visit(p, depth+1)
				if err != nil {
					return nil, err
				}
				if h != nil {
					memo[path] = h
					return h, nil
				}
			}
		case info.glibc || info.floor == "":
		case symver.Compare(info.floor, lr.target) > 0:
			h := &Hidden{Path: path, Soname: info.soname, Needs: info.floor, Target: lr.target}
			memo[path] = h
			return h, nil
		}
		return nil, nil
	}
	var out []Hidden
	add := func(arg, path string) error {
		h, err := visit(path, 0)
		if err != nil || h == nil {
			return err
		}
		x := *h
		x.Arg = arg
		out = append(out, x)
		return nil
	}
	for _, n := range libs.names {
		if noHide[n] {
			continue
		}
		p, err := lr.find(ctx, libs.dirs, n)
		if err != nil {
			return nil, err
		}
		if p != "" {
			if err := add("-l"+n, p); err != nil {
				return nil, err
			}
		}
	}
	for _, f := range libs.files {
		if err := add(f, f); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// find is the file -lNAME (or -l:FILE, name ":FILE") names: in dirs, then
// the compiler's search directories; "" when it is nowhere or an archive.
func (lr *libRefuser) find(ctx context.Context, dirs []string, name string) (string, error) {
	sys, err := lr.searchDirs(ctx)
	if err != nil {
		return "", err
	}
	for _, d := range append(append([]string{}, dirs...), sys...) {
		if file, ok := strings.CutPrefix(name, ":"); ok {
			if p := filepath.Join(d, file); exists(p) {
				if isSharedName(file) {
					return p, nil
				}
				return "", nil
			}
			continue
		}
		if p := filepath.Join(d, "lib"+name+".so"); exists(p) {
			return p, nil
		}
		if exists(filepath.Join(d, "lib"+name+".a")) {
			return "", nil
		}
	}
	return "", nil
}

// libInfo is what a link needs to know of a library file.
type libInfo struct {
	floor  string   // its GLIBC floor ("" none)
	glibc  bool     // it defines GLIBC_ versions: glibc's own
	soname string   // DT_SONAME
	script []string // the files a linker script names (nil: not a script)
}

// maxScript bounds a linker script read: glibc's libc.so is 300 bytes.
const maxScript = 64 << 10

// libFloor reads path's floor, remembered in the cache per file (its
// real path, device, inode, size and times), so that every pkg-config
// call and find_library of a build reads each library once.
func (lr *libRefuser) libFloor(ctx context.Context, path string) (libInfo, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return libInfo{}, nil // a dangling link: the link editor skips it too
	}
	real, err = filepath.Abs(real)
	if err != nil {
		return libInfo{}, err
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.Mode().IsRegular() {
		return libInfo{}, nil
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return readLibInfo(real)
	}
	key := strings.Join([]string{"library floor", "1", real,
		strconv.FormatUint(st.Dev, 10), strconv.FormatUint(st.Ino, 10), strconv.FormatInt(st.Size, 10),
		strconv.FormatInt(st.Mtim.Nano(), 10), strconv.FormatInt(st.Ctim.Nano(), 10)}, "\x00")
	dir, err := lr.c.Get(ctx, key, func(tmp, _ string) error {
		info, err := readLibInfo(real)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(tmp, "library"), []byte(info.encode()), 0o644)
	})
	if err != nil {
		return libInfo{}, err
	}
	b, err := os.ReadFile(filepath.Join(dir, "library"))
	if err != nil {
		return libInfo{}, err
	}
	info, ok := decodeLibInfo(string(b))
	if !ok {
		return libInfo{}, fmt.Errorf("cache: %s: malformed library entry", dir)
	}
	return info, nil
}

// encode writes info as lines: floor, glibc (0 or 1), soname, then
// "script" and one name a line when it is a linker script.
func (info libInfo) encode() string {
	g := "0"
	if info.glibc {
		g = "1"
	}
	s := info.floor + "\n" + g + "\n" + info.soname + "\n"
	if info.script != nil {
		s += "script\n"
		for _, n := range info.script {
			s += n + "\n"
		}
	}
	return s
}

func decodeLibInfo(s string) (libInfo, bool) {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if len(lines) < 3 || (lines[1] != "0" && lines[1] != "1") {
		return libInfo{}, false
	}
	info := libInfo{floor: lines[0], glibc: lines[1] == "1", soname: lines[2]}
	if len(lines) > 3 {
		if lines[3] != "script" {
			return libInfo{}, false
		}
		info.script = append([]string{}, lines[4:]...)
	}
	return info, true
}

// readLibInfo reads a library file: an ELF file's GLIBC floor, or the
// names a linker script links (libncurses.so is "INPUT(libncurses.so.6
// -ltinfo)"). Anything else is no library: nothing to refuse.
func readLibInfo(path string) (libInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return libInfo{}, nil
	}
	var head [4]byte
	n, _ := io.ReadFull(f, head[:])
	if n == 4 && string(head[:]) == "!<ar" {
		f.Close()
		return libInfo{}, nil // an archive: floored with the output
	}
	if n == 4 && string(head[:]) != "\x7fELF" {
		b, _ := io.ReadAll(io.LimitReader(io.MultiReader(bytes.NewReader(head[:n]), f), maxScript+1))
		f.Close()
		if len(b) > maxScript {
			return libInfo{}, nil
		}
		names, ok := parseLinkerScript(b)
		if !ok {
			return libInfo{}, nil
		}
		return libInfo{script: names}, nil
	}
	f.Close()
	ef, err := elfx.Open(path)
	if err != nil {
		return libInfo{}, nil // not ELF, or malformed: the link editor's to say
	}
	defer ef.Close()
	r, _ := floor.Analyze(ef, path, floor.FileOptions{})
	if r.Error != nil {
		return libInfo{}, nil
	}
	info := libInfo{floor: r.Floors["GLIBC"], soname: r.Soname}
	if defs, err := ef.VersionDefs(); err == nil {
		for _, d := range defs {
			if ns, _, ok := symver.Split(d.Name); ok && ns == "GLIBC" {
				info.glibc = true
			}
		}
	}
	if strings.ContainsAny(info.soname, "\n") {
		info.soname = ""
	}
	return info, nil
}

// maxScriptNames bounds the names taken from one linker script.
const maxScriptNames = 64

// parseLinkerScript returns the files a linker script's INPUT, GROUP and
// AS_NEEDED commands name, in order (-lNAME as written), or false when b
// is not a script of those commands (comments, OUTPUT_FORMAT and the like
// are skipped). A name with a newline or a NUL is refused.
func parseLinkerScript(b []byte) ([]string, bool) {
	s := string(b)
	if strings.ContainsRune(s, 0) {
		return nil, false
	}
	var names []string
	depth := 0    // parentheses open
	inList := 0   // depth at which an INPUT/GROUP/AS_NEEDED list opened (0: none)
	pending := "" // the last word, a command name when "(" follows
	found := false
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return nil, false
			}
			i += end + 4
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',':
			i++
		case c == '(':
			depth++
			if inList == 0 && (pending == "INPUT" || pending == "GROUP") {
				inList = depth
				found = true
			}
			pending = ""
			i++
		case c == ')':
			if depth == 0 {
				return nil, false
			}
			if depth == inList {
				inList = 0
			}
			depth--
			pending = ""
			i++
		case c == ';':
			i++
		default:
			j := i
			if c == '"' {
				end := strings.IndexByte(s[i+1:], '"')
				if end < 0 {
					return nil, false
				}
				j = i + 1 + end + 1
				pending = s[i+1 : j-1]
			} else {
				for j < len(s) && !strings.ContainsRune(" \t\n\r,();\"", rune(s[j])) && !(s[j] == '/' && j+1 < len(s) && s[j+1] == '*') {
					j++
				}
				pending = s[i:j]
			}
			if inList > 0 && pending != "AS_NEEDED" {
				if strings.ContainsAny(pending, "\n\x00") || pending == "" {
					return nil, false
				}
				if len(names) >= maxScriptNames {
					return nil, false
				}
				names = append(names, pending)
			}
			i = j
		}
	}
	if depth != 0 || !found {
		return nil, false
	}
	if names == nil {
		names = []string{}
	}
	return names, true
}

// pkgConfigArgs is what abifloor needs to know of a pkg-config command
// line: the packages it names, and how it reports errors.
type pkgConfigArgs struct {
	pkgs []string
	// static: --static (Libs.private and Requires.private count).
	static bool
	// quiet: an --exists-like query, which prints errors only with
	// --print-errors.
	quiet, print, silence, toStdout bool
}

// printErrors reports whether pkg-config would print why a package is
// missing.
func (pa pkgConfigArgs) printErrors() bool {
	return !pa.silence && (pa.print || !pa.quiet)
}

// pkgConfigValue are pkg-config's (and pkgconf's) options whose value may
// be the next word.
var pkgConfigValue = map[string]bool{
	"--atleast-version": true, "--exact-version": true, "--max-version": true,
	"--variable": true, "--define-variable": true, "--atleast-pkgconfig-version": true,
	"--with-path": true, "--prefix-variable": true, "--log-file": true, "--personality": true,
	"--relocate": true, "--env": true, "--maximum-traverse-depth": true,
}

// pkgConfigQuiet are the queries whose errors pkg-config prints only with
// --print-errors.
var pkgConfigQuiet = map[string]bool{
	"--exists": true, "--atleast-version": true, "--exact-version": true,
	"--max-version": true, "--uninstalled": true,
}

// maxPkgs bounds the packages one command line is checked for.
const maxPkgs = 256

// parsePkgConfigArgs reads a pkg-config command line (after the program's
// name). Packages are the other words, each split at blanks and commas,
// without version comparisons ("libevent >= 2.0", "libevent>=2.0" or three
// words). A word taken for a package that is none costs a pkg-config
// query that fails, and is then left to pkg-config.
func parsePkgConfigArgs(args []string) pkgConfigArgs {
	var pa pkgConfigArgs
	var words []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			words = append(words, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			words = append(words, a)
			continue
		}
		name, _, hasValue := strings.Cut(a, "=")
		switch name {
		case "--static":
			pa.static = true
		case "--print-errors":
			pa.print = true
		case "--silence-errors":
			pa.silence = true
		case "--errors-to-stdout":
			pa.toStdout = true
		}
		if pkgConfigQuiet[name] {
			pa.quiet = true
		}
		if pkgConfigValue[name] && !hasValue && i+1 < len(args) {
			i++
		}
	}
	seen := map[string]bool{}
	skip := false
	for _, w := range words {
		for _, tok := range strings.FieldsFunc(w, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == ',' }) {
			if skip {
				skip = false
				continue
			}
			if strings.Trim(tok, "<>=!") == "" {
				skip = true // an operator: its version follows
				continue
			}
			if i := strings.IndexAny(tok, "<>=!"); i >= 0 {
				if i == 0 {
					continue // a glued operator and version: ">=2.0"
				}
				if strings.Trim(tok[i:], "<>=!") == "" {
					skip = true // "libevent>=" then the version
				}
				tok = tok[:i]
			}
			if !seen[tok] && len(pa.pkgs) < maxPkgs {
				seen[tok] = true
				pa.pkgs = append(pa.pkgs, tok)
			}
		}
	}
	return pa
}

// splitPkgConfigWords splits pkg-config's output into words: blanks
// separate them, a backslash keeps the next byte (pkg-config escapes the
// blanks of a path), quotes group.
func splitPkgConfigWords(s string) []string {
	var words []string
	var cur strings.Builder
	in := false // a word is open
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' && i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			} else {
				cur.WriteByte(c)
			}
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			in = true
		case c == '\'' || c == '"':
			quote = c
			in = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in || quote != 0 {
		words = append(words, cur.String())
	}
	return words
}
