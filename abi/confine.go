package abi

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

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

// OutsideError is a confined compile that read a file outside its tree.
type OutsideError struct {
	Path string // as the compiler named it
	Real string // where it resolves, when that differs
}

func (e *OutsideError) Error() string {
	p := e.Path
	if e.Real != "" && e.Real != e.Path {
		p += " (resolved: " + e.Real + ")"
	}
	return fmt.Sprintf("the headers read %s, outside their tree: refused (a header may read its own tree and the compiler's system headers only)", p)
}

// confinement decides what a confined compile may read.
type confinement struct {
	root   string   // the tree, absolute and resolved
	system []string // the compiler's system include directories, absolute and clean
	tu     string   // the translation unit abifloor wrote
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
	return &confinement{root: real, system: sys, tu: tu}, nil
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
	diagLocation = regexp.MustCompile(`^(.+?):(\d+):(?:\d+:)? (?:fatal error|error|warning|note): `)
	diagAnywhere = regexp.MustCompile(`:\d+:(?:\d+:)? (?:fatal error|error|warning|note): `)
	diagProgram  = regexp.MustCompile(`^[A-Za-z0-9_.+-]+: (?:fatal error|error): `)
)

// keepLine reports whether a line of the compiler's stderr may be shown:
// a diagnostic located in a file it may read, or one of the compiler
// itself about its command line. A line with a second location in it
// (a file name that spells one) is not shown.
func (c *confinement) keepLine(l string) bool {
	m := diagLocation.FindStringSubmatchIndex(l)
	if m == nil {
		return diagProgram.MatchString(l) && !diagAnywhere.MatchString(l)
	}
	if diagAnywhere.MatchString(l[m[1]:]) {
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
	dirs map[string][]string // compiler path → its <...> directories
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
