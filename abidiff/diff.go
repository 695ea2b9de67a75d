// Package abidiff compares two ABIs (package abi) and classifies each
// difference: additions are compatible, anything an existing binary could
// notice (a removed symbol, a moved member, a changed size or enum value)
// is incompatible. Symbols of private version nodes (GLIBC_PRIVATE) are
// reported apart and never make a report incompatible, because no
// program outside the library may bind to them.
//
// Compare is a pure function of its two inputs, so a caller can diff
// hundreds of ABIs (version range tables) without touching files. Changes
// are written as short paths that people read and tools can match:
// "member hObjectNew: offset 8 -> 12".
package abidiff

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/symver"
)

// Report is the result of Compare. The JSON field names are a contract
// (DESIGN.md: diff --format json).
type Report struct {
	Symbols SymbolChanges `json:"symbols"`
	// Private holds changes to symbols of private version nodes.
	Private SymbolChanges `json:"private"`
	Types   []TypeChange  `json:"types"`
	// PrivateTypes are changed types reachable only from symbols of
	// private version nodes; like those symbols, they never make the
	// report incompatible.
	PrivateTypes []TypeChange `json:"private_types,omitempty"`
	Constants    []Change     `json:"constants,omitempty"`
	// Compatible is false when any public change is incompatible.
	Compatible bool `json:"compatible"`
	// Notes say what could not be compared (no debug info on one side).
	Notes []string `json:"notes,omitempty"`
}

// SymbolChanges lists symbols written name@@VERSION, name@VERSION or name.
type SymbolChanges struct {
	Removed []string `json:"removed"`
	Added   []string `json:"added"`
	// Changed entries read "foo@@GLIBC_2.2.5 -> foo@@GLIBC_2.34" (the
	// default version moved) or "foo@@V: size 8 -> 16".
	Changed []string `json:"changed"`
	// Incompatible lists the Changed entries that break old binaries.
	Incompatible []string `json:"incompatible_changes,omitempty"`
}

// TypeChange is the set of changes to one named type.
type TypeChange struct {
	Name         string   `json:"name"`
	Changes      []string `json:"changes"`
	Incompatible bool     `json:"incompatible"`
}

// Change is one difference and its severity.
type Change struct {
	What         string `json:"change"`
	Incompatible bool   `json:"incompatible"`
}

// Changed reports whether the report holds any difference at all.
func (r *Report) Changed() bool {
	return r.Symbols.any() || r.Private.any() || len(r.Types)+len(r.PrivateTypes)+len(r.Constants) > 0
}

func (s *SymbolChanges) any() bool {
	return len(s.Removed)+len(s.Added)+len(s.Changed) > 0
}

// Private reports whether a version node is private to the library's own
// implementation (GLIBC_PRIVATE).
func Private(version string) bool {
	return symver.IsPrivate(version)
}

// Compare diffs old against new, leaving out what sup suppresses (sup may
// be nil).
func Compare(old, new *abi.ABI, sup *Suppressions) Report {
	r := Report{
		Symbols: SymbolChanges{Removed: []string{}, Added: []string{}, Changed: []string{}},
		Private: SymbolChanges{Removed: []string{}, Added: []string{}, Changed: []string{}},
		Types:   []TypeChange{},
	}
	incompatible := false
	compareSymbols(&r, old, new, sup, &incompatible)
	if old.DebugInfo == abi.DebugNone || new.DebugInfo == abi.DebugNone {
		r.Notes = append(r.Notes, "no debug info on one side: types not compared")
	} else {
		pubOld, pubNew := publicTypes(old), publicTypes(new)
		for _, tc := range compareTypes(old, new, sup) {
			if pubOld != nil && !pubOld[tc.Name] && !pubNew[tc.Name] {
				r.PrivateTypes = append(r.PrivateTypes, tc)
				continue
			}
			r.Types = append(r.Types, tc)
			incompatible = incompatible || tc.Incompatible
		}
	}
	r.Constants = compareConstants(old, new)
	for _, c := range r.Constants {
		incompatible = incompatible || c.Incompatible
	}
	r.Compatible = !incompatible
	return r
}

func compareSymbols(r *Report, old, new *abi.ABI, sup *Suppressions, incompatible *bool) {
	oldBy := byID(old.Symbols)
	newBy := byID(new.Symbols)
	part := func(v string) *SymbolChanges {
		if Private(v) {
			return &r.Private
		}
		return &r.Symbols
	}
	for _, s := range old.Symbols {
		if sup.symbol(s) {
			continue
		}
		n, ok := newBy[s.ID()]
		if !ok {
			p := part(s.Version)
			p.Removed = append(p.Removed, s.String())
			*incompatible = *incompatible || p == &r.Symbols
			continue
		}
		for _, c := range symbolChanges(old, new, s, n) {
			p := part(s.Version)
			p.Changed = append(p.Changed, c.What)
			if c.Incompatible {
				p.Incompatible = append(p.Incompatible, c.What)
				*incompatible = *incompatible || p == &r.Symbols
			}
		}
	}
	for _, s := range new.Symbols {
		if sup.symbol(s) {
			continue
		}
		if _, ok := oldBy[s.ID()]; !ok {
			p := part(s.Version)
			p.Added = append(p.Added, s.String())
		}
	}
	// A default version that moved (foo@@GLIBC_2.2.5 -> foo@@GLIBC_2.34)
	// is news for new links, not a break for old binaries.
	oldDef, newDef := defaults(old.Symbols), defaults(new.Symbols)
	for _, name := range slices.Sorted(maps.Keys(oldDef)) {
		o := oldDef[name]
		n, ok := newDef[name]
		if !ok || o.Version == n.Version || sup.symbol(o) {
			continue
		}
		p := part(o.Version)
		p.Changed = append(p.Changed, o.String()+" -> "+n.String())
	}
	for _, p := range []*SymbolChanges{&r.Symbols, &r.Private} {
		sort.Strings(p.Removed)
		sort.Strings(p.Added)
		sort.Strings(p.Changed)
	}
}

// publicTypes is the set of type keys reachable from the symbols of
// public version nodes, or nil when the ABI has no symbol types at all
// (a header tree), where every type is public.
func publicTypes(a *abi.ABI) map[string]bool {
	seen := map[string]bool{}
	typed := false
	var visit func(key string)
	visit = func(key string) {
		if !seen[key] {
			seen[key] = true
			for _, r := range a.Types[key].Refs() {
				visit(r)
			}
		}
	}
	for _, s := range a.Symbols {
		typed = typed || s.Type != nil
		if !Private(s.Version) {
			for _, r := range s.Type.Refs() {
				visit(r)
			}
		}
	}
	if !typed {
		return nil
	}
	return seen
}

func byID(syms []abi.Symbol) map[string]abi.Symbol {
	m := make(map[string]abi.Symbol, len(syms))
	for _, s := range syms {
		m[s.ID()] = s
	}
	return m
}

func defaults(syms []abi.Symbol) map[string]abi.Symbol {
	m := map[string]abi.Symbol{}
	for _, s := range syms {
		if s.Default {
			m[s.Name] = s
		}
	}
	return m
}

func isFunc(kind string) bool { return kind == "func" || kind == "ifunc" }

// symbolChanges compares one symbol present in both ABIs.
func symbolChanges(oa, na *abi.ABI, o, n abi.Symbol) []Change {
	var out []Change
	id := o.String()
	if o.Kind != n.Kind {
		// func <-> ifunc is invisible to callers.
		out = append(out, Change{id + ": kind " + o.Kind + " -> " + n.Kind, !(isFunc(o.Kind) && isFunc(n.Kind))})
	}
	if !isFunc(o.Kind) && o.Size != n.Size {
		// A variable's size is copied into executables (copy
		// relocations): any change breaks them.
		out = append(out, Change{fmt.Sprintf("%s: size %d -> %d", id, o.Size, n.Size), true})
	}
	if o.Type != nil && n.Type != nil && o.Kind == n.Kind {
		os, ns := abi.Spell(o.Type), abi.Spell(n.Type)
		if os != ns {
			if sameUnderlying(oa, na, o.Type, n.Type) {
				out = append(out, Change{id + ": type " + os + " -> " + ns + " (typedef names only)", false})
			} else if sameLayout(oa, na, o.Type, n.Type) {
				out = append(out, Change{id + ": type " + os + " -> " + ns + " (names only, same layout)", false})
			} else {
				out = append(out, Change{id + ": type " + os + " -> " + ns, true})
			}
		}
	}
	return out
}

func compareConstants(old, new *abi.ABI) []Change {
	nv := map[string]uint64{}
	for _, c := range new.Constants {
		nv[c.Name] = c.Value
	}
	var out []Change
	seen := map[string]bool{}
	for _, c := range old.Constants {
		seen[c.Name] = true
		v, ok := nv[c.Name]
		switch {
		case !ok:
			out = append(out, Change{c.Name + ": removed", true})
		case v != c.Value:
			out = append(out, Change{fmt.Sprintf("%s: value %#x -> %#x", c.Name, c.Value, v), true})
		}
	}
	for _, c := range new.Constants {
		if !seen[c.Name] {
			out = append(out, Change{c.Name + ": added", false})
		}
	}
	return out
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
