// Package targets is the embedded table of named places a binary must
// load: distro releases, manylinux and musllinux policies and compiler
// runtimes, each with the highest version of every symbol-version namespace
// it provides.
//
// The manylinux and musllinux rows (policies.json) are generated from
// auditwheel's policy files in auditwheel/ by go generate (see gen/): per
// architecture, the allowed symbol versions of each namespace as sets, the
// libraries a file may need without shipping them (LibWhitelist) and the
// symbols it must not use (Blacklist). The distro and compiler rows
// (targets.json) are kept by hand, each with its source and the package
// versions it was read from. The table is read once; every function
// returns copies, so a caller may change what it gets.
package targets

//go:generate go run ./gen

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/abifloor/abifloor/internal/archname"
	"github.com/abifloor/abifloor/symver"
)

// Kinds of target.
const (
	Distro    = "distro"
	Manylinux = "manylinux"
	Musllinux = "musllinux"
	Compiler  = "compiler"
)

// Target is a named place a binary must load: a distro release, a
// manylinux or musllinux policy or a compiler's runtime.
type Target struct {
	Name    string   `json:"name"`
	Aliases []string `json:"aliases,omitempty"`
	// Family groups the releases of one distro (debian, rhel), oldest
	// first in table order.
	Family string `json:"family,omitempty"`
	Kind   string `json:"kind"`
	// Libc is "glibc" or "musl"; compiler rows have none.
	Libc string `json:"libc,omitempty"`
	// Priority orders policies as auditwheel does: higher is older and
	// more widely loadable.
	Priority int `json:"priority,omitempty"`
	// Limits maps a namespace to the highest version the target provides.
	// For a policy these are x86_64's; LimitsFor gives another
	// architecture's, and Allowed the exact sets a check uses.
	Limits map[string]string `json:"limits"`
	// SymbolVersions maps a policy's architecture (auditwheel's names:
	// x86_64, i686, aarch64, armv7l, ...) to namespace to the version
	// names allowed, without the "NS_" prefix (GLIBCXX: "3.4.24",
	// "LDBL_3.4"). A namespace it lists allows nothing else; one it does
	// not list is not limited.
	SymbolVersions map[string]map[string][]string `json:"symbol_versions,omitempty"`
	// LibWhitelist are the libraries a file may need without shipping
	// them (policies only).
	LibWhitelist []string `json:"lib_whitelist,omitempty"`
	// Blacklist maps a whitelisted library to symbols that must not be
	// used from it.
	Blacklist map[string][]string `json:"blacklist,omitempty"`
	// Packages names the package versions a distro row was read from.
	Packages map[string]string `json:"packages,omitempty"`
	Source   string            `json:"source,omitempty"`

	// archMax caches LimitsFor of the table's sets (shared by copies,
	// never written after load).
	archMax map[string]map[string]string
}

// PoliciesFrom says which auditwheel the manylinux/musllinux rows were
// generated from (auditwheel/README.md), for abifloor --version.
const PoliciesFrom = "auditwheel 86154d1 (August 2026)"

//go:embed targets.json
var targetsJSON []byte

//go:embed policies.json
var policiesJSON []byte

// table is the parsed table, read on first use: every abifloor process
// imports this package (cc among them, on every compiler call), and only
// some ask for a target.
var table = sync.OnceValue(func() []Target {
	var hand, gen struct{ Targets []Target }
	if err := json.Unmarshal(targetsJSON, &hand); err != nil {
		panic("targets: embedded targets.json: " + err.Error())
	}
	if err := json.Unmarshal(policiesJSON, &gen); err != nil {
		panic("targets: embedded policies.json: " + err.Error())
	}
	// Distros first, then the policies, then compilers, as before.
	var out []Target
	for _, t := range hand.Targets {
		if t.Kind != Compiler {
			out = append(out, t)
		}
	}
	for _, t := range gen.Targets {
		t.archMax = map[string]map[string]string{}
		for arch, sets := range t.SymbolVersions {
			t.archMax[arch] = maxima(sets)
		}
		out = append(out, t)
	}
	for _, t := range hand.Targets {
		if t.Kind == Compiler {
			out = append(out, t)
		}
	}
	return out
})

// IsPolicy reports whether t is a manylinux or musllinux policy, checked
// per architecture with allowed sets, a library whitelist and a blacklist.
func (t Target) IsPolicy() bool { return t.Kind == Manylinux || t.Kind == Musllinux }

// PolicyArch maps an architecture name (elfx's, or a user's: amd64,
// arm64, x86-64, i386, i686, armhf, ppc64el) to auditwheel's (x86_64,
// aarch64, i686, armv7l). The one vocabulary is internal/archname's
// (elfx.ParseArch is it: every alias read to elfx.Arch's name), a table
// that keeps this package off the ELF reader; auditwheel's names differ
// from it only for 32-bit x86 and arm, mapped here.
func PolicyArch(arch string) string {
	a, ok := archname.Parse(arch)
	if !ok {
		return strings.ToLower(arch)
	}
	switch a {
	case "i386":
		return "i686"
	case "arm":
		return "armv7l"
	}
	return a
}

// Covers reports whether t applies to files of arch: a policy only to the
// architectures it lists, other targets to every architecture.
func (t Target) Covers(arch string) bool {
	if !t.IsPolicy() {
		return true
	}
	_, ok := t.SymbolVersions[PolicyArch(arch)]
	return ok
}

// LimitsFor returns the highest version of each namespace on arch: for a
// policy, of its sets for that architecture (nil when it does not cover
// arch); for other targets, Limits.
func (t Target) LimitsFor(arch string) map[string]string {
	if !t.IsPolicy() {
		return maps.Clone(t.Limits)
	}
	if m, ok := t.archMax[PolicyArch(arch)]; ok {
		return maps.Clone(m)
	}
	sets, ok := t.SymbolVersions[PolicyArch(arch)]
	if !ok {
		return nil
	}
	return maxima(sets)
}

func maxima(sets map[string][]string) map[string]string {
	out := map[string]string{}
	for ns, vs := range sets {
		for _, v := range vs {
			if symver.Valid(v) {
				if cur, ok := out[ns]; !ok || symver.Compare(v, cur) > 0 {
					out[ns] = v
				}
			}
		}
	}
	return out
}

// Allowed reports whether the policy t allows a file of arch to require
// the version name ver (GLIBCXX_3.4.24). It answers for the namespace
// before the first '_', as auditwheel does: a namespace the policy does
// not list is not limited. limited says whether it is.
func (t Target) Allowed(arch, ver string) (ok, limited bool) {
	ns, rest, _ := strings.Cut(ver, "_")
	set, limited := t.SymbolVersions[PolicyArch(arch)][ns]
	if !limited {
		return true, false
	}
	return slices.Contains(set, rest), true
}

// All returns a copy of the embedded target table, in table order.
func All() []Target {
	tab := table()
	out := make([]Target, len(tab))
	for i, t := range tab {
		out[i] = t.clone()
	}
	return out
}

func (t Target) clone() Target {
	t.Aliases = slices.Clone(t.Aliases)
	t.Limits = maps.Clone(t.Limits)
	t.LibWhitelist = slices.Clone(t.LibWhitelist)
	t.Packages = maps.Clone(t.Packages)
	if t.SymbolVersions != nil {
		sv := make(map[string]map[string][]string, len(t.SymbolVersions))
		for arch, nss := range t.SymbolVersions {
			m := make(map[string][]string, len(nss))
			for ns, vs := range nss {
				m[ns] = slices.Clone(vs)
			}
			sv[arch] = m
		}
		t.SymbolVersions = sv
	}
	if t.Blacklist != nil {
		bl := make(map[string][]string, len(t.Blacklist))
		for lib, syms := range t.Blacklist {
			bl[lib] = slices.Clone(syms)
		}
		t.Blacklist = bl
	}
	return t
}

// Lookup finds a target by name or alias (case-insensitive) and returns a
// copy. An unknown name yields an *UnknownError listing the closest names.
//
// A policy may also be named by a wheel's platform tag, with its
// architecture (manylinux2014_aarch64, musllinux_1_2_x86_64): the target
// then has the rules of that architecture only, so a file of another one
// breaks it, as it would break the tag.
func Lookup(name string) (Target, error) {
	key := strings.ToLower(name)
	if t, ok := find(key); ok {
		return t.clone(), nil
	}
	for arch := range allArches() {
		base, ok := strings.CutSuffix(key, "_"+arch)
		if !ok {
			continue
		}
		if t, ok := find(base); ok && t.IsPolicy() {
			if _, covered := t.SymbolVersions[arch]; covered {
				t = t.clone()
				t.Name += "_" + arch
				t.Aliases = nil
				t.SymbolVersions = map[string]map[string][]string{arch: t.SymbolVersions[arch]}
				t.Limits = t.LimitsFor(arch)
				t.archMax = nil
				return t, nil
			}
		}
	}
	return Target{}, &UnknownError{Name: name, Closest: closest(key, 3)}
}

func find(key string) (Target, bool) {
	for _, t := range table() {
		if t.Name == key || slices.Contains(t.Aliases, key) {
			return t, true
		}
	}
	return Target{}, false
}

// allArches are the architectures some policy has rules for.
var allArches = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, t := range table() {
		for arch := range t.SymbolVersions {
			m[arch] = true
		}
	}
	return m
})

// UnknownError is the error of Lookup for a name not in the table.
type UnknownError struct {
	Name    string
	Closest []string // the nearest names, best first
}

func (e *UnknownError) Error() string {
	return fmt.Sprintf("unknown target %q; did you mean %s?", e.Name, strings.Join(e.Closest, ", "))
}

// closest returns up to n target names nearest to s by edit distance,
// preferring names that share its prefix.
func closest(s string, n int) []string {
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	for _, t := range table() {
		best := editDistance(s, t.Name)
		for _, a := range t.Aliases {
			best = min(best, editDistance(s, a))
		}
		if strings.HasPrefix(t.Name, s) || strings.HasPrefix(s, strings.SplitN(t.Name, "-", 2)[0]) {
			best -= 2
		}
		cs = append(cs, cand{t.Name, best})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	out := make([]string, 0, n)
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, c.name)
	}
	return out
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
