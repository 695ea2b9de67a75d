package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/abifloor/abifloor/glibc"
	"github.com/abifloor/abifloor/symver"
)

// key names one symbol version in one library.
type key struct{ lib, name, version string }

// release is what the generator read of one real glibc release of an
// architecture: every library's exports.
type release struct {
	version string // 2.31
	libs    map[string]bool
	defs    map[key]glibc.Export
	src     int // argument index, for alias groups
}

// arch is everything known about one architecture.
type arch struct {
	name    string
	reads   []*release             // ascending
	born    map[[2]string][]string // zig: (name, version) -> libraries of the release that introduced it
	zigTop  string                 // the newest release the zig data describes ("" without zig data)
	zigSize map[key]inclusion
	// foreign holds, for an architecture with no real release before
	// 2.34, the names of libanl, which zig's data does not describe.
	foreign map[string]string // name -> soname
	// compat231 says, for such an architecture, whether (lib, name) was
	// compat-only in the other architectures' real 2.31.
	compat231 map[[2]string]bool
	// goneBy231 holds what upstream had in a library of another
	// architecture and that architecture's real 2.31 no longer has.
	goneBy231 map[[2]string]bool

	aroundCache map[string][2]*release
	errs        []string
}

// Rules for the releases between or before the real ones. Each says when
// glibc did what the real releases show it did at some point.

// moveRelease is the release in which name@version left from (for another
// library, or for nowhere) or reached to.
func moveRelease(lib, name string, in bool) (string, bool) {
	switch {
	case strings.HasSuffix(name, "_version_placeholder"):
		return "2.34", in // placeholders of the emptied libraries came in 2.34
	case !in && strings.HasPrefix(lib, "ld-") || lib == "ld64.so.1":
		// ld.so stopped exporting its minimal malloc in 2.32.
		switch name {
		case "malloc", "calloc", "realloc", "free":
			return "2.32", true
		case "__libc_memalign":
			return "2.31", true // gone in the real 2.31
		}
		return "", false
	case in && lib == "libc.so.6" && strings.HasPrefix(name, "clock_"):
		// clock_* moved from librt to libc in 2.17 (librt kept its copies).
		return "2.17", true
	case !in && lib == "librt.so.1" && strings.HasPrefix(name, "clock_"):
		return "2.31", true // librt's copies are gone in the real 2.31
	}
	// libpthread, libdl, librt, libutil, libanl and parts of libresolv and
	// libm (__isnanf128) moved into libc in 2.34; malloc_get_state and
	// malloc_set_state left libc for libc_malloc_debug then.
	return "2.34", true
}

// compatFrom is the release from which a symbol has only compatibility
// versions (no name@@VER): new links can no longer bind to it. Only releases
// the glibc NEWS files state are listed; a symbol compat-only in the oldest
// real release and not listed here is compat-only in every older release
// too, so that a stub never offers a default the real release may lack.
var compatFrom = map[string]string{
	"malloc_get_state": "2.25", "malloc_set_state": "2.25",
	"__malloc_initialize_hook": "2.24",
	"matherr":                  "2.27", "_LIB_VERSION": "2.27",
	"stime":  "2.31",
	"cfree":  "2.26",
	"sigvec": "2.21",
	"ustat":  "2.28", "nfsservctl": "2.28",
	"bdflush": "2.23", "create_module": "2.23", "get_kernel_syms": "2.23", "query_module": "2.23", "uselib": "2.23",
	"fattach": "2.30", "fdetach": "2.30", "getmsg": "2.30", "getpmsg": "2.30", "isastream": "2.30", "putmsg": "2.30", "putpmsg": "2.30",
	"_IO_vfscanf": "2.29",
	"sys_errlist": "2.32", "_sys_errlist": "2.32", "sys_nerr": "2.32", "_sys_nerr": "2.32",
	"sys_siglist": "2.32", "_sys_siglist": "2.32", "sys_sigabbrev": "2.32",
	"sysctl": "2.32", "__sysctl": "2.32", "sstk": "2.32",
	"vtimes":   "2.33",
	"tr_break": "2.34", "mallwatch": "2.34",
	"__malloc_hook": "2.34", "__free_hook": "2.34", "__realloc_hook": "2.34", "__memalign_hook": "2.34",
	"__after_morecore_hook": "2.34", "__morecore": "2.34", "__default_morecore": "2.34",
}

// compatFromName adds the families compatFrom cannot list by name.
func compatFromName(lib, name string) (string, bool) {
	if r, ok := compatFrom[name]; ok {
		return r, true
	}
	if lib == "libm.so.6" && strings.HasSuffix(name, "_finite") {
		return "2.31", true // the *_finite entry points, NEWS 2.31
	}
	if lib == "librt.so.1" && strings.HasPrefix(name, "clock_") {
		return "2.17", true // librt kept compat wrappers when clock_* moved to libc
	}
	return "", false
}

// around returns the real releases at or before t (the latest) and after
// it (the earliest).
func (a *arch) around(t string) (p, q *release) {
	if pq, ok := a.aroundCache[t]; ok {
		return pq[0], pq[1]
	}
	defer func() {
		if a.aroundCache == nil {
			a.aroundCache = map[string][2]*release{}
		}
		a.aroundCache[t] = [2]*release{p, q}
	}()
	for _, r := range a.reads {
		if symver.Compare(r.version, t) <= 0 {
			p = r
		} else if q == nil {
			q = r
		}
	}
	return p, q
}

// bornIn reports whether name@version was introduced in lib, as far as
// the zig data says; unknown when it does not describe the version.
func (a *arch) bornIn(k key) (in, known bool) {
	if soname, ok := a.foreign[k.name]; ok && symver.Compare(num(k.version), "2.34") < 0 {
		return soname == k.lib, true
	}
	if a.zigTop == "" || symver.Compare(num(k.version), a.zigTop) > 0 {
		return false, false
	}
	libs, ok := a.born[[2]string{k.name, k.version}]
	if !ok || !zigLib(k.lib) {
		return false, false
	}
	for _, l := range libs {
		if l == k.lib {
			return true, true
		}
	}
	return false, true
}

// present reports whether lib defines name@version in release t.
func (a *arch) present(k key, t string) bool {
	if symver.Compare(num(k.version), t) > 0 {
		return false
	}
	if strings.HasSuffix(k.name, "_version_placeholder") && symver.Compare(t, "2.34") < 0 {
		// Before 2.34 a placeholder marked only a version node left with
		// no symbol (GLIBC_2.2.6 in libpthread): as the oldest real
		// release before 2.34 has it, or not at all.
		if r := a.reads[0]; symver.Compare(r.version, "2.34") < 0 {
			_, ok := r.defs[k]
			return ok
		}
		return false
	}
	p, q := a.around(t)
	if p != nil && p.version == t {
		_, ok := p.defs[k]
		return ok
	}
	inQ := false
	if q != nil {
		_, inQ = q.defs[k]
	}
	if p != nil && symver.Compare(num(k.version), p.version) <= 0 {
		_, inP := p.defs[k]
		switch {
		case inP && (q == nil || inQ):
			return true
		case inP:
			return symver.Compare(t, a.move(k, false)) < 0
		case inQ:
			return symver.Compare(t, a.move(k, true)) >= 0
		}
		return false
	}
	// Introduced after the last real release before t (or before any).
	born, known := a.bornIn(k)
	if !known {
		born = inQ
	}
	switch {
	case q == nil:
		return born
	case inQ && born:
		return true
	case inQ:
		return symver.Compare(t, a.move(k, true)) >= 0
	case born:
		until := a.move(k, false)
		if a.goneBy231[[2]string{k.lib, k.name}] {
			until = "2.31" // gone from the other architectures' 2.31
		}
		return symver.Compare(t, until) < 0
	}
	return false
}

func (a *arch) move(k key, in bool) string {
	r, ok := moveRelease(k.lib, k.name, in)
	if !ok {
		dir := "left"
		if in {
			dir = "reached"
		}
		a.fail("%s: %s@%s %s %s between real releases: no rule says when", a.name, k.name, k.version, dir, k.lib)
		return "0"
	}
	return r
}

// compatOnly reports whether lib has name only as compatibility symbols
// in release t (which is not a real release).
func (a *arch) compatOnly(lib, name string, t string, versions []string) bool {
	p, q := a.around(t)
	state := func(r *release) (has, compat bool) {
		if r == nil {
			return false, false
		}
		compat = true
		for _, v := range versions {
			if e, ok := r.defs[key{lib, name, v}]; ok {
				has = true
				compat = compat && !e.Default
			}
		}
		return has, compat
	}
	hasP, cP := state(p)
	hasQ, cQ := state(q)
	from, known := compatFromName(lib, name)
	if known {
		return symver.Compare(t, from) >= 0
	}
	if c, ok := a.compat231[[2]string{lib, name}]; ok && symver.Compare(t, "2.31") <= 0 {
		return c
	}
	switch {
	case hasP && hasQ && cP == cQ, hasP && !hasQ:
		return cP
	case hasP && hasQ && cP:
		a.fail("%s: %s in %s is compat-only in %s but not in %s", a.name, name, lib, p.version, q.version)
		return true
	case hasQ && cQ && hasP:
		// Became compat-only after p: from the next release on, as far as
		// the stubs are concerned (a stub that lacks a default fails a
		// link; one that has it wrongly fails at run time).
		return true
	case hasQ:
		return cQ
	}
	return false
}

// derived is one symbol version with the releases it is present and
// default in.
type derived struct {
	key
	exp           glibc.Export
	src           int
	in, defaultIn glibc.Span
}

// derive computes every symbol version's spans over the releases.
func (a *arch) derive(releases []string) []derived {
	keys := a.keys()
	byLibName := map[[2]string][]key{}
	for k := range keys {
		byLibName[[2]string{k.lib, k.name}] = append(byLibName[[2]string{k.lib, k.name}], k)
	}
	var out []derived
	for _, ks := range byLibName {
		sort.Slice(ks, func(i, j int) bool { return symver.Compare(ks[i].version, ks[j].version) < 0 })
		versions := make([]string, len(ks))
		for i, k := range ks {
			versions[i] = k.version
		}
		present := make([][]bool, len(ks))
		for i, k := range ks {
			present[i] = make([]bool, len(releases))
			for j, t := range releases {
				present[i][j] = a.present(k, t)
			}
		}
		dflt := a.defaults(ks, versions, releases, present)
		for i, k := range ks {
			in, ok1 := span(releases, present[i])
			din, ok2 := span(releases, dflt[i])
			if !ok1 || !ok2 {
				a.fail("%s: %s@%s in %s: present %v, default %v: not one span of releases", a.name, k.name, k.version, k.lib, present[i], dflt[i])
				continue
			}
			if in.Empty() {
				continue
			}
			exp, src := keys[k].exp, keys[k].src
			out = append(out, derived{key: k, exp: exp, src: src, in: in, defaultIn: din})
		}
	}
	return out
}

// defaults says, for each version ks[i] of one name in one library and each
// release, whether it is the default version there. A real release says
// so itself. Between real releases, the version the next real release
// makes the default stays it while present (lseek64@@GLIBC_2.1 on i386
// beats the GLIBC_2.2 copy libc took from libpthread); otherwise the
// highest present version is, unless the name is compat-only then.
func (a *arch) defaults(ks []key, versions, releases []string, present [][]bool) [][]bool {
	dflt := make([][]bool, len(ks))
	for i := range ks {
		dflt[i] = make([]bool, len(releases))
	}
	for j, t := range releases {
		p, q := a.around(t)
		if p != nil && p.version == t {
			for i, k := range ks {
				dflt[i][j] = present[i][j] && p.defs[k].Default
			}
			continue
		}
		chosen := -1
		for i, k := range ks {
			if q != nil && q.defs[k].Default && present[i][j] {
				chosen = i
			}
		}
		if chosen < 0 {
			for i := range ks {
				if present[i][j] {
					chosen = i
				}
			}
			if chosen >= 0 && a.compatOnly(ks[0].lib, ks[0].name, t, versions) {
				chosen = -1
			}
		}
		if chosen >= 0 {
			dflt[chosen][j] = true
		}
	}
	return dflt
}

type keyInfo struct {
	exp glibc.Export
	src int
}

// keys gathers every symbol version any source names, with its type and
// size from the newest real release that has it (zig's otherwise).
func (a *arch) keys() map[key]keyInfo {
	ks := map[key]keyInfo{}
	for nv, libs := range a.born {
		for _, lib := range libs {
			k := key{lib, nv[0], nv[1]}
			exp := glibc.Export{Name: k.name, Version: k.version, Kind: glibc.Func}
			if in, ok := a.zigSize[k]; ok {
				exp.Kind, exp.Size = glibc.Kind(in.kind), in.size
			}
			ks[k] = keyInfo{exp: exp, src: -1}
		}
	}
	for _, r := range a.reads {
		for k, e := range r.defs {
			ks[k] = keyInfo{exp: e, src: r.src}
		}
	}
	if a.foreign != nil {
		for k, info := range ks {
			if soname, ok := a.foreign[k.name]; ok && k.lib == "libc.so.6" && symver.Compare(num(k.version), "2.34") < 0 {
				f := key{soname, k.name, k.version}
				if _, dup := ks[f]; !dup {
					ks[f] = keyInfo{exp: info.exp, src: -1}
				}
			}
		}
	}
	return ks
}

// span turns per-release flags into one span [From, Until); ok is false
// when the flags are not one run.
func span(releases []string, on []bool) (glibc.Span, bool) {
	first, last := -1, -1
	for i, b := range on {
		if b {
			if first < 0 {
				first = i
			} else if last != i-1 {
				return glibc.Span{}, false
			}
			last = i
		}
	}
	if first < 0 {
		return glibc.Never, true
	}
	s := glibc.Span{From: releases[first]}
	if first == 0 {
		s.From = ""
	}
	if last+1 < len(releases) {
		s.Until = releases[last+1]
	}
	return s, true
}

// fail records an error once.
func (a *arch) fail(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for _, e := range a.errs {
		if e == msg {
			return
		}
	}
	a.errs = append(a.errs, msg)
}

func num(v string) string {
	_, n, _ := symver.Split(v)
	return n
}
