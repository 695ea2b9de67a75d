// Package glibc knows, for every glibc release, which symbols and symbol
// versions each of its shared libraries defines, and writes stub libraries
// that define exactly those: linking against the stubs of glibc 2.17 on a
// host with glibc 2.36 gives a binary whose GLIBC floor is at most 2.17, and
// that finds every symbol in the library that really defined it in 2.17.
//
// The database is embedded (glibc.tsv.gz). The generator in ./gen builds it
// from real releases' libraries (Debian's 2.31, 2.36 and 2.41) and from
// upstream glibc's abilist files of every release; for each symbol version
// of each library it records the releases in which the library exports it
// and those in which it is the default version (name@@VER).
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

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/symver"
)

// Regenerating needs the fetched releases (.ci/fetch-libc6.sh) and zig's
// abilists (ABIFLOOR_ZIG); see docs/stubs.md.
//
//go:generate go run ./gen -o glibc.tsv.gz
//go:generate go test -run TestHeadersGenerated -update .

//go:embed glibc.tsv.gz
var embedded []byte

// Kind is the type of a symbol, as far as a stub needs to reproduce it.
type Kind byte

const (
	Func   Kind = 'F' // code (also GNU_IFUNC: the loader resolves it in the real library)
	Object Kind = 'O' // data; its size must match, copy relocations copy that many bytes
	TLS    Kind = 'T' // thread-local data
)

// Span is a run of glibc releases: From <= release < Until, where an empty
// bound is unbounded.
type Span struct{ From, Until string }

// Never is the empty span.
var Never = Span{From: "0", Until: "0"}

// Empty reports whether no release is in s.
func (s Span) Empty() bool { return s.From != "" && s.From == s.Until }

// Has reports whether release (2.17) is in s.
func (s Span) Has(release string) bool {
	return !s.Empty() && (s.From == "" || symver.Compare(release, s.From) >= 0) &&
		(s.Until == "" || symver.Compare(release, s.Until) < 0)
}

// Def is one versioned definition of a symbol in one library.
type Def struct {
	Name    string
	Version string // GLIBC_2.2.5
	Kind    Kind
	Size    uint64
	Weak    bool
	// In holds the releases whose library defines this version (never one
	// older than the version itself): symbols that moved into libc in 2.34
	// are in libpthread, libdl, ... before and in libc from then on.
	In Span
	// DefaultIn holds the releases in which this version is the default
	// (name@@VER), the one the link editor binds new references to; Never
	// for a compatibility symbol.
	DefaultIn Span
	// Alias groups data symbols that share one address in the real library
	// (environ, _environ, __environ): the stub keeps them at one address, so
	// a copy relocation of one moves them all, as the link editor expects.
	Alias string
}

// Library is one shared library of an architecture's glibc.
type Library struct {
	Soname   string
	Versions []string // version nodes it has in some release, ascending
	Defs     []Def
}

// Arch is the glibc of one architecture.
type Arch struct {
	Name   string // as elfx names it: x86_64, aarch64, i386, s390x
	Triple string // x86_64-linux-gnu: the cross compiler's prefix
	Loader string // the dynamic loader's soname
	Libs   []*Library
	Digest string // hash of the database
	First  string // the oldest GLIBC version (2.2.5 on x86_64)
	Newest string // the newest glibc release the database knows
	// indexes are the Index of each release, made once: building the
	// stubs asks for the target's and the newest's several times.
	indexes *sync.Map
}

// DB is the whole database.
type DB struct {
	Arches map[string]*Arch
	// names lists every architecture of the data, also those a partial
	// read skipped, for error messages.
	names []string
}

// LoadArch reads one architecture from the embedded database, cheaply: the
// other architectures' lines are skipped (reading stops after the
// architecture's part, and x86_64 comes first), and so are symbols unless
// asked for (checking a version and computing a cache key need none).
func LoadArch(name string, symbols bool) (*Arch, error) {
	name = archName(name)
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

// archName is the database's name of an architecture written as a user
// may write it: the one vocabulary of elfx.ParseArch (amd64, arm64, i686,
// ...), so that every command takes the same names.
func archName(name string) string {
	if a, ok := elfx.ParseArch(name); ok {
		return a
	}
	return name
}

// Arch returns one architecture, named as elfx.ParseArch reads names
// (amd64 and x86_64, arm64 and aarch64, i686 and i386 are one).
func (db *DB) Arch(name string) (*Arch, error) {
	name = archName(name)
	a, ok := db.Arches[name]
	if !ok {
		return nil, fmt.Errorf("glibc: no data for architecture %q (known: %s)", name, strings.Join(db.names, ", "))
	}
	return a, nil
}

// Parse reads the database text: tab-separated lines
//
//	A arch triple loader newest
//	L arch soname version,version,...
//	S arch soname name version flags kind size in default alias
//
// flags holds 'w' (weak) or is "-". in and default are spans of releases:
// "-" (from the version's own release on), "n" (never) or FROM-UNTIL with
// either side empty. alias is "-" or a token shared by the data symbols at
// one address. Lines starting with '#' are comments. Errors name the line.
func Parse(r io.Reader) (*DB, error) { return parse(r, "", true) }

// parser holds the state of one read of the database.
type parser struct {
	db      *DB
	libs    map[[2]string]*Library
	arches  map[string]bool // every architecture named so far, read or skipped
	only    string          // when set, records of other architectures are skipped
	symbols bool            // when false, symbol records are skipped
}

// parse reads the database; when only is set, records of other
// architectures are skipped (but still named, for error messages), and
// symbol records too unless symbols is set.
func parse(r io.Reader, only string, symbols bool) (*DB, error) {
	p := &parser{db: &DB{Arches: map[string]*Arch{}}, libs: map[[2]string]*Library{}, arches: map[string]bool{}, only: only, symbols: symbols}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if p.only != "" && p.db.Arches[p.only] != nil && strings.HasPrefix(line, "A\t") {
			break // the architecture asked for is complete: skip the rest
		}
		if err := p.line(line); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", n+1, err)
	}
	if len(p.db.names) == 0 {
		return nil, fmt.Errorf("no architectures")
	}
	sort.Strings(p.db.names)
	for _, a := range p.db.Arches {
		if err := a.finish(); err != nil {
			return nil, err
		}
	}
	return p.db, nil
}

func (p *parser) line(line string) error {
	if line == "" || line[0] == '#' {
		return nil
	}
	if p.only != "" && (line[0] == 'L' || line[0] == 'S') {
		if !p.symbols && line[0] == 'S' || !strings.HasPrefix(line[1:], "\t"+p.only+"\t") {
			return nil
		}
	}
	f := strings.Split(line, "\t")
	var err error
	switch f[0] {
	case "A":
		err = p.arch(f)
	case "L":
		err = p.library(f)
	case "S":
		err = p.symbol(f)
	default:
		err = fmt.Errorf("unknown record")
	}
	if err != nil {
		return fmt.Errorf("%w: %q", err, line)
	}
	return nil
}

func (p *parser) arch(f []string) error {
	if len(f) != 5 || f[1] == "" || f[3] == "" {
		return fmt.Errorf("want A arch triple loader newest")
	}
	if _, _, ok := symver.Split("GLIBC_" + f[4]); !ok {
		return fmt.Errorf("newest release is not a version")
	}
	if p.arches[f[1]] {
		return fmt.Errorf("architecture listed twice")
	}
	p.arches[f[1]] = true
	p.db.names = append(p.db.names, f[1])
	if p.only == "" || p.only == f[1] {
		p.db.Arches[f[1]] = &Arch{Name: f[1], Triple: f[2], Loader: f[3], Newest: f[4], indexes: &sync.Map{}}
	}
	return nil
}

func (p *parser) library(f []string) error {
	if len(f) != 4 {
		return fmt.Errorf("want L arch soname versions")
	}
	a := p.db.Arches[f[1]]
	if a == nil {
		return fmt.Errorf("library of an unknown architecture")
	}
	key := [2]string{f[1], f[2]}
	if p.libs[key] != nil || f[2] == "" {
		return fmt.Errorf("library listed twice or unnamed")
	}
	l := &Library{Soname: f[2], Versions: strings.Split(f[3], ",")}
	for _, v := range l.Versions {
		if !isGLIBC(v) {
			return fmt.Errorf("version %s is not a GLIBC_x.y version", v)
		}
	}
	p.libs[key] = l
	a.Libs = append(a.Libs, l)
	return nil
}

func (p *parser) symbol(f []string) error {
	if len(f) != 11 {
		return fmt.Errorf("want S arch soname name version flags kind size in default alias")
	}
	l := p.libs[[2]string{f[1], f[2]}]
	if l == nil {
		return fmt.Errorf("symbol of an unknown library")
	}
	if f[3] == "" || strings.ContainsAny(f[3], " \"\\,;:") {
		return fmt.Errorf("bad symbol name")
	}
	if !isGLIBC(f[4]) {
		return fmt.Errorf("version is not a GLIBC_x.y version")
	}
	if f[5] != "-" && f[5] != "w" {
		return fmt.Errorf("flags are not - or w")
	}
	if len(f[6]) != 1 || !strings.Contains("FOT", f[6]) {
		return fmt.Errorf("kind is not F, O or T")
	}
	size, err := strconv.ParseUint(f[7], 10, 32)
	if err != nil {
		return fmt.Errorf("bad size")
	}
	d := Def{Name: f[3], Version: f[4], Kind: Kind(f[6][0]), Size: size, Weak: f[5] == "w"}
	if d.In, err = parseSpan(f[8]); err != nil {
		return err
	}
	if d.DefaultIn, err = parseSpan(f[9]); err != nil {
		return err
	}
	if f[10] != "-" {
		d.Alias = f[10]
	}
	l.Defs = append(l.Defs, d)
	return nil
}

func parseSpan(s string) (Span, error) {
	switch s {
	case "-":
		return Span{}, nil
	case "n":
		return Never, nil
	}
	from, until, ok := strings.Cut(s, "-")
	for _, v := range []string{from, until} {
		if _, _, vok := symver.Split("GLIBC_" + v); v != "" && !vok {
			ok = false
		}
	}
	if !ok || from != "" && until != "" && symver.Compare(from, until) >= 0 {
		return Span{}, fmt.Errorf("bad span %q", s)
	}
	return Span{From: from, Until: until}, nil
}

func (a *Arch) finish() error {
	for _, l := range a.Libs {
		for _, v := range l.Versions {
			if num := verNum(v); a.First == "" || symver.Compare(num, a.First) < 0 {
				a.First = num
			}
		}
	}
	if a.lib("libc.so.6") == nil {
		return fmt.Errorf("architecture %s has no libc.so.6", a.Name)
	}
	if symver.Compare(a.First, a.Newest) > 0 {
		return fmt.Errorf("architecture %s: newest release %s is older than its first version %s", a.Name, a.Newest, a.First)
	}
	a.Digest = Digest()
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
	Name    string
	Version string
	Kind    Kind
	Size    uint64
	Weak    bool
	Alias   string
	// Default is set when this is the name's default version in the
	// target release, written name@@VER (as elfx.Symbol.Default).
	Default bool
}

// StubLib is what the stub of one library for one target holds.
type StubLib struct {
	Soname   string
	Versions []string // the version nodes of its symbols, ascending
	Syms     []StubSym
}

// Select returns the stub of every library the target release (already
// checked) has: a library that exports nothing then (libmvec on aarch64
// before 2.38) has none.
func (a *Arch) Select(target string) []StubLib {
	var out []StubLib
	for _, l := range a.Libs {
		if s := selectLib(l, target); len(s.Syms) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// selectLib returns what l exports in release target: the definitions
// whose version is at or below target and whose In holds it, each default
// when its DefaultIn holds target.
func selectLib(l *Library, target string) StubLib {
	s := StubLib{Soname: l.Soname}
	versions := map[string]bool{}
	for _, d := range l.Defs {
		if !atOrBelow(d.Version, target) || !d.In.Has(target) {
			continue
		}
		s.Syms = append(s.Syms, StubSym{Name: d.Name, Version: d.Version, Kind: d.Kind, Size: d.Size,
			Weak: d.Weak, Alias: d.Alias, Default: d.DefaultIn.Has(target)})
		if !versions[d.Version] {
			versions[d.Version] = true
			s.Versions = append(s.Versions, d.Version)
		}
	}
	sort.Slice(s.Versions, func(i, j int) bool { return symver.Compare(s.Versions[i], s.Versions[j]) < 0 })
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
