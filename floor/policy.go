package floor

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/abifloor/abifloor/elfx"
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
			case n == "libc.so":
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
		return fmt.Sprintf("needs %s, which %s does not allow (lib_whitelist) and the tree does not ship", v.Library, v.Target)
	case RuleBlacklist:
		return fmt.Sprintf("uses symbols of %s that %s forbids (blacklist)", v.Library, v.Target)
	case RuleLibc:
		return fmt.Sprintf("linked against %s; %s: %s", v.Required, v.Allowed, v.Target)
	case RuleArch:
		return fmt.Sprintf("%s has no rules for %s", v.Target, v.Required)
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
		Target: strings.Join(other, ", "), Symbols: []string{}}
}

// checkTargets holds the file f (reported in r) to the policies among ts,
// and to the libc of every target. Violations of lib_whitelist are
// reported here for every needed library outside it; Scan drops those the
// tree ships.
func checkTargets(f *elfx.File, r *FileReport, ts []targets.Target) []Violation {
	if len(ts) == 0 || r.Floors == nil {
		return nil
	}
	ts, lv := applicable(ts, r.Path, r.Libc)
	var viol []Violation
	if lv != nil {
		viol = append(viol, *lv)
	}
	var syms []elfx.Symbol
	var symErr error
	read := false
	symbols := func() []elfx.Symbol {
		if !read {
			read = true
			syms, symErr = f.Symbols()
			if symErr != nil && r.Error == nil {
				r.Error = fmt.Errorf("%s: reading symbols: %w", r.Path, symErr)
			}
		}
		return syms
	}
	for _, t := range ts {
		if !t.IsPolicy() {
			continue
		}
		if !t.Covers(r.Arch) {
			viol = append(viol, Violation{Path: r.Path, Rule: RuleArch, Target: t.Name, Required: r.Arch, Symbols: []string{}})
			continue
		}
		viol = append(viol, versionViolations(t, r, symbols)...)
		viol = append(viol, libraryViolations(t, f, r, symbols)...)
	}
	return viol
}

// versionViolations: every required version of a namespace the policy
// limits must be in its set for the file's architecture, as auditwheel
// checks; a floor implied without a version name (DT_RELR) must be within
// the set's highest.
func versionViolations(t targets.Target, r *FileReport, symbols func() []elfx.Symbol) []Violation {
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
					v.Symbols = append(v.Symbols, strings.SplitN(n, " ", 2)[0])
				}
			}
		}
		for _, s := range symbols() {
			if s.Library != "" && slices.Contains(vers, s.Version) {
				v.Symbols = append(v.Symbols, s.String())
			}
		}
		v.Symbols = sortSymbols(v.Symbols)
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Namespace < out[j].Namespace })
	return out
}

func nsOf(version string) string {
	ns, _, _ := strings.Cut(version, "_")
	return ns
}

// sortSymbols orders names@VER by version, highest first, then by name,
// without duplicates; never nil.
func sortSymbols(syms []string) []string {
	key := func(s string) string {
		_, ver, _ := strings.Cut(strings.Replace(s, "@@", "@", 1), "@")
		_, v, _ := symver.Split(ver)
		return v
	}
	sort.SliceStable(syms, func(i, j int) bool {
		if c := symver.Compare(key(syms[i]), key(syms[j])); c != 0 {
			return c > 0
		}
		return syms[i] < syms[j]
	})
	syms = slices.Compact(syms)
	if syms == nil {
		syms = []string{}
	}
	return syms
}

// libraryViolations: needed libraries outside lib_whitelist (the loader
// itself excepted) and symbols on the blacklist of a needed library.
func libraryViolations(t targets.Target, f *elfx.File, r *FileReport, symbols func() []elfx.Symbol) []Violation {
	var out []Violation
	for _, lib := range r.Needed {
		if slices.Contains(t.LibWhitelist, lib) || isLoader(lib) {
			continue
		}
		v := Violation{Path: r.Path, Rule: RuleLibWhitelist, Target: t.Name, Library: lib, Symbols: []string{}}
		for _, s := range symbols() {
			if s.Library == lib && s.Undefined() {
				v.Symbols = append(v.Symbols, s.String())
			}
		}
		v.Symbols = sortSymbols(v.Symbols)
		out = append(out, v)
	}
	for _, lib := range r.Needed {
		forbidden := t.Blacklist[lib]
		if len(forbidden) == 0 {
			continue
		}
		v := Violation{Path: r.Path, Rule: RuleBlacklist, Target: t.Name, Library: lib, Symbols: []string{}}
		for _, s := range symbols() {
			// An unversioned reference may bind to any needed library;
			// auditwheel counts it against each.
			if s.Undefined() && (s.Library == lib || s.Library == "") && slices.Contains(forbidden, s.Name) {
				v.Symbols = append(v.Symbols, s.String())
			}
		}
		if len(v.Symbols) > 0 {
			v.Symbols = sortSymbols(v.Symbols)
			out = append(out, v)
		}
	}
	return out
}

// isLoader reports whether lib is a dynamic loader (glibc's libc.so.6
// itself needs one): never a wheel's to ship.
func isLoader(lib string) bool {
	return strings.HasPrefix(lib, "ld-linux") || strings.HasPrefix(lib, "ld64.so") || strings.HasPrefix(lib, "ld-musl-") || lib == "ld.so.1"
}

// dropShipped removes lib_whitelist violations for libraries the scanned
// tree itself ships (by soname or file name): they are bundled, as
// auditwheel repair would bundle them.
func dropShipped(files []FileReport, viol []Violation) []Violation {
	shipped := map[string]bool{}
	for _, f := range files {
		if f.Error == nil {
			shipped[path.Base(f.Path)] = true
			if f.Soname != "" {
				shipped[f.Soname] = true
			}
		}
	}
	out := viol[:0]
	for _, v := range viol {
		if v.Rule == RuleLibWhitelist && shipped[v.Library] {
			continue
		}
		out = append(out, v)
	}
	return out
}
