package abiread

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/abifloor/abifloor/internal/lazyre"
	"github.com/abifloor/abifloor/internal/run"
)

// A compile confined to a tree (HeaderOptions.Root) is one of headers from
// a stranger: a tag of someone's repository, an unpacked archive. Its
// headers may read their own tree and the compiler's system headers, and
// nothing else: a header that includes ~/.ssh/id_rsa would otherwise put
// its tokens into the compiler's errors, and, included inside an enum,
// into the ABI. The compiler cannot be stopped from opening a file a
// header names, so every file it read (its -MD list) is checked after the
// compile and any one outside fails the compile, with nothing of its
// output kept; when the compile fails before that list is written, only
// the diagnostics located inside the tree (or in a system header, or in
// the translation unit abifloor wrote) are kept.

// That check comes after the compile: a header that computes a name
// (#include XSTR(/dev/zero), or a FIFO's absolute path) had the compiler
// open it, and cost a gigabyte or a hang before the check could refuse
// it. So the compiler also runs under Landlock (run.Confine): it may
// open its own installation, the tree, its system headers and the
// compile's temporary directory, and any other open fails at once.

// OutsideError is a confined compile that read a file outside its tree.
type OutsideError struct {
	Path string // as the compiler named it
	Real string // where it resolves, when that differs
	// Denied: the compiler was stopped from opening it (Landlock), and
	// read nothing of it.
	Denied bool
}

func (e *OutsideError) Error() string {
	p := e.Path
	if e.Real != "" && e.Real != e.Path {
		p += " (resolved: " + e.Real + ")"
	}
	verb := "read"
	if e.Denied {
		verb = "tried to read"
	}
	return fmt.Sprintf("the headers %s %s, outside their tree: refused (a header may read its own tree and the compiler's system headers only)", verb, p)
}

// diagDenied is the compiler failing to open a file it was not allowed
// to (GCC, then Clang).
var diagDenied = lazyre.New(`^.+?:\d+:(?:\d+:)? fatal error: (?:(.+): Permission denied|cannot open file '(.+)': Permission denied)$`)

// denied returns an *OutsideError for the first file outside that the
// compiler, located in a file it may read, says it could not open.
func (c *confinement) denied(stderr string) error {
	for _, l := range strings.Split(stderr, "\n") {
		m := diagDenied().FindStringSubmatch(l)
		if m == nil || !c.keepLine(l) {
			continue
		}
		p := m[1] + m[2]
		if ok, real := c.allowed(p); !ok {
			return &OutsideError{Path: p, Real: real, Denied: true}
		}
	}
	return nil
}

// confinement decides what a confined compile may read.
type confinement struct {
	root   string   // the tree, absolute and resolved
	system []string // the compiler's system include directories, absolute and clean
	tu     string   // the translation unit abifloor wrote
	progs  []string // the programs the driver runs (cc1, as)
}

func newConfinement(ctx context.Context, root, ccPath, tu string) (*confinement, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, err
	}
	sys, err := systemIncludes(ctx, ccPath)
	if err != nil {
		return nil, err
	}
	return &confinement{root: real, system: sys, tu: tu, progs: compilerPrograms(ctx, ccPath)}, nil
}

// compilerDirs hold what a GCC driver runs and reads (cc1, specs,
// crtstuff, liblto_plugin), native and cross.
var compilerDirs = []string{"/usr/lib/gcc", "/usr/libexec/gcc", "/usr/lib/gcc-cross", "/usr/libexec/gcc-cross"}

// landlock is what the compiler may open: its installation (read and
// run), the tree and its system headers (read), the compile's temporary
// directory and /dev/null (read and write). Not /dev, /proc or /tmp.
func (c *confinement) landlock(dir string) *run.Confine {
	return &run.Confine{
		Exec:  append(slices.Clone(compilerDirs), c.progs...),
		Read:  append([]string{c.root}, c.system...),
		Write: []string{dir, os.DevNull},
	}
}

// compilerPrograms are the programs the driver ccPath starts for a
// compile (-print-prog-name), resolved on PATH when it names them bare;
// asked once per compiler per process.
func compilerPrograms(ctx context.Context, ccPath string) []string {
	sysIncludes.Lock()
	progs, ok := sysIncludes.progs[ccPath]
	sysIncludes.Unlock()
	if ok {
		return progs
	}
	for _, name := range []string{"cc1", "as"} {
		out, err := run.Cmd{Path: ccPath, Name: filepath.Base(ccPath), Args: []string{"-print-prog-name=" + name}, MaxOutput: 4096}.Run(ctx)
		if err != nil {
			continue
		}
		p := strings.TrimSpace(string(out.Stdout))
		if !filepath.IsAbs(p) {
			if p, err = run.LookPath(p); err != nil {
				continue
			}
		}
		progs = append(progs, filepath.Clean(p))
	}
	sysIncludes.Lock()
	if sysIncludes.progs == nil {
		sysIncludes.progs = map[string][]string{}
	}
	sysIncludes.progs[ccPath] = progs
	sysIncludes.Unlock()
	return progs
}

func under(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator)) || dir == "/"
}

// allowed reports whether the compiler may have read p, and where p
// resolves. A system header is judged by its name as the compiler formed
// it (cleaned, so /usr/include/../../home is not one); a file of the tree
// by where it resolves, so a link out of the tree is not one.
func (c *confinement) allowed(p string) (ok bool, real string) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return false, p
	}
	if abs == c.tu {
		return true, abs
	}
	for _, s := range c.system {
		if under(abs, s) {
			return true, abs
		}
	}
	real = abs
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		real = r
	}
	return under(real, c.root), real
}

// check returns an *OutsideError for the first dependency outside.
func (c *confinement) check(deps []string) error {
	for _, d := range deps {
		if ok, real := c.allowed(d); !ok {
			return &OutsideError{Path: d, Real: real}
		}
	}
	return nil
}

// diagLocation is a diagnostic's location and kind: the shortest path
// that a line number and a kind follow, so a directory of the tree named
// "a.h:1:" does not pass for a.h.
var (
	diagLocation = lazyre.New(`^(.+?):(\d+):(?:\d+:)? (?:fatal error|error|warning|note): `)
	diagAnywhere = lazyre.New(`:\d+:(?:\d+:)? (?:fatal error|error|warning|note): `)
	diagProgram  = lazyre.New(`^[A-Za-z0-9_.+-]+: (?:fatal error|error): `)
)

// keepLine reports whether a line of the compiler's stderr may be shown:
// a diagnostic located in a file it may read, or one of the compiler
// itself about its command line. A line with a second location in it
// (a file name that spells one) is not shown.
func (c *confinement) keepLine(l string) bool {
	m := diagLocation().FindStringSubmatchIndex(l)
	if m == nil {
		return diagProgram().MatchString(l) && !diagAnywhere().MatchString(l)
	}
	if diagAnywhere().MatchString(l[m[1]:]) {
		return false
	}
	ok, _ := c.allowed(l[m[2]:m[3]])
	return ok
}

// scrub is err without the compiler's stderr, which may quote files
// outside the tree.
func scrub(err error) error {
	var re *run.Error
	if errors.As(err, &re) {
		c := *re
		c.Stderr = ""
		return &c
	}
	return err
}

var sysIncludes struct {
	sync.Mutex
	dirs  map[string][]string // compiler path → its <...> directories
	progs map[string][]string // compiler path → the programs it runs
}

// systemIncludes are the directories the compiler searches for <...>
// headers (cc -E -v), asked once per compiler per process.
func systemIncludes(ctx context.Context, ccPath string) ([]string, error) {
	sysIncludes.Lock()
	dirs, ok := sysIncludes.dirs[ccPath]
	sysIncludes.Unlock()
	if ok {
		return dirs, nil
	}
	res, err := run.Cmd{Path: ccPath, Name: filepath.Base(ccPath), Args: []string{"-E", "-v", "-x", "c", "-o", os.DevNull, os.DevNull}, MaxStderr: 1 << 20}.Run(ctx)
	if err != nil {
		return nil, fmt.Errorf("asking %s for its include directories: %w", ccPath, scrub(err))
	}
	in := false
	for _, l := range strings.Split(res.Stderr, "\n") {
		switch {
		case strings.HasPrefix(l, "#include <...> search starts here:"):
			in = true
		case strings.HasPrefix(l, "End of search list."):
			in = false
		case in && strings.HasPrefix(l, " "):
			d := strings.TrimSpace(strings.TrimSuffix(l, " (framework directory)"))
			if filepath.IsAbs(d) {
				dirs = append(dirs, filepath.Clean(d))
			}
		}
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("%s -E -v named no include directory", ccPath)
	}
	sysIncludes.Lock()
	if sysIncludes.dirs == nil {
		sysIncludes.dirs = map[string][]string{}
	}
	sysIncludes.dirs[ccPath] = dirs
	sysIncludes.Unlock()
	return dirs, nil
}
