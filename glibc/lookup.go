package glibc

import (
	"strings"

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

// Lookup says where name is at target (already checked): which library of
// that release defines it, or the version that adds it later. ok is false
// when glibc never defines it.
func (a *Arch) Lookup(name, target string) (w Where, ok bool) {
	for _, st := range a.Select(target) {
		for _, s := range st.Syms {
			if s.Name == name && (w.Soname == "" || s.Default) {
				w.Soname, w.Version, ok = st.Soname, s.Version, true
			}
		}
	}
	if ok {
		return w, true
	}
	for _, l := range a.Libs {
		for _, d := range l.Defs {
			if d.Name != name {
				continue
			}
			if w.Newer == "" || symver.Compare(verNum(d.Version), verNum(w.Newer)) < 0 {
				w.Newer, ok = d.Version, true
			}
		}
	}
	return w, ok
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
