package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"

	"github.com/abifloor/abifloor/bind"
	"github.com/abifloor/abifloor/cache"
	"github.com/abifloor/abifloor/floor"
	"github.com/abifloor/abifloor/glibc"
	"github.com/abifloor/abifloor/symver"
	"github.com/abifloor/abifloor/targets"
)

// compilerFallback serves tools that run only the first word of $CC: Go's
// linker probes flags with CC[0] alone ("abifloor -m64 -o a.out -no-pie
// trivial.c"), so with CC="abifloor cc --glibc 2.17 -- gcc" every probe
// failed and Go linked a PIE with text relocations. A command line that
// starts with a compiler flag, run while $CC (or $CXX) is "abifloor cc ...",
// is taken as that compiler's.
func compilerFallback(ctx context.Context, env *cmdEnv, args []string) (int, bool) {
	if len(args) == 0 || !strings.HasPrefix(args[0], "-") || args[0] == "-h" || args[0] == "--help" {
		return 0, false
	}
	for _, v := range []string{"CC", "CXX"} {
		w := strings.Fields(env.getenv(v))
		if len(w) > 2 && filepath.Base(w[0]) == filepath.Base(os.Args[0]) && (w[1] == "cc" || w[1] == "c++") {
			return runCC(ctx, env, append(w[2:len(w):len(w)], args...), w[1] == "c++"), true
		}
	}
	return 0, false
}

// ccOptions are abifloor's own flags of cc and c++ (before the --).
type ccOptions struct {
	name     string // cc or c++
	glibc    string
	target   string
	arch     string
	cacheDir string
	install  string
	limits   floor.Limits // what the proof checks: GLIBC, and the target's other namespaces
}

const ccSynopsis = "--glibc VER|--target NAME [--arch A] [--cache-dir DIR] -- CC ARGS...\n       abifloor %s --glibc VER|--target NAME --install DIR [-- CC]"

func runCC(ctx context.Context, env *cmdEnv, args []string, cxx bool) int {
	o := ccOptions{name: "cc"}
	if cxx {
		o.name = "c++"
	}
	fs := newFlags(env, o.name, fmt.Sprintf(ccSynopsis, o.name))
	fs.StringVar(&o.glibc, "glibc", "", "glibc release to link against, e.g. 2.17")
	fs.StringVar(&o.target, "target", "", "named target whose GLIBC limit to link against (see abifloor targets), e.g. manylinux_2_28")
	fs.StringVar(&o.arch, "arch", "", "architecture: x86_64, aarch64, i686, s390x (default: the compiler's)")
	fs.StringVar(&o.cacheDir, "cache-dir", "", "stub cache (default $ABIFLOOR_CACHE, $XDG_CACHE_HOME/abifloor or ~/.cache/abifloor)")
	fs.StringVar(&o.install, "install", "", "write wrapper scripts DIR/cc and DIR/c++ that run this command, for tools that take one compiler path")
	fail := func(err error) int {
		fmt.Fprintf(env.stderr, "abifloor %s: %v\n", o.name, err)
		return exitError
	}
	own, ccArgs, dashes := splitDashes(args)
	missing := func() int {
		fmt.Fprintf(env.stderr, "abifloor %s: missing -- between abifloor's flags and the compiler\n", o.name)
		fmt.Fprintf(env.stderr, "usage: abifloor %s %s\n", o.name, fmt.Sprintf(ccSynopsis, o.name))
		return exitError
	}
	if err := fs.Parse(own); err != nil {
		if !dashes && !errors.Is(err, flag.ErrHelp) {
			return missing() // abifloor cc --glibc 2.17 -o p p.c: the compiler's flags
		}
		return flagExit(err)
	}
	if !dashes && o.install == "" {
		return missing()
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(env.stderr, "abifloor %s: unexpected %q before --\n", o.name, fs.Arg(0))
		fs.Usage()
		return exitError
	}
	if err := o.resolveTarget(); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.Usage()
			return exitError
		}
		return fail(err)
	}
	if o.install != "" {
		if err := o.writeWrappers(ccArgs); err != nil {
			return fail(err)
		}
		fmt.Fprintf(env.stdout, "%s: cc and c++ link for glibc %s\n", o.install, o.limits["GLIBC"])
		return exitOK
	}
	if len(ccArgs) == 0 {
		fmt.Fprintf(env.stderr, "abifloor %s: no compiler after --\n", o.name)
		fs.Usage()
		return exitError
	}
	return o.compile(ctx, env, ccArgs)
}

// splitDashes splits args at the first "--": abifloor's flags before it,
// the compiler's command after.
func splitDashes(args []string) (own, cc []string, found bool) {
	for i, a := range args {
		if a == "--" {
			return args[:i], args[i+1:], true
		}
	}
	return args, nil, false
}

// resolveTarget turns --glibc or --target into the limits the proof checks.
func (o *ccOptions) resolveTarget() error {
	switch {
	case o.glibc != "" && o.target != "":
		return errors.New("--glibc and --target both given: use one")
	case o.glibc != "":
		o.limits = floor.Limits{"GLIBC": o.glibc}
	case o.target != "":
		t, err := targets.Lookup(o.target)
		if err != nil {
			return err
		}
		if t.Limits["GLIBC"] == "" {
			return fmt.Errorf("target %s (%s) has no GLIBC limit: name a glibc-based target or use --glibc VER", t.Name, t.Kind)
		}
		o.limits = floor.Limits(t.Limits)
	default:
		return flag.ErrHelp
	}
	return nil
}

// compile runs the compiler, with the stubs when it links, then proves
// what it linked.
func (o *ccOptions) compile(ctx context.Context, env *cmdEnv, ccArgs []string) int {
	fail := func(err error) int {
		fmt.Fprintf(env.stderr, "abifloor %s: %v\n", o.name, err)
		return exitError
	}
	line := parseCCLine(ccArgs[1:])
	if line.err != nil {
		return fail(fmt.Errorf("cannot tell which file this command links (%v): refusing to run a link it could not prove", line.err))
	}
	if !line.link {
		// A probe, a compile or a preprocess: nothing of glibc's is
		// involved, so the compiler runs untouched (and abifloor reads
		// neither the database nor the cache).
		if _, _, ok := symver.Split("GLIBC_" + strings.TrimPrefix(o.limits["GLIBC"], "GLIBC_")); !ok {
			return fail(fmt.Errorf("%q is not a glibc version (want e.g. 2.17)", o.limits["GLIBC"]))
		}
		return runTool(ctx, env, env.stderr, ccArgs)
	}
	so := glibc.StubOptions{Arch: o.arch, Target: o.limits["GLIBC"], CC: ccArgs[0]}
	comp, err := glibc.FindCompiler(so.CC)
	if err != nil {
		return fail(err) // before the cache is made
	}
	c, err := o.openCache(env)
	if err != nil {
		return fail(err)
	}
	if err := askTarget(ctx, c, comp); err != nil {
		return fail(err)
	}
	so.Compiler = comp
	if so.Arch == "" {
		so.Arch = so.Compiler.Arch
	}
	if err := so.Compiler.Targets(so.Arch); err != nil {
		return fail(err)
	}
	a, err := archHeader(ctx, c, so.Arch)
	if err != nil {
		return fail(err)
	}
	if so, err = so.ResolveWith(a); err != nil {
		return fail(err)
	}
	o.limits["GLIBC"] = so.Target
	stubs, err := c.Get(ctx, so.Key(a), func(tmp, final string) error {
		so.FinalDir = final
		return glibc.WriteStubs(ctx, tmp, so)
	})
	if err != nil {
		return fail(err)
	}
	pre := []string{"-L" + stubs}
	if init := filepath.Join(stubs, glibc.InitObject); line.executable() && exists(init) {
		pre = append(pre, "-Wl,--wrap=main", init)
	}
	if o.name == "c++" && !line.relocatable && !line.static {
		rt, err := o.cxxRuntime(ctx, c, so, a)
		if err != nil {
			return fail(err)
		}
		pre = append(pre, rt...)
	}
	before, _ := os.Lstat(line.output)
	// The link's messages are held back (up to a bound) so that a symbol
	// missing from the target can be explained in one line instead of the
	// link editor's cascade.
	held := &heldWriter{w: env.stderr, limit: 1 << 20}
	args := append([]string{ccArgs[0]}, append(pre, ccArgs[1:]...)...)
	if code := runTool(ctx, env, held, args); code != exitOK {
		explained, all := explainUndefined(held.Bytes(), a.Name, so.Target)
		if !all || held.passed {
			held.Flush()
		}
		for _, e := range explained {
			fmt.Fprintf(env.stderr, "abifloor %s: %s\n", o.name, e)
		}
		return code
	}
	held.Flush()
	after, err := os.Lstat(line.output)
	switch {
	case err != nil:
		return fail(fmt.Errorf("the compiler succeeded but %s is not there: %v", line.output, err))
	case !after.Mode().IsRegular():
		return exitOK // -o /dev/null: a probe, nothing to prove
	case before != nil && sameFile(before, after):
		return fail(fmt.Errorf("%s was not rewritten by the link: refusing to prove a stale file", line.output))
	case line.relocatable:
		return exitOK
	}
	return o.prove(ctx, env, line, stubs, a)
}

// archHeader is the database's header of arch (its releases, triple and
// loader), kept in the cache: unpacking the embedded database to read it
// would cost a warm run more than everything else it does.
func archHeader(ctx context.Context, c *cache.Cache, arch string) (*glibc.Arch, error) {
	dir, err := c.Get(ctx, strings.Join([]string{"glibc-arch", "1", glibc.Digest(), arch}, "\x00"), func(tmp, final string) error {
		a, err := glibc.LoadArch(arch, false)
		if err != nil {
			return err
		}
		h := a.Header()
		return os.WriteFile(filepath.Join(tmp, "arch"), []byte(strings.Join([]string{h.Name, h.Triple, h.Loader, h.First, h.Newest}, "\t")+"\n"), 0o644)
	})
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(dir, "arch"))
	if err != nil {
		return nil, err
	}
	f := strings.Split(strings.TrimSpace(string(b)), "\t")
	if len(f) != 5 {
		return nil, fmt.Errorf("cache: %s: malformed architecture header", dir)
	}
	return &glibc.Arch{Name: f[0], Triple: f[1], Loader: f[2], First: f[3], Newest: f[4], Digest: glibc.Digest()}, nil
}

// openCache opens the stub cache, or a private one with a warning.
func (o *ccOptions) openCache(env *cmdEnv) (*cache.Cache, error) {
	dir := o.cacheDir
	if dir == "" {
		var err error
		if dir, err = cache.DefaultDir(env.getenv); err != nil {
			return nil, err
		}
	}
	c, warn, err := cache.OpenPrivate(dir)
	if err != nil {
		return nil, err
	}
	if warn != "" {
		fmt.Fprintf(env.stderr, "abifloor %s: warning: %s\n", o.name, warn)
	}
	c.Warn = func(m string) { fmt.Fprintf(env.stderr, "abifloor %s: warning: %s\n", o.name, m) }
	return c, nil
}

// prove checks the linked file's floors against the limits.
func (o *ccOptions) prove(ctx context.Context, env *cmdEnv, line ccLine, stubs string, a *glibc.Arch) int {
	res := floor.Scan(ctx, []string{line.output}, floor.Options{Limits: o.limits})
	for _, f := range res.Files {
		if f.Error != nil {
			fmt.Fprintf(env.stderr, "abifloor %s: %s: %s\n", o.name, f.Path, f.ErrorMessage())
			return exitError
		}
	}
	if len(res.Violations) > 0 {
		for _, v := range res.Violations {
			fmt.Fprintf(env.stderr, "abifloor %s: %s: needs %s %s, above the floor %s: %s\n",
				o.name, v.Path, v.Namespace, v.Required, v.Allowed, strings.Join(v.Symbols, " "))
		}
		return exitViolation
	}
	if msgs := loaderProof(ctx, line, stubs, a.Name, o.limits["GLIBC"]); len(msgs) > 0 {
		for _, m := range msgs {
			fmt.Fprintf(env.stderr, "abifloor %s: %s: %s\n", o.name, line.output, m)
		}
		return exitViolation
	}
	return exitOK
}

// loaderProof audits the output as ld.so would load it on the target: the
// stubs stand for the target's glibc, then the link's -L directories, then
// this machine's libraries. Every symbol the output itself leaves undefined
// must be defined, with its version, by a library it loads. A shared
// library may leave symbols to its host, so there only glibc's count. What
// other libraries of this machine lack (the host's libgcc_s needs the
// host's glibc) is not the output's to answer for.
func loaderProof(ctx context.Context, line ccLine, stubs, arch, target string) []string {
	path := []string{stubs}
	for _, d := range line.libDirs {
		if abs, err := filepath.Abs(d); err == nil {
			path = append(path, abs)
		}
	}
	res := bind.New(bind.Options{LibraryPath: path, Workers: 1}).Audit(ctx, []string{line.output})
	var msgs []string
	var db *glibc.Index
	for _, f := range res.Files {
		if f.Error != nil {
			return []string{f.ErrorMessage()}
		}
		if f.PLTNone > 0 {
			msgs = append(msgs, fmt.Sprintf("%d PLT relocations of symbols ignored at link time: %s", f.PLTNone, f.Reason))
		}
		for _, u := range f.Unresolved {
			if u.Object != "" {
				continue
			}
			if db == nil {
				a, err := glibc.LoadArch(arch, true)
				if err != nil {
					return []string{err.Error()}
				}
				db = a.Index(target)
			}
			_, known := db.Lookup(u.Name)
			isGlibc := strings.HasPrefix(u.Version, "GLIBC_")
			if l, ok := glibcHint(db, u.Name, target); ok {
				msgs = append(msgs, l)
				continue
			}
			if known || isGlibc || !line.shared {
				v := ""
				if u.Version != "" {
					v = ", version " + u.Version
				}
				msgs = append(msgs, fmt.Sprintf("undefined symbol: %s%s: no library it loads defines it on glibc %s", u.Name, v, target))
			}
		}
	}
	return msgs
}

// runTool runs a command with the caller's standard input and output, and
// returns its exit code (or exitError when it could not run).
func runTool(ctx context.Context, env *cmdEnv, stderr io.Writer, args []string) int {
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, env.stdout, stderr
	if f, ok := env.stdout.(interface{ Flush() error }); ok {
		f.Flush()
	}
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() > 0 {
			return ee.ExitCode()
		}
		fmt.Fprintf(env.stderr, "abifloor: %s: %v\n", args[0], err)
		return exitError
	}
	return exitOK
}

// heldWriter keeps what is written, up to limit bytes; past that it passes
// everything through.
type heldWriter struct {
	mu     sync.Mutex
	w      io.Writer
	buf    bytes.Buffer
	limit  int
	passed bool
}

func (h *heldWriter) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.passed {
		return h.w.Write(p)
	}
	if h.buf.Len()+len(p) > h.limit {
		h.passed = true
		h.w.Write(h.buf.Bytes())
		return h.w.Write(p)
	}
	return h.buf.Write(p)
}

func (h *heldWriter) Bytes() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.buf.Bytes()
}

// Flush writes what was held.
func (h *heldWriter) Flush() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.passed {
		h.w.Write(h.buf.Bytes())
		h.buf.Reset()
	}
}

// Undefined symbols, as GNU ld (quoted `x' or ‘x’) and lld name them; and
// a shared library's versioned references, which GNU ld reports with the
// library's name.
var (
	undefinedRE    = regexp.MustCompile("undefined reference to [`\u2018]([^'\u2019\n]+)['\u2019]|undefined symbol: ([^\\s(]+)")
	libUndefinedRE = regexp.MustCompile("([^\\s:]+\\.so(?:\\.[0-9]+)*): undefined reference to [`\u2018]([^'\u2019@\n]+@[^'\u2019\n]+)['\u2019]")
)

// explainUndefined reads the link editor's messages for symbols it could
// not find and says, for each one glibc knows, what to do: the library
// that has it at the target, or the release that added it. A shared
// library of the host that needs a newer glibc gets one line naming it.
// all is true when every undefined symbol was explained.
func explainUndefined(msgs []byte, arch, target string) (lines []string, all bool) {
	ms := undefinedRE.FindAllSubmatch(msgs, -1)
	if len(ms) == 0 {
		return nil, false
	}
	a, err := glibc.LoadArch(arch, true)
	if err != nil {
		return nil, false
	}
	ix := a.Index(target)
	all = true
	fromLib := map[string]bool{}
	var libs []string
	needs := map[string][]string{}
	for _, m := range libUndefinedRE.FindAllSubmatch(msgs, -1) {
		lib, ref := string(m[1]), string(m[2])
		if !fromLib[ref] {
			fromLib[ref] = true
			if len(needs[lib]) == 0 {
				libs = append(libs, lib)
			}
			needs[lib] = append(needs[lib], ref)
		}
	}
	for _, lib := range libs {
		refs := needs[lib]
		more := ""
		if len(refs) > 3 {
			more = fmt.Sprintf(" and %d more", len(refs)-3)
			refs = refs[:3]
		}
		lines = append(lines, fmt.Sprintf("%s was built for a newer glibc than %s: it needs %s%s; link one built for %s, or statically",
			lib, target, strings.Join(refs, ", "), more, target))
	}
	seen := map[string]bool{}
	for _, m := range ms {
		full := string(m[1]) + string(m[2])
		if fromLib[full] {
			continue
		}
		name, _, _ := strings.Cut(full, "@")
		if seen[name] {
			continue
		}
		seen[name] = true
		if l, ok := glibcHint(ix, name, target); ok {
			lines = append(lines, l)
		} else {
			all = false
		}
	}
	return lines, all
}

// glibcHint says what to do about a glibc symbol a link lacks: the library
// that has it at the target, or the release that added it (and, when the
// target's headers called it by a __ name, where that one is:
// res_query was __res_query in libresolv before 2.34).
func glibcHint(ix *glibc.Index, name, target string) (string, bool) {
	w, ok := ix.Lookup(name)
	switch {
	case ok && w.Soname != "" && glibc.LinkFlag(w.Soname) != "":
		return fmt.Sprintf("%s is in %s in glibc %s: add %s", name, w.Soname, target, glibc.LinkFlag(w.Soname)), true
	case ok && w.Newer != "":
		l := fmt.Sprintf("%s: %s > %s", name, w.Newer, target)
		if old, ok := ix.Lookup("__" + name); ok && old.Soname != "" {
			l += fmt.Sprintf(" (glibc %s's headers call __%s, in %s", target, name, old.Soname)
			if f := glibc.LinkFlag(old.Soname); f != "" {
				l += ": build with those headers and " + f
			}
			l += ")"
		}
		return l, true
	}
	return "", false
}

func sameFile(a, b os.FileInfo) bool {
	sa, ok1 := a.Sys().(*syscall.Stat_t)
	sb, ok2 := b.Sys().(*syscall.Stat_t)
	if !ok1 || !ok2 {
		return false
	}
	return sa.Dev == sb.Dev && sa.Ino == sb.Ino && sa.Mtim == sb.Mtim && sa.Ctim == sb.Ctim && sa.Size == sb.Size
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// writeWrappers writes DIR/cc and DIR/c++: shell scripts that run this
// abifloor with these flags, for tools that take one compiler path (CC,
// CMAKE_C_COMPILER, cargo's linker, meson cross files).
func (o *ccOptions) writeWrappers(ccArgs []string) error {
	self, err := selfPath()
	if err != nil {
		return err
	}
	cc, cxx := "cc", "c++"
	if len(ccArgs) > 0 {
		cc, cxx = ccArgs[0], cxxOf(ccArgs[0])
	}
	flags := []string{}
	if o.glibc != "" {
		flags = append(flags, "--glibc", o.glibc)
	} else {
		flags = append(flags, "--target", o.target)
	}
	if o.arch != "" {
		flags = append(flags, "--arch", o.arch)
	}
	if o.cacheDir != "" {
		d, err := filepath.Abs(o.cacheDir)
		if err != nil {
			return err
		}
		flags = append(flags, "--cache-dir", d)
	}
	if err := os.MkdirAll(o.install, 0o755); err != nil {
		return err
	}
	for _, w := range []struct{ name, cmd, compiler string }{{"cc", "cc", cc}, {"c++", "c++", cxx}} {
		words := append([]string{self, w.cmd}, flags...)
		words = append(words, "--", w.compiler)
		var q []string
		for _, x := range words {
			q = append(q, shellQuote(x))
		}
		script := fmt.Sprintf("#!/bin/sh\n# Written by abifloor %s --install: compile and link for glibc %s, then prove it.\nexec %s \"$@\"\n",
			o.name, o.limits["GLIBC"], strings.Join(q, " "))
		p := filepath.Join(o.install, w.name)
		tmp := p + ".tmp"
		if err := os.WriteFile(tmp, []byte(script), 0o755); err != nil {
			return err
		}
		if err := os.Rename(tmp, p); err != nil {
			return err
		}
	}
	return nil
}

// selfPath is this program's path as it was started (not with symbolic
// links resolved: a multi-call binary dispatches on its name).
func selfPath() (string, error) {
	a := os.Args[0]
	if !strings.Contains(a, "/") {
		return exec.LookPath(a)
	}
	return filepath.Abs(a)
}

// cxxOf is the C++ driver beside a C compiler: gcc → g++, clang → clang++,
// aarch64-linux-gnu-gcc-12 → aarch64-linux-gnu-g++-12.
func cxxOf(cc string) string {
	dir, base := filepath.Split(cc)
	for _, r := range []struct{ c, cxx string }{{"clang", "clang++"}, {"gcc", "g++"}, {"cc", "c++"}} {
		if i := strings.LastIndex(base, r.c); i >= 0 && !strings.Contains(base, "++") {
			return dir + base[:i] + r.cxx + base[i+len(r.c):]
		}
	}
	return "c++"
}

func shellQuote(s string) string {
	safe := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_./+=,:@%-", c)) {
			safe = false
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// askTarget is comp.AskTarget (comp from glibc.FindCompiler) with the
// compiler's -dumpmachine answer remembered (compilerAnswer): a warm link
// then starts no process before the compiler itself.
func askTarget(ctx context.Context, c *cache.Cache, comp *glibc.Compiler) error {
	out, err := compilerAnswer(ctx, c, comp, "-dumpmachine")
	if err != nil {
		return fmt.Errorf("glibc: %s -dumpmachine: %w", comp.Name, err)
	}
	return comp.SetTriple(string(out))
}

// compilerAnswerEnv are the variables that change what a gcc driver
// answers to a -print or -dump query.
var compilerAnswerEnv = []string{"GCC_EXEC_PREFIX", "COMPILER_PATH", "LIBRARY_PATH"}

// compilerAnswer runs the compiler with a query (-dumpmachine,
// -print-search-dirs) once per compiler binary and remembers its output in
// the cache, keyed by the compiler's identity (path, size and mtime, as
// ccache identifies a compiler), the query and the environment that
// changes the answer.
func compilerAnswer(ctx context.Context, c *cache.Cache, comp *glibc.Compiler, args ...string) ([]byte, error) {
	key := []string{"compiler answer", comp.ID}
	key = append(key, args...)
	for _, v := range compilerAnswerEnv {
		key = append(key, v+"="+os.Getenv(v))
	}
	dir, err := c.Get(ctx, strings.Join(key, "\x00"), func(tmp, _ string) error {
		out, err := exec.CommandContext(ctx, comp.Path, args...).Output()
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(tmp, "answer"), out, 0o644)
	})
	if err != nil {
		return nil, err
	}
	return os.ReadFile(filepath.Join(dir, "answer"))
}
