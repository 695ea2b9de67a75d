package glibc

import (
	"strings"
	"sync"

	"github.com/abifloor/abifloor/symver"
)

// Where is where a symbol is in one release: the library that defines it
// there, or, when no library does, the oldest version that introduced it
// later (Newer).
type Where struct {
	Soname  string // the library defining it at the target ("" if none)
	Version string // its default version there
	Newer   string // the oldest GLIBC_x version above the target, when Soname is ""
}

// Index answers Lookup for many names of one release.
type Index struct {
	at     map[string]Where
	oldest map[string]string
}

// Index builds the look-up table of target (already checked).
func (a *Arch) Index(target string) *Index {
	if a.indexes == nil {
		return a.index(target)
	}
	f, _ := a.indexes.LoadOrStore(target, sync.OnceValue(func() *Index { return a.index(target) }))
	return f.(func() *Index)()
}

// index builds the look-up table of target.
func (a *Arch) index(target string) *Index {
	ix := &Index{at: map[string]Where{}, oldest: map[string]string{}}
	def := map[string]bool{} // the entry in at is a default version
	for _, st := range a.Select(target) {
		for _, s := range st.Syms {
			if _, ok := ix.at[s.Name]; !ok || s.Default && !def[s.Name] {
				ix.at[s.Name] = Where{Soname: st.Soname, Version: s.Version}
				def[s.Name] = s.Default
			}
		}
	}
	for _, l := range a.Libs {
		for _, d := range l.Defs {
			if o, ok := ix.oldest[d.Name]; !ok || symver.Compare(verNum(d.Version), verNum(o)) < 0 {
				ix.oldest[d.Name] = d.Version
			}
		}
	}
	return ix
}

// Lookup says where name is: which library of the release defines it, or
// the version that adds it later. ok is false when glibc never defines it.
func (ix *Index) Lookup(name string) (w Where, ok bool) {
	if w, ok := ix.at[name]; ok {
		return w, true
	}
	if v, ok := ix.oldest[name]; ok {
		return Where{Newer: v}, true
	}
	return Where{}, false
}

// Lookup is Index(target).Lookup(name), for a single name.
func (a *Arch) Lookup(name, target string) (Where, bool) {
	return a.Index(target).Lookup(name)
}

// LinkFlag is the option that links soname: libanl.so.1 → -lanl; "" for
// libc and the loader, which every link has.
func LinkFlag(soname string) string {
	base, _, _ := strings.Cut(soname, ".so")
	if base == "libc" || !strings.HasPrefix(base, "lib") || strings.HasPrefix(soname, "ld-") {
		return ""
	}
	return "-l" + strings.TrimPrefix(base, "lib")
}

// Header is a copy of a without its libraries: what ResolveWith, Check and
// Key need (ArchHeader has it without unpacking the database).
func (a *Arch) Header() Arch {
	return Arch{Name: a.Name, Triple: a.Triple, Loader: a.Loader, Digest: a.Digest, First: a.First, Newest: a.Newest}
}
