package floor

import (
	"fmt"
	"sort"
	"strings"

	"github.com/abifloor/abifloor/symver"
)

// Blocker is one cause that keeps files from a target, as fit reports it:
// the cause in short (GLIBCXX_3.4.25, "GLIBC 2.34 > 2.31", "libfoo.so.1
// (not in lib_whitelist)"), the symbols behind it, highest version first,
// and the files it blocks.
type Blocker struct {
	Cause   string
	Symbols []Ref
	Files   int
}

// Blockers groups violations by cause (a policy's version name, a
// namespace above one limit, a library), the causes that block most files
// first.
func Blockers(vs []Violation) []Blocker {
	type group struct {
		v     Violation // the first, Required raised to the group's highest
		syms  []Ref
		seen  map[string]bool // the references' strings
		files map[string]bool
	}
	var gs []*group
	byKey := map[string]*group{}
	for _, v := range vs {
		k := blockKey(v)
		g := byKey[k]
		if g == nil {
			g = &group{v: v, seen: map[string]bool{}, files: map[string]bool{}}
			byKey[k] = g
			gs = append(gs, g)
		}
		if v.Rule == "" && symver.Compare(v.Required, g.v.Required) > 0 {
			g.v.Required = v.Required
		}
		g.files[v.Path] = true
		for _, s := range v.Symbols {
			if !g.seen[s.String()] {
				g.seen[s.String()] = true
				g.syms = append(g.syms, s)
			}
		}
	}
	sort.SliceStable(gs, func(i, j int) bool { return len(gs[i].files) > len(gs[j].files) })
	out := make([]Blocker, 0, len(gs))
	for _, g := range gs {
		sort.SliceStable(g.syms, func(i, j int) bool { return symver.Compare(refVersion(g.syms[i]), refVersion(g.syms[j])) > 0 })
		cause := blockText(g.v)
		if g.v.Rule == RuleSymbolVersions {
			cause = policyVersions(g.v, g.syms)
		}
		out = append(out, Blocker{Cause: cause, Symbols: g.syms, Files: len(g.files)})
	}
	return out
}

// refVersion is the numeric version of a reference ("" for none).
func refVersion(ref Ref) string {
	_, v, _ := symver.Split(ref.Version)
	return v
}

func blockKey(v Violation) string {
	switch v.Rule {
	case RuleSymbolVersions:
		// One group per namespace: a file that needs CXXABI_1.3.8 and
		// 1.3.9 is blocked by both, and its symbols list both.
		return v.Rule + " " + v.Namespace
	case "":
		return v.Namespace + " > " + v.Allowed
	}
	return v.Rule + " " + v.Library + " " + v.Required
}

func blockText(v Violation) string {
	switch v.Rule {
	case RuleSymbolVersions:
		return v.Namespace + "_" + v.Required
	case RuleLibWhitelist:
		return v.Library + " (not in lib_whitelist)"
	case RuleBlacklist:
		return "blacklisted symbols of " + v.Library
	case "":
		return fmt.Sprintf("%s %s > %s", v.Namespace, v.Required, v.Allowed)
	}
	return v.Cause()
}

// policyVersions names the versions a policy does not allow that the
// symbols use, oldest first ("CXXABI_1.3.8, CXXABI_1.3.9"), so that the
// cause names every version of the symbols listed after it.
func policyVersions(v Violation, syms []Ref) string {
	var vers []string
	seen := map[string]bool{}
	for _, s := range syms {
		if ns, _, ok := symver.Split(s.Version); ok && ns == v.Namespace && !seen[s.Version] {
			seen[s.Version] = true
			vers = append(vers, s.Version)
		}
	}
	if len(vers) == 0 {
		return blockText(v)
	}
	sort.Slice(vers, func(i, j int) bool {
		return symver.Compare(refVersion(Ref{Version: vers[i]}), refVersion(Ref{Version: vers[j]})) < 0
	})
	return strings.Join(vers, ", ")
}
