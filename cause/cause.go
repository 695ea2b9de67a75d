// Package cause says why a symbol raises a glibc floor and what lowers
// it. Most floors come from headers and start files, not from what the
// code means to call: glibc 2.38 headers in GNU mode turn strtol into
// __isoc23_strtol, _FILE_OFFSET_BITS=64 turns fcntl into fcntl64, glibc
// 2.34's crt1.o calls __libc_start_main@GLIBC_2.34. Each such class is a
// row of an embedded table (causes.tsv), not prose per case. A symbol no
// row names is either new in the release that raised the floor (the
// embedded glibc database says which release added it) or a new version
// of an older function.
package cause

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/abifloor/abifloor/glibc"
	"github.com/abifloor/abifloor/symver"
)

// Classes no table row names.
const (
	// NewFunction: the function first appears in the version required.
	NewFunction = "new-function"
	// NewVersion: an older version of the function exists; the link
	// bound the newer one.
	NewVersion = "new-version"
)

// Cause is why one symbol needs its version, and the change that lowers
// it.
type Cause struct {
	// Class is a stable identifier: a row's class (c23-headers,
	// lfs-headers, stat-headers, start-files, libc-merge, memcpy,
	// fortify, libstdcxx-headers, polyfill: a function newer than the
	// limit that abifloor cc links a copy of), NewFunction or NewVersion.
	Class string
	Why   string
	Fix   string
}

// Limit is what the file was held to, for the fix's command line: a
// named target (Target), else a glibc release (Glibc).
type Limit struct {
	Target string
	Glibc  string
}

// cc is the abifloor cc command line for l.
func (l Limit) cc() string {
	switch {
	case l.Target != "":
		return "abifloor cc --target " + l.Target
	case l.Glibc != "":
		return "abifloor cc --glibc " + l.Glibc
	}
	return "abifloor cc --glibc VERSION"
}

// where is "on debian-11" or "in glibc 2.31", for a fix that names the
// limit.
func (l Limit) where() string {
	switch {
	case l.Target != "":
		return "not on " + l.Target
	case l.Glibc != "":
		return "not in glibc " + l.Glibc
	}
	return ""
}

//go:embed causes.tsv
var table string

type rule struct {
	pattern, version, class, why, fix string
}

var rules = sync.OnceValues(func() ([]rule, error) { return parse(table) })

// parse reads the table; a malformed row is an error, which the table
// test catches before any release.
func parse(s string) ([]rule, error) {
	var out []rule
	for i, line := range strings.Split(s, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 5 || f[0] == "" || f[2] == "" || f[3] == "" || f[4] == "" {
			return nil, fmt.Errorf("causes.tsv:%d: want 5 tab-separated fields", i+1)
		}
		out = append(out, rule{f[0], f[1], f[2], f[3], f[4]})
	}
	return out, nil
}

// match reports whether name matches pattern, whose one * (if any)
// matches any run of characters.
func match(pattern, name string) bool {
	pre, post, ok := strings.Cut(pattern, "*")
	if !ok {
		return pattern == name
	}
	return len(name) >= len(pre)+len(post) && strings.HasPrefix(name, pre) && strings.HasSuffix(name, post)
}

// Of says why ref (name@GLIBC_x.y) needs its version, for a file held to
// l on architecture arch (elfx's names: x86_64, aarch64). ok is false for
// a reference that is not to a GLIBC version, or when nothing is known.
func Of(ref, arch string, l Limit) (c Cause, ok bool) {
	name, version, _ := strings.Cut(ref, "@")
	ns, ver, isNum := symver.Split(version)
	if !isNum || ns != "GLIBC" {
		return Cause{}, false
	}
	rs, err := rules()
	if err != nil {
		return Cause{}, false
	}
	for _, r := range rs {
		if match(r.pattern, name) && (r.version == "*" || r.version == version) {
			return Cause{Class: r.class, Why: r.why, Fix: strings.ReplaceAll(r.fix, "{cc}", l.cc())}, true
		}
	}
	first, ok := firstVersion(arch, name)
	if !ok {
		return Cause{}, false
	}
	if symver.Compare(first, ver) >= 0 {
		fix := name + ": glibc " + ver
		if w := l.where(); w != "" {
			fix += "; " + w
		}
		return Cause{Class: NewFunction, Why: name + " is new in glibc " + ver,
			Fix: fix + ": replace it, or load it at run time (dlsym) where it exists"}, true
	}
	return Cause{Class: NewVersion, Why: fmt.Sprintf("%s exists since glibc %s; the link bound its newer version %s", name, first, version),
		Fix: "build with " + l.cc() + ": it binds the oldest version the target has"}, true
}

// firstVersion is the oldest glibc version exporting name on arch, from
// the embedded database.
func firstVersion(arch, name string) (string, bool) {
	ix, err := index(arch)
	if err != nil || ix == nil {
		return "", false
	}
	v, ok := ix.oldest(name)
	return v, ok
}

type archIndex struct {
	first  string
	lookup *glibc.Index
}

// oldest: at the database's first release the name is there (so as old
// as glibc on arch), or the version that added it later.
func (a *archIndex) oldest(name string) (string, bool) {
	w, ok := a.lookup.Lookup(name)
	switch {
	case !ok:
		return "", false
	case w.Soname != "":
		return a.first, true
	}
	_, v, _ := symver.Split(w.Newer)
	return v, v != ""
}

var (
	indexMu sync.Mutex
	indexes = map[string]*archIndex{}
)

// index loads arch's part of the database once per process: only files
// with a violation or under --why ask, and they ask per symbol.
func index(arch string) (*archIndex, error) {
	indexMu.Lock()
	defer indexMu.Unlock()
	if ix, ok := indexes[arch]; ok {
		return ix, nil
	}
	a, err := glibc.LoadArch(arch, true)
	if err != nil {
		indexes[arch] = nil
		return nil, err
	}
	ix := &archIndex{first: a.First, lookup: a.Index(a.First)}
	indexes[arch] = ix
	return ix, nil
}
