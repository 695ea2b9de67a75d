// Package glibc knows, for every glibc release, which symbols and symbol
// versions its shared libraries define, and writes stub libraries that define
// exactly those: linking against the stubs of glibc 2.17 on a host with glibc
// 2.36 gives a binary whose GLIBC floor is at most 2.17.
//
// The knowledge comes from one fact: glibc never drops a symbol version. A
// definition name@GLIBC_X, once released, exists in every later glibc (as a
// compatibility symbol when a newer default replaced it). So the libraries of
// one new glibc, read once by the generator in ./gen, tell every older release
// too: the stub for release T holds, for each symbol, the versions at or below
// T, the highest of them being the default (name@@VER) that the link editor
// binds new references to. The database is embedded (glibc.tsv.gz).
package glibc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/abifloor/abifloor/symver"
)

// Without arguments the generator reads only the host's glibc (and the
// installed cross libraries); the committed file also merges glibc 2.41 for
// x86_64 and aarch64, see docs/stubs.md for the command.
//
//go:generate go run ./gen -o glibc.tsv.gz

//go:embed glibc.tsv.gz
var embedded []byte

// Kind is the type of a symbol, as far as a stub needs to reproduce it.
type Kind byte

const (
	Func   Kind = 'F' // code (also GNU_IFUNC: the loader resolves it in the real library)
	Object Kind = 'O' // data; its size must match, copy relocations copy that many bytes
	TLS    Kind = 'T' // thread-local data
)

// Def is one versioned definition of a symbol in one library.
type Def struct {
	Name    string
	Version string // GLIBC_2.2.5
	Kind    Kind
	Size    uint64
	Weak    bool
	// Default is true when some release defines this version as the
	// default. A symbol none of whose versions is a default (matherr, now
	// only a compatibility symbol) stays non-default in every stub, so new
	// links never bind to it.
	Default bool
	// Since and Until gate the definition on the target release: present
	// only when Since <= target < Until ("" is unbounded). Symbols that moved
	// from libpthread, libdl, librt and libutil into libc in 2.34 are listed
	// in the old library until 2.34 and in libc from 2.34.
	Since, Until string
	// Alias groups data symbols that share one address in the real library
	// (environ, _environ, __environ): the stub keeps them at one address, so
	// a copy relocation of one moves them all, as the link editor expects.
	Alias string
}

// Library is one shared library of an architecture's glibc.
type Library struct {
	Soname   string
	Versions []string // version nodes it defines, ascending
	Defs     []Def
}

// Arch is the glibc of one architecture.
type Arch struct {
	Name    string // as elfx names it: x86_64, aarch64, i386, s390x
	Triple  string // x86_64-linux-gnu: the cross compiler's prefix
	Loader  string // the dynamic loader's soname
	Libs    []*Library
	Digest  string // hash of the database
	skipped bool
	First   string // the oldest GLIBC version (2.2.5 on x86_64)
	Newest  string // the newest GLIBC version the database knows
}

// DB is the whole database.
type DB struct {
	Arches map[string]*Arch
}

var (
	loadOnce sync.Once
	loaded   *DB
	loadErr  error
)

// Load returns the embedded database.
func Load() (*DB, error) {
	loadOnce.Do(func() {
		zr, err := gzip.NewReader(bytes.NewReader(embedded))
		if err != nil {
			loadErr = fmt.Errorf("glibc: embedded database: %w", err)
			return
		}
		loaded, loadErr = Parse(zr)
		if loadErr != nil {
			loadErr = fmt.Errorf("glibc: embedded database: %w", loadErr)
		}
	})
	return loaded, loadErr
}

// LoadArch reads one architecture from the embedded database, cheaply: the
// other architectures' lines are skipped, and so are symbols unless asked
// for (checking a version and computing a cache key need none).
func LoadArch(name string, symbols bool) (*Arch, error) {
	if name == "i686" {
		name = "i386"
	}
	zr, err := gzip.NewReader(bytes.NewReader(embedded))
	if err != nil {
		return nil, fmt.Errorf("glibc: embedded database: %w", err)
	}
	db, err := parse(zr, name, symbols)
	if err != nil {
		return nil, fmt.Errorf("glibc: embedded database: %w", err)
	}
	return db.Arch(name)
}

// Arch returns one architecture; i686 is an alias of i386.
func (db *DB) Arch(name string) (*Arch, error) {
	if name == "i686" {
		name = "i386"
	}
	a, ok := db.Arches[name]
	if !ok || a.skipped {
		var names []string
		for n := range db.Arches {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("glibc: no data for architecture %q (known: %s)", name, strings.Join(names, ", "))
	}
	return a, nil
}

// Parse reads the database text: tab-separated lines
//
//	A arch triple loader
//	L arch soname version,version,...
//	S arch soname name version flags kind size since until alias
//
// flags holds 'd' (defaultable) and 'w' (weak); "-" is an empty field.
// Lines starting with '#' are comments. Errors name the line.
func Parse(r io.Reader) (*DB, error) { return parse(r, "", true) }

// parse reads the database; when only is set, records of other
// architectures are skipped (but still named, for error messages), and
// symbol records too unless symbols is set.
func parse(r io.Reader, only string, symbols bool) (*DB, error) {
	db := &DB{Arches: map[string]*Arch{}}
	libs := map[[2]string]*Library{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		if only != "" && (line[0] == 'L' || line[0] == 'S') {
			if !symbols && line[0] == 'S' {
				continue
			}
			if !strings.HasPrefix(line[2:], only+"\t") {
				continue
			}
		}
		f := strings.Split(line, "\t")
		bad := func(msg string) error { return fmt.Errorf("line %d: %s: %q", n, msg, line) }
		switch f[0] {
		case "A":
			if len(f) != 4 || f[1] == "" || f[3] == "" {
				return nil, bad("want A arch triple loader")
			}
			if _, dup := db.Arches[f[1]]; dup {
				return nil, bad("architecture listed twice")
			}
			db.Arches[f[1]] = &Arch{Name: f[1], Triple: f[2], Loader: f[3]}
		case "L":
			if len(f) != 4 {
				return nil, bad("want L arch soname versions")
			}
			a := db.Arches[f[1]]
			if a == nil {
				return nil, bad("library of an unknown architecture")
			}
			key := [2]string{f[1], f[2]}
			if libs[key] != nil || f[2] == "" {
				return nil, bad("library listed twice or unnamed")
			}
			l := &Library{Soname: f[2], Versions: strings.Split(f[3], ",")}
			for _, v := range l.Versions {
				if _, _, ok := symver.Split(v); !ok {
					return nil, bad("version " + v + " is not numeric")
				}
			}
			libs[key] = l
			a.Libs = append(a.Libs, l)
		case "S":
			if len(f) != 11 {
				return nil, bad("want S arch soname name version flags kind size since until alias")
			}
			l := libs[[2]string{f[1], f[2]}]
			if l == nil {
				return nil, bad("symbol of an unknown library")
			}
			if f[3] == "" || strings.ContainsAny(f[3], " \"\\,;:") {
				return nil, bad("bad symbol name")
			}
			if _, _, ok := symver.Split(f[4]); !ok {
				return nil, bad("version is not numeric")
			}
			if len(f[6]) != 1 || !strings.Contains("FOT", f[6]) {
				return nil, bad("kind is not F, O or T")
			}
			size, err := strconv.ParseUint(f[7], 10, 32)
			if err != nil {
				return nil, bad("bad size")
			}
			d := Def{Name: f[3], Version: f[4], Kind: Kind(f[6][0]), Size: size,
				Weak: strings.Contains(f[5], "w"), Default: strings.Contains(f[5], "d")}
			if f[10] != "-" {
				d.Alias = f[10]
			}
			for i, p := range []*string{&d.Since, &d.Until} {
				if v := f[8+i]; v != "-" {
					if _, _, ok := symver.Split("GLIBC_" + v); !ok {
						return nil, bad("gate version is not numeric")
					}
					*p = v
				}
			}
			l.Defs = append(l.Defs, d)
		default:
			return nil, bad("unknown record")
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", n+1, err)
	}
	if len(db.Arches) == 0 {
		return nil, fmt.Errorf("no architectures")
	}
	for _, a := range db.Arches {
		if only != "" && a.Name != only {
			a.skipped = true
			continue
		}
		if err := a.finish(); err != nil {
			return nil, err
		}
	}
	return db, nil
}

func (a *Arch) finish() error {
	for _, l := range a.Libs {
		for _, v := range l.Versions {
			_, num, _ := symver.Split(v)
			if a.First == "" || symver.Compare(num, a.First) < 0 {
				a.First = num
			}
			if a.Newest == "" || symver.Compare(num, a.Newest) > 0 {
				a.Newest = num
			}
		}
	}
	if a.lib("libc.so.6") == nil {
		return fmt.Errorf("architecture %s has no libc.so.6", a.Name)
	}
	a.Digest = embeddedDigest()
	return nil
}

func (a *Arch) lib(soname string) *Library {
	for _, l := range a.Libs {
		if l.Soname == soname {
			return l
		}
	}
	return nil
}

// Check reports whether target (2.17, or GLIBC_2.17) is a release this
// architecture's database can describe, and returns it without the prefix.
func (a *Arch) Check(target string) (string, error) {
	t := strings.TrimPrefix(target, "GLIBC_")
	if _, _, ok := symver.Split("GLIBC_" + t); !ok || t == "" {
		return "", fmt.Errorf("glibc: %q is not a glibc version (want e.g. 2.17)", target)
	}
	if symver.Compare(t, a.First) < 0 {
		return "", fmt.Errorf("glibc: %s is older than the first glibc version of %s, %s", t, a.Name, a.First)
	}
	if symver.Compare(t, a.Newest) > 0 {
		return "", fmt.Errorf("glibc: %s is newer than the newest glibc the database knows for %s, %s", t, a.Name, a.Newest)
	}
	return t, nil
}

// StubSym is one symbol version a stub library defines.
type StubSym struct {
	Def
	IsDefault bool // written name@@VER
}

// StubLib is what the stub of one library for one target holds.
type StubLib struct {
	Soname   string
	Versions []string // version nodes at or below the target
	Syms     []StubSym
}

// Select returns the stub of every library for target (already checked).
func (a *Arch) Select(target string) []StubLib {
	var out []StubLib
	for _, l := range a.Libs {
		out = append(out, SelectLib(l, target))
	}
	return out
}

// SelectLib keeps the versions of l at or below target; for each symbol the
// highest kept version is the default when the symbol has a default at all.
func SelectLib(l *Library, target string) StubLib {
	s := StubLib{Soname: l.Soname}
	for _, v := range l.Versions {
		if atOrBelow(v, target) {
			s.Versions = append(s.Versions, v)
		}
	}
	hasDefault := map[string]bool{}
	for _, d := range l.Defs {
		hasDefault[d.Name] = hasDefault[d.Name] || d.Default
	}
	best := map[string]int{} // name → index in s.Syms of the highest version
	for _, d := range l.Defs {
		if !atOrBelow(d.Version, target) {
			continue
		}
		if d.Since != "" && symver.Compare(target, d.Since) < 0 {
			continue
		}
		if d.Until != "" && symver.Compare(target, d.Until) >= 0 {
			continue
		}
		s.Syms = append(s.Syms, StubSym{Def: d})
		i, seen := best[d.Name]
		if !seen || symver.Compare(verNum(d.Version), verNum(s.Syms[i].Version)) > 0 {
			best[d.Name] = len(s.Syms) - 1
		}
	}
	for _, i := range best {
		if hasDefault[s.Syms[i].Name] {
			s.Syms[i].IsDefault = true
		}
	}
	return s
}

func verNum(v string) string {
	_, n, _ := symver.Split(v)
	return n
}

func atOrBelow(version, target string) bool {
	ns, n, ok := symver.Split(version)
	return ok && ns == "GLIBC" && symver.Compare(n, target) <= 0
}
