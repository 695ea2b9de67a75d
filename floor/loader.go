package floor

import (
	"debug/elf"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/glibc"
	"github.com/abifloor/abifloor/internal/input"
	"github.com/abifloor/abifloor/symver"
)

// Rules of the loader's checks against a glibc release (a target's, or
// the one --max GLIBC= names): what its loader refuses although every
// version number is within the limit.
const (
	// RuleUndefined: a symbol the release's libc.so.6 lacks, where the
	// file finds it nowhere else (a function of libresolv, libpthread,
	// libdl, librt, libutil or libanl before glibc 2.34, the library merge;
	// an unversioned reference to a function glibc adds later).
	RuleUndefined = "undefined_symbol"
	// RuleInterpreter: PT_INTERP names a loader the target does not have.
	RuleInterpreter = "interpreter"
	// RuleBindNow: linked with -z now, the file binds at start a symbol
	// no library of the target's base system defines.
	RuleBindNow = "bind_now_undefined"
)

// loaderCheck is what the loader of a glibc release would refuse in f.
type loaderCheck struct {
	release string // the GLIBC limit: the target's release
	target  string // what set it (a target's name, "--max")
}

// mergedLibs are the libraries whose functions glibc 2.34 moved into
// libc.so.6. Before that, a reference bound to libc.so.6 (unversioned, or
// with a version libc.so.6 has) to one of their functions is found only
// when the library is loaded too.
var mergedLibs = map[string]bool{
	"libpthread.so.0": true, "libdl.so.2": true, "librt.so.1": true,
	"libutil.so.1": true, "libanl.so.1": true, "libresolv.so.2": true,
}

// releaseIndex is what the loader check needs of one release of glibc on
// one architecture.
type releaseIndex struct {
	libc    map[string]map[string]bool // name → versions libc.so.6 defines it in
	movedTo map[string]string          // name → the merged library that has it, not libc
	since   map[string]string          // name → the release libc.so.6 gains it
	ix      *glibc.Index
	err     error
}

var releaseCache sync.Map // arch + "\x00" + release → func() *releaseIndex

// symbolsCache holds each architecture's database with its symbols, read
// once per run: fit checks a file against a dozen releases before 2.34,
// and reading the database for each cost more than the checks.
var symbolsCache sync.Map // arch → func() (*glibc.Arch, error)

func archSymbols(arch string) (*glibc.Arch, error) {
	f, _ := symbolsCache.LoadOrStore(arch, sync.OnceValues(func() (*glibc.Arch, error) { return glibc.LoadArch(arch, true) }))
	return f.(func() (*glibc.Arch, error))()
}

// archInfo is what the database's header says of an architecture: its
// loader and the sonames of glibc's libraries. Reading it skips the
// symbols, so every file can be held to it at no cost worth measuring.
type archInfo struct {
	loader string          // the loader's file name (ld-linux-x86-64.so.2)
	glibc  map[string]bool // sonames of every release's libraries
	err    error
}

var archCache sync.Map // arch → func() *archInfo

func archOf(arch string) *archInfo {
	f, _ := archCache.LoadOrStore(arch, sync.OnceValue(func() *archInfo {
		ai := &archInfo{glibc: map[string]bool{}}
		a, err := glibc.LoadArch(arch, false)
		if err != nil {
			ai.err = err
			return ai
		}
		ai.loader = path.Base(a.Loader)
		for _, l := range a.Libs {
			ai.glibc[l.Soname] = true
		}
		ai.glibc[ai.loader] = true
		return ai
	}))
	return f.(func() *archInfo)()
}

// base reports whether every library r needs is of the target's base
// system: glibc's and the GCC runtimes.
func (ai *archInfo) base(needed []string) bool {
	for _, n := range needed {
		if !ai.glibc[n] && !gccRuntime[n] {
			return false
		}
	}
	return true
}

// indexRelease loads the embedded database's view of release on arch,
// once per run.
func indexRelease(arch, release string) *releaseIndex {
	key := arch + "\x00" + release
	f, _ := releaseCache.LoadOrStore(key, sync.OnceValue(func() *releaseIndex {
		ri := &releaseIndex{libc: map[string]map[string]bool{}, movedTo: map[string]string{}, since: map[string]string{}}
		a, err := archSymbols(arch)
		if err != nil {
			ri.err = err
			return ri
		}
		if release, err = a.Check(release); err != nil {
			ri.err = err
			return ri
		}
		ri.ix = a.Index(release)
		sel := a.Select(release)
		for _, l := range sel {
			if l.Soname != "libc.so.6" {
				continue
			}
			for _, s := range l.Syms {
				if ri.libc[s.Name] == nil {
					ri.libc[s.Name] = map[string]bool{}
				}
				ri.libc[s.Name][s.Version] = true
			}
		}
		for _, l := range sel {
			if !mergedLibs[l.Soname] {
				continue
			}
			for _, s := range l.Syms {
				if ri.libc[s.Name] == nil {
					ri.movedTo[s.Name] = l.Soname
				}
			}
		}
		// The release in which libc.so.6 gains each moved name: the
		// lowest release any of its libc versions is exported in.
		for _, l := range a.Libs {
			if l.Soname != "libc.so.6" {
				continue
			}
			for _, d := range l.Defs {
				if _, moved := ri.movedTo[d.Name]; !moved {
					continue
				}
				from := d.In.From
				if _, n, ok := symver.Split(d.Version); ok && (from == "" || symver.Compare(n, from) > 0) {
					from = n
				}
				if cur, ok := ri.since[d.Name]; from != "" && (!ok || symver.Compare(from, cur) < 0) {
					ri.since[d.Name] = from
				}
			}
		}
		return ri
	}))
	return f.(func() *releaseIndex)()
}

// glibcArch is the database's name of a file's architecture.
func glibcArch(arch string) string {
	if arch == "i686" {
		return "i386"
	}
	return arch
}

// interpViolation: a glibc file's PT_INTERP must be the release's loader
// in one of the directories a glibc system keeps it in; anything else
// (a /run/host path, a typo, another libc's loader) is not on the target,
// and the kernel refuses to start the program.
func (lc loaderCheck) interpViolation(f *elfx.File, r *FileReport, ai *archInfo) *Violation {
	if f.Interp == "" || (r.Kind != elfx.Executable && r.Kind != elfx.PIEExecutable) || ai.loader == "" {
		return nil
	}
	dir, file := path.Split(f.Interp)
	dir = strings.TrimSuffix(dir, "/")
	ok := file == ai.loader
	if ok {
		switch dir {
		case "/lib", "/lib64", "/usr/lib", "/usr/lib64", "/libx32", "/usr/libx32":
		default:
			t := elfx.Multiarch(f.Machine, f.Class, f.Data)
			ok = t != "" && (dir == "/lib/"+t || dir == "/usr/lib/"+t)
		}
	}
	if ok {
		return nil
	}
	return &Violation{Path: r.Path, Rule: RuleInterpreter, Target: lc.target, Required: f.Interp, Allowed: "/lib64/" + ai.loader, Symbols: []Ref{}}
}

// needsSymbols reports whether the check of f reads its symbols: before
// glibc 2.34 for the merge, and for a program whose needs are all the
// base system's and which has an unversioned reference (bound at start
// with -z now, at the first call without).
func (lc loaderCheck) needsSymbols(f *elfx.File, r *FileReport) bool {
	if symver.Compare(lc.release, "2.34") < 0 {
		return true
	}
	if f.Dynamic == nil || (r.Kind != elfx.Executable && r.Kind != elfx.PIEExecutable) {
		return false
	}
	ai := archOf(glibcArch(r.Arch))
	if ai.err != nil || !ai.base(r.Needed) {
		return false
	}
	// Only an unversioned reference can be what no glibc library has.
	has, err := f.HasUnversionedRefs()
	return err != nil || has
}

// check returns what the loader of lc's release refuses in f, whose
// symbols are syms (nil when needsSymbols says they are not needed). The
// symbols of the release are read only when a reference may need them.
func (lc loaderCheck) check(f *elfx.File, r *FileReport, syms []elfx.Symbol, limit string) []Violation {
	if r.Libc == Musl {
		return nil
	}
	ai := archOf(glibcArch(r.Arch))
	if ai.err != nil {
		return nil // an architecture the database does not know
	}
	var out []Violation
	if lc.target != "--max" && lc.target != "" {
		if v := lc.interpViolation(f, r, ai); v != nil {
			out = append(out, *v)
		}
	}
	if len(syms) == 0 {
		return out
	}
	release := func() *releaseIndex { return indexRelease(glibcArch(r.Arch), lc.release) }
	if symver.Compare(lc.release, "2.34") < 0 {
		if ri := release(); ri.err == nil {
			out = append(out, lc.merged(r, syms, ri, limit)...)
		}
	}
	return append(out, lc.unbound(f, r, syms, ai, release)...)
}

// merged: references bound to libc.so.6 that the release's libc.so.6
// does not define, and a library the file does not need does.
func (lc loaderCheck) merged(r *FileReport, syms []elfx.Symbol, ri *releaseIndex, limit string) []Violation {
	byLib := map[string][]Ref{}
	var libs []string
	for _, s := range syms {
		if !s.Undefined() || s.Bind == elf.STB_WEAK || s.Name == "" {
			continue
		}
		lib, moved := ri.movedTo[s.Name]
		if !moved || slices.Contains(r.Needed, lib) {
			continue
		}
		switch {
		case s.Version == "":
		case s.Library != "libc.so.6":
			continue // bound to the library that has it
		default:
			// A version above the limit is the floor's violation already;
			// one libc.so.6 has for this name binds.
			if _, n, ok := symver.Split(s.Version); !ok || symver.Compare(n, limit) > 0 || ri.libc[s.Name][s.Version] {
				continue
			}
		}
		if byLib[lib] == nil {
			libs = append(libs, lib)
		}
		byLib[lib] = append(byLib[lib], refOf(s))
	}
	slices.Sort(libs)
	var out []Violation
	for _, lib := range libs {
		refs := byLib[lib]
		slices.SortFunc(refs, compareRefs)
		refs = slices.CompactFunc(refs, func(a, b Ref) bool { return a.String() == b.String() })
		out = append(out, Violation{Path: r.Path, Rule: RuleUndefined, Target: lc.target, Library: lib,
			Required: ri.since[refs[0].Name], Allowed: lc.release, Symbols: refs})
	}
	return out
}

// unbound: an unversioned reference that neither the release's glibc
// nor any library the program needs could define. Linked with -z now, the
// program binds it at start and dies before main (go-nvml's functions,
// meant to come from a library dlopen()ed later): a violation. Bound
// lazily, at the first call, a library the program loads later may define
// it: a warning naming them (RuleLazyUndefined). Only a program whose
// needs are all the target's base system (glibc and the GCC runtimes,
// whose symbols are all versioned) can be judged; a library's references
// are its host's to provide. A lazy program's data references to such a
// symbol (bound at start too) are bind's to find.
func (lc loaderCheck) unbound(f *elfx.File, r *FileReport, syms []elfx.Symbol, ai *archInfo, release func() *releaseIndex) []Violation {
	if f.Dynamic == nil || (r.Kind != elfx.Executable && r.Kind != elfx.PIEExecutable) || !ai.base(r.Needed) {
		return nil
	}
	cand := map[uint32]bool{}
	var ri *releaseIndex
	for i, s := range syms {
		if i == 0 || !s.Undefined() || s.Bind == elf.STB_WEAK || s.Name == "" || s.Version != "" {
			continue
		}
		if ri == nil {
			if ri = release(); ri.err != nil {
				return nil
			}
		}
		if _, known := ri.ix.Lookup(s.Name); known {
			continue // glibc's: the merge check and the floors speak for it
		}
		cand[uint32(i)] = true
	}
	if len(cand) == 0 {
		return nil
	}
	relocs, err := f.SymbolRelocs()
	if err != nil {
		// Which of them the loader binds cannot be known: the file is
		// not checked, and a check that did not happen never passes.
		r.Error = &input.FileError{Path: r.Path, Err: fmt.Errorf("reading relocations: %w", err)}
		return nil
	}
	now := f.Dynamic.BindNow
	var eager, lazy []Ref
	seen := map[uint32]bool{}
	for _, rl := range relocs {
		if !cand[rl.Sym] || seen[rl.Sym] {
			continue
		}
		switch {
		case now:
			eager = append(eager, refOf(syms[rl.Sym]))
		case rl.PLT:
			lazy = append(lazy, refOf(syms[rl.Sym]))
		default:
			continue // a data reference of a lazy program: bind's
		}
		seen[rl.Sym] = true
	}
	var out []Violation
	if len(eager) > 0 {
		slices.SortFunc(eager, compareRefs)
		out = append(out, Violation{Path: r.Path, Rule: RuleBindNow, Target: lc.target, Allowed: lc.release, Symbols: eager})
	}
	if len(lazy) > 0 {
		slices.SortFunc(lazy, compareRefs)
		out = append(out, Violation{Path: r.Path, Rule: RuleLazyUndefined, Target: lc.target, Allowed: lc.release, Symbols: lazy})
	}
	return out
}

// gccRuntime are the GCC runtime libraries every target's base system has.
var gccRuntime = map[string]bool{"libstdc++.so.6": true, "libgcc_s.so.1": true}

// targetWords names the target of a loader's rule: its name, or the
// glibc release a --max names.
func (v Violation) targetWords() string {
	if v.Target == "" || v.Target == "--max" {
		return "glibc " + v.Allowed
	}
	return v.Target
}

// loaderCause is Cause for the loader's rules, in the loader's words: the
// first symbol, as the loader names the first it meets (the report lists
// them all, and causes group files).
func (v Violation) loaderCause() string {
	target := v.targetWords()
	first := ""
	if len(v.Symbols) > 0 {
		first = v.Symbols[0].Name
	}
	switch v.Rule {
	case RuleInterpreter:
		return fmt.Sprintf("interpreter %s: not on %s", v.Required, target)
	case RuleBindNow:
		return fmt.Sprintf("undefined symbol: %s: linked with -z now, bound at start, and no library of %s's base system defines it (lazily bound, a library loaded later could)", first, target)
	}
	where := "in " + v.Library + " on " + target
	if v.Required != "" {
		where = "in " + v.Library + " before glibc " + v.Required
	}
	s := fmt.Sprintf("undefined symbol: %s (%s", first, where)
	if flag := glibc.LinkFlag(v.Library); flag != "" {
		s += ": add " + flag
	}
	s += ")"
	if v.Required != "" {
		s += " on " + target
	}
	return s
}
