package floor

import (
	"debug/elf"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/input"
	"github.com/abifloor/abifloor/symver"
	"github.com/abifloor/abifloor/targets"
)

// Rules of a Violation besides a namespace limit (Rule ""). They are part
// of the JSON contract (docs/json.md) and the SARIF rule ids.
const (
	RuleSymbolVersions = "symbol_versions" // a version outside a policy's set
	RuleLibWhitelist   = "lib_whitelist"   // a needed library a policy does not allow and the tree does not ship
	RuleBlacklist      = "blacklist"       // a symbol a policy forbids from a library
	RuleLibc           = "libc"            // linked against a libc none of the targets has
	RuleArch           = "arch"            // a policy with no rules for the file's architecture
)

// Libc values of FileReport.Libc.
const (
	Glibc = "glibc"
	Musl  = "musl"
)

// LibcOf tells which C library f is linked against: musl when its
// interpreter is ld-musl-* or it needs musl's libc.so, glibc when it needs
// libc.so.6 or has a glibc interpreter, "" otherwise (static, or a library
// that needs no libc).
func LibcOf(f *elfx.File) string {
	interp := path.Base(f.Interp)
	if strings.HasPrefix(interp, "ld-musl-") {
		return Musl
	}
	if f.Dynamic != nil {
		for _, n := range f.Dynamic.Needed {
			switch {
			case n == "libc.so" || strings.HasPrefix(n, "libc.musl-"):
				return Musl
			case n == "libc.so.6":
				return Glibc
			}
		}
	}
	if strings.HasPrefix(interp, "ld-linux") || strings.HasPrefix(interp, "ld64.so") || strings.HasPrefix(interp, "ld.so") {
		return Glibc
	}
	return ""
}

// Cause says in one line what is wrong, without the path: the text of
// check's reports and the key by which they group violations.
func (v Violation) Cause() string {
	switch v.Rule {
	case RuleLibWhitelist:
		if len(v.Shipped) > 0 {
			return fmt.Sprintf("needs %s, which %s does not allow (lib_whitelist); the tree ships it (%s) but on no RPATH, RUNPATH or $ORIGIN path of this file, so the loader does not find it", v.Library, v.Target, v.Shipped[0])
		}
		return fmt.Sprintf("needs %s, which %s does not allow (lib_whitelist) and the tree does not ship", v.Library, v.Target)
	case RuleBlacklist:
		return fmt.Sprintf("uses symbols of %s that %s forbids (blacklist)", v.Library, v.Target)
	case RuleLibc:
		return fmt.Sprintf("linked against %s; %s: %s", v.Required, v.Allowed, v.Target)
	case RuleArch:
		return fmt.Sprintf("%s has no rules for %s", v.Target, v.Required)
	case RuleUndefined, RuleInterpreter, RuleBindNow:
		return v.loaderCause()
	case RuleNotInBase, RuleLazyUndefined:
		return v.baseCause()
	case RuleClaim:
		if v.Namespace == "" {
			return v.Target // an npm package's cpu or libc (claims.go)
		}
	}
	if !symver.Valid(v.Required) {
		return fmt.Sprintf("%s_%s is not allowed by %s", v.Namespace, v.Required, v.Target)
	}
	s := fmt.Sprintf("%s %s > %s", v.Namespace, v.Required, v.Allowed)
	if v.Allowed == "" {
		s = fmt.Sprintf("%s %s: %s allows no %s version", v.Namespace, v.Required, v.Target, v.Namespace)
	} else if v.Target != "" {
		s += " (" + v.Target + ")"
	}
	return s
}

// applicable returns the targets a file linked against libc is held to,
// and a violation when targets for a libc were named but none for its own:
// a musl file is never checked against glibc targets, nor the reverse.
func applicable(ts []targets.Target, path, libc string) ([]targets.Target, *Violation) {
	if libc == "" {
		return ts, nil
	}
	var out []targets.Target
	var other []string
	otherLibc := ""
	for _, t := range ts {
		switch t.Libc {
		case "", libc:
			out = append(out, t)
		default:
			other = append(other, t.Name)
			otherLibc = t.Libc
		}
	}
	for _, t := range out {
		if t.Libc == libc {
			return out, nil
		}
	}
	if len(other) == 0 {
		return out, nil
	}
	return out, &Violation{Path: path, Rule: RuleLibc, Required: libc, Allowed: "the targets are " + otherLibc,
		Target: strings.Join(other, ", "), Symbols: []Ref{}}
}

// checkTargets holds the file f (reported in r) to the policies among ts,
// and to the libc of every target. Violations of lib_whitelist are
// reported here for every needed library outside it; Scan drops those the
// tree ships.
//
// With each set (fit), every other target's limits are checked too, one
// target at a time, so each violation names the target it breaks.
func checkTargets(f *elfx.File, r *FileReport, ts []targets.Target, each bool) []Violation {
	if len(ts) == 0 || r.Floors == nil {
		return nil
	}
	ts, lv := applicable(ts, r.Path, r.Libc)
	var viol []Violation
	if lv != nil {
		viol = append(viol, *lv)
	}
	var idx *symIndex
	var raw []elfx.Symbol
	read := false
	rawSymbols := func() []elfx.Symbol {
		if !read {
			read = true
			var err error
			raw, err = f.Symbols()
			if err != nil && r.Error == nil {
				r.Error = &input.FileError{Path: r.Path, Err: fmt.Errorf("reading symbols: %w", err)}
			}
		}
		return raw
	}
	symbols := func() *symIndex {
		if idx == nil {
			idx = indexSymbols(rawSymbols())
		}
		return idx
	}
	// The loader's checks of each target's glibc release: what fit and
	// a policy hold a file to beside the version numbers (a distro
	// target of check is folded into the limits, and Analyze checks it).
	// From glibc 2.34 on, whether the symbols are needed does not depend
	// on the release: asked once, not once per target.
	asked, later := false, false
	loader := func(t targets.Target, release string) []Violation {
		if r.Libc == Musl || !symver.Valid(release) {
			return nil
		}
		lc := loaderCheck{release: release, target: t.Name}
		need := symver.Compare(release, "2.34") < 0
		if !need {
			if !asked {
				asked, later = true, lc.needsSymbols(f, r)
			}
			need = later
		}
		var syms []elfx.Symbol
		if need {
			syms = rawSymbols()
		}
		return lc.check(f, r, syms, release)
	}
	for _, t := range ts {
		if !t.IsPolicy() {
			if each {
				lv := limitViolations(t, r, symbols)
				viol = append(viol, lv...)
				// A release the file's versions already rule out needs
				// no loader to say so again (most of fit's releases).
				if t.Kind == targets.Distro && len(lv) == 0 {
					viol = append(viol, loader(t, t.Limits["GLIBC"])...)
				}
			}
			continue
		}
		if !t.Covers(r.Arch) {
			viol = append(viol, Violation{Path: r.Path, Rule: RuleArch, Target: t.Name, Required: r.Arch, Symbols: []Ref{}})
			continue
		}
		vv := versionViolations(t, r, symbols)
		viol = append(viol, vv...)
		viol = append(viol, libraryViolations(t, r, symbols)...)
		if t.Kind == targets.Manylinux && (!each || len(vv) == 0) {
			viol = append(viol, loader(t, t.LimitsFor(r.Arch)["GLIBC"])...)
		}
	}
	return viol
}

// symIndex is a file's references, sorted as their strings (name@VER),
// indexed once for every target a file is checked against.
type symIndex struct {
	byVersion map[string][]Ref // version name → references to it
	byLib     map[string][]Ref // library → versioned references bound to it
	byName    map[string][]Ref // name → undefined references of that name
}

func indexSymbols(syms []elfx.Symbol) *symIndex {
	x := &symIndex{byVersion: map[string][]Ref{}, byLib: map[string][]Ref{}, byName: map[string][]Ref{}}
	for _, s := range syms {
		if !s.Undefined() {
			continue
		}
		str := refOf(s)
		// A weak reference resolves to 0 where nothing defines it
		// (__cxa_thread_atexit_impl before glibc 2.18): auditwheel
		// skips weak references in the blacklist check, and so do we.
		// A version it names still counts (symbol_versions).
		if s.Bind != elf.STB_WEAK {
			x.byName[s.Name] = append(x.byName[s.Name], str)
		}
		if s.Library != "" && s.Version != "" {
			x.byVersion[s.Version] = append(x.byVersion[s.Version], str)
			x.byLib[s.Library] = append(x.byLib[s.Library], str)
		}
	}
	for _, m := range []map[string][]Ref{x.byVersion, x.byLib} {
		for k, v := range m {
			slices.SortFunc(v, compareRefs)
			m[k] = slices.CompactFunc(v, func(a, b Ref) bool { return a.String() == b.String() })
		}
	}
	return x
}

// versionViolations: every required version of a namespace the policy
// limits must be in its set for the file's architecture, as auditwheel
// checks; a floor implied without a version name (DT_RELR) must be within
// the set's highest.
func versionViolations(t targets.Target, r *FileReport, symbols func() *symIndex) []Violation {
	bad := map[string][]string{} // namespace → disallowed version names
	for _, n := range r.Needs {
		for _, v := range n.Versions {
			if ok, limited := t.Allowed(r.Arch, v); limited && !ok && !slices.Contains(bad[nsOf(v)], v) {
				bad[nsOf(v)] = append(bad[nsOf(v)], v)
			}
		}
	}
	max := t.LimitsFor(r.Arch)
	for ns, floor := range r.Floors {
		lim, ok := max[ns]
		if _, limited := t.SymbolVersions[targets.PolicyArch(r.Arch)][ns]; limited && len(bad[ns]) == 0 && (!ok || symver.Compare(floor, lim) > 0) {
			bad[ns] = []string{} // only an implied floor: named by the notes
		}
	}
	var out []Violation
	for ns, vers := range bad {
		v := Violation{Path: r.Path, Rule: RuleSymbolVersions, Target: t.Name, Namespace: ns, Allowed: max[ns]}
		// Required is the highest numeric version not allowed, or the
		// first non-numeric one (GLIBC_PRIVATE).
		for _, name := range vers {
			_, rest, _ := strings.Cut(name, "_")
			switch {
			case v.Required == "":
				v.Required = rest
			case symver.Valid(rest) && (!symver.Valid(v.Required) || symver.Compare(rest, v.Required) > 0):
				v.Required = rest
			}
		}
		if v.Required == "" {
			v.Required = r.Floors[ns]
			for _, n := range r.Notes {
				if strings.Contains(n, " raises "+ns+" ") || strings.HasPrefix(n, "DT_RELR") {
					v.Symbols = append(v.Symbols, Ref{Name: strings.SplitN(n, " ", 2)[0]})
				}
			}
		}
		// Highest version first, then by name, as for a limit.
		sortVersions(vers)
		for i := len(vers) - 1; i >= 0; i-- {
			v.Symbols = append(v.Symbols, symbols().byVersion[vers[i]]...)
		}
		if v.Symbols == nil {
			v.Symbols = []Ref{}
		}
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Namespace < out[j].Namespace })
	return out
}

// limitViolations: the floors of r above t's limits, as check reports
// them for a --max.
func limitViolations(t targets.Target, r *FileReport, symbols func() *symIndex) []Violation {
	var out []Violation
	for ns, ver := range r.Floors {
		lim, ok := t.Limits[ns]
		if !ok || symver.Compare(ver, lim) <= 0 {
			continue
		}
		var above []string
		for name := range symbols().byVersion {
			if vns, vv, ok := symver.Split(name); ok && vns == ns && symver.Compare(vv, lim) > 0 {
				above = append(above, name)
			}
		}
		sortVersions(above)
		v := Violation{Path: r.Path, Namespace: ns, Required: ver, Allowed: lim, Target: t.Name, Symbols: []Ref{}}
		for i := len(above) - 1; i >= 0; i-- {
			v.Symbols = append(v.Symbols, symbols().byVersion[above[i]]...)
		}
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Namespace < out[j].Namespace })
	return out
}

func nsOf(version string) string {
	ns, _, _ := strings.Cut(version, "_")
	return ns
}

// libraryViolations: needed libraries outside lib_whitelist (the loader
// itself excepted) and symbols on the blacklist of a needed library.
func libraryViolations(t targets.Target, r *FileReport, symbols func() *symIndex) []Violation {
	var out []Violation
	for _, lib := range r.Needed {
		if slices.Contains(t.LibWhitelist, lib) || isLoader(lib) {
			continue
		}
		syms := append([]Ref{}, symbols().byLib[lib]...)
		out = append(out, Violation{Path: r.Path, Rule: RuleLibWhitelist, Target: t.Name, Library: lib, Symbols: syms})
	}
	for _, lib := range r.Needed {
		forbidden := t.Blacklist[lib]
		if len(forbidden) == 0 {
			continue
		}
		v := Violation{Path: r.Path, Rule: RuleBlacklist, Target: t.Name, Library: lib, Symbols: []Ref{}}
		for _, name := range forbidden {
			// An unversioned reference may bind to any needed library;
			// auditwheel counts it against each.
			for _, ref := range symbols().byName[name] {
				if ref.Version == "" || slices.ContainsFunc(symbols().byLib[lib], func(r Ref) bool { return r.String() == ref.String() }) {
					v.Symbols = append(v.Symbols, ref)
				}
			}
		}
		if len(v.Symbols) > 0 {
			slices.SortFunc(v.Symbols, compareRefs)
			out = append(out, v)
		}
	}
	return out
}

// isLoader reports whether lib is a dynamic loader (glibc's libc.so.6
// itself needs one) or musl's libc under Alpine's soname
// (libc.musl-x86_64.so.1, the loader itself): never a wheel's to ship.
func isLoader(lib string) bool {
	return strings.HasPrefix(lib, "ld-linux") || strings.HasPrefix(lib, "ld64.so") || strings.HasPrefix(lib, "ld-musl-") ||
		strings.HasPrefix(lib, "libc.musl-") || lib == "ld.so.1"
}

// dropShipped removes lib_whitelist violations for libraries the scanned
// tree itself ships (by soname or file name) where the loader finds them
// (shippedIndex.find). They are bundled, as auditwheel repair would
// bundle them. A library that lies in the tree but on no such path does
// not load (ldd says "not found"), so it is no excuse.
func dropShipped(sh *shippedIndex, viol []Violation) []Violation {
	out := viol[:0]
	for _, v := range viol {
		if v.Rule == RuleLibWhitelist {
			if sh.find(v.Path, v.Library) != nil {
				continue
			}
			v.Shipped = sh.where[v.Library]
		}
		out = append(out, v)
	}
	return out
}
