// Package abidiff compares two ABIs (package abi) and classifies each
// difference: additions are compatible, anything an existing binary could
// notice (a removed symbol, a moved member, a changed size or enum value)
// is incompatible. Symbols of private version nodes (GLIBC_PRIVATE) are
// reported apart and never make a report incompatible, because no
// program outside the library may bind to them.
//
// Compare is a pure function of its two inputs, so a caller can diff
// hundreds of ABIs (version range tables) without touching files. Each
// difference is a Change: data (a kind, the symbol or type and the member
// path, old and new values, compatible or not) that renders as a short
// line people read: "member hObjectNew: offset 8 -> 12".
package abidiff

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/symver"
)

// Report is the result of Compare. Its JSON form is a contract
// (docs/abi-json.md, "diff --format json").
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
	// File holds the changes to the file itself: its SONAME, its
	// architecture, the symbol table it was read from.
	File []Change `json:"file,omitempty"`
	// Compatible is false when any public change is incompatible: a
	// break abifloor proves (a removed symbol, a member that moved, a
	// size that changed under a caller). It is abifloor's verdict.
	Compatible bool `json:"compatible"`
	// AbidiffIncompatible is what libabigail calls an incompatible
	// change, which sets abidiff's exit bit 8: a public function or
	// variable removed, a vtable slot changed, the SONAME or the
	// architecture changed. Other changes, even proven breaks, are for
	// review (bit 4). Exit uses it.
	AbidiffIncompatible bool `json:"abidiff_incompatible"`
	// Notes say what could not be compared (no debug info on one side).
	Notes []string `json:"notes,omitempty"`
	// Filtered counts what the suppressions hid.
	Filtered Filtered `json:"filtered"`
	// demangled holds the C++ names of mangled symbols, by name, for
	// the text of impact paths.
	demangled map[string]string
	// Untyped are the symbols both sides export whose type is unknown on
	// one side or both (a function written in assembly is f(...)): there
	// is no type information to compare, which is not a change.
	Untyped []string `json:"untyped,omitempty"`
	// differs is set when nothing compared changed but the ABIs'
	// fingerprints differ: the text must not say "no ABI change".
	differs bool
}

type reportJSON Report

// constantJSON keeps the text form earlier readers used ("change",
// "incompatible") next to the structured fields.
type constantJSON struct {
	Change
	Text         string `json:"change"`
	Incompatible bool   `json:"incompatible"`
}

// MarshalJSON writes r; constants carry their text as "change".
func (r Report) MarshalJSON() ([]byte, error) {
	j := struct {
		reportJSON
		Constants []constantJSON `json:"constants,omitempty"`
	}{reportJSON: reportJSON(r)}
	for _, c := range r.Constants {
		j.Constants = append(j.Constants, constantJSON{Change: c, Text: c.String(), Incompatible: !c.Compatible})
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON wrote.
func (r *Report) UnmarshalJSON(b []byte) error {
	var j struct {
		reportJSON
		Constants []constantJSON `json:"constants,omitempty"`
	}
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*r = Report(j.reportJSON)
	r.Constants = nil
	for _, c := range j.Constants {
		r.Constants = append(r.Constants, c.Change)
	}
	return nil
}

// Changed reports whether the report holds any difference at all.
func (r *Report) Changed() bool {
	return r.Symbols.any() || r.Private.any() || len(r.Types)+len(r.PrivateTypes)+len(r.Constants)+len(r.File) > 0
}

// The bits of abidiff's exit status, which Exit returns.
const (
	ExitError        = 1 // an input could not be read, or the run was cut short
	ExitUsage        = 2 // with ExitError: the command line was wrong
	ExitChange       = 4 // the ABIs differ
	ExitIncompatible = 8 // with ExitChange: an incompatible change
)

// Exit is abidiff's exit status for r: 0 when nothing changed,
// ExitChange for any change, and ExitIncompatible too for what libabigail
// calls incompatible (AbidiffIncompatible). With strict, a break abifloor
// proves (Compatible false) sets ExitIncompatible as well.
func (r *Report) Exit(strict bool) int { return r.ExitWith(ExitRules{Strict: strict}) }

// ExitRules say which changes set which of abidiff's exit bits.
type ExitRules struct {
	// Strict sets ExitIncompatible for every break abifloor proves.
	Strict bool
	// Harmless counts the changes abidiff calls harmless (Harmless) as
	// changes, as abidiff --harmless does.
	Harmless bool
}

// ExitWith is Exit under rules.
func (r *Report) ExitWith(rules ExitRules) int {
	strict := rules.Strict
	code := 0
	if rules.Harmless && r.changedForHarmless() || r.netChanged() {
		code |= ExitChange
	}
	if r.AbidiffIncompatible || strict && !r.Compatible {
		code |= ExitChange | ExitIncompatible
	}
	return code
}

// changedForHarmless is Changed without the changes even abidiff
// --harmless does not count: a function's parameters or return that
// changed in typedef names only (int -> Int), which libabigail does not
// see as a change of the function at all.
func (r *Report) changedForHarmless() bool {
	if r.Private.any() || len(r.Types)+len(r.PrivateTypes)+len(r.Constants)+len(r.File) > 0 {
		return true
	}
	for _, c := range r.Symbols.Changes {
		if !signatureTypedefs(c) {
			return true
		}
	}
	return false
}

// signatureTypedefs reports whether c is a function's type that changed
// only in typedefs of base types (int -> Int).
func signatureTypedefs(c Change) bool {
	return c.Kind == SymbolType && c.Note == baseTypedefNote
}

// arrayLengthNote marks a variable declared as an array of unknown length
// (extern T v[];) that now has one, its symbol's size unchanged: libabigail
// 2.3 calls it harmless (PR29811).
const arrayLengthNote = "array length now known, same symbol size"

// lengthKnown reports whether o and n are arrays of one element type, one
// of them of unknown length.
func lengthKnown(cmp *comparer, o, n *abi.Type) bool {
	po, pn := peel(cmp.oa, o), peel(cmp.na, n)
	if po == nil || pn == nil || po.Kind != abi.Array || pn.Kind != abi.Array {
		return false
	}
	unknown := func(c int64) bool { return c <= 0 }
	if unknown(po.Count) == unknown(pn.Count) {
		return false
	}
	return canonSpell(abi.Spell(po.Elem)) == canonSpell(abi.Spell(pn.Elem)) || cmp.sameUnderlying(po.Elem, pn.Elem)
}

// baseTypedefNote marks a function whose parameters or return changed
// only in typedefs of base types: libabigail does not see a change of
// the function at all, even with --harmless.
const baseTypedefNote = "base type typedef names only"

// baseSpell writes t with the typedefs of base types followed.
func baseSpell(a *abi.ABI, t *abi.Type, depth int) string {
	if t == nil {
		return "void"
	}
	if depth > 64 {
		return "{deep}"
	}
	if t.Ref != "" {
		if p := peel(a, t); p != nil && p.Kind == abi.Base {
			if d := a.Types[t.Ref]; d != nil && d.Kind == abi.Typedef {
				return canonSpell(abi.Spell(p))
			}
		}
		return canonSpell(t.Ref)
	}
	var b strings.Builder
	b.WriteString(string(t.Kind) + "(" + baseSpell(a, t.Elem, depth+1))
	for _, p := range t.Params {
		b.WriteString("," + baseSpell(a, p, depth+1))
	}
	if t.Variadic {
		b.WriteString(",...")
	}
	if t.Ref == "" && t.Kind != abi.Func && t.Kind != abi.Pointer && t.Kind != abi.Reference && t.Kind != abi.RvalueReference &&
		t.Kind != abi.Const && t.Kind != abi.Volatile && t.Kind != abi.Restrict && t.Kind != abi.Array {
		b.WriteString("," + abi.Spell(t))
	}
	if t.Kind == abi.Array {
		b.WriteString("," + strconv.FormatInt(t.Count, 10))
	}
	return b.String() + ")"
}

// netChanged reports whether r holds a change abidiff reports by
// default: not one of the changes libabigail filters out as harmless
// (Harmless), which abifloor still lists.
func (r *Report) netChanged() bool {
	if len(r.File)+len(r.Constants) > 0 || r.Private.any() {
		return true
	}
	for _, c := range r.Symbols.Changes {
		if !Harmless(c) {
			return true
		}
	}
	for _, list := range [][]TypeChange{r.Types, r.PrivateTypes} {
		for _, t := range list {
			if !t.harmless() {
				return true
			}
		}
	}
	return false
}

// Harmless reports whether c is a change libabigail's abidiff leaves out
// of its report unless asked (--harmless): a compatible change of names
// only (a typedef for its target, a member renamed at the same offset),
// enumerators added, a type that became declared only or defined, a
// static data member added or removed. It does not set exit bit 4.
func Harmless(c Change) bool {
	if !c.Compatible {
		return false
	}
	switch c.Kind {
	case EnumeratorAdded, StaticAdded, StaticRemoved, Declaration:
		return true
	case VersionAdded:
		return c.Note == emptyNodeNote
	case MemberAdded, MemberRemoved:
		// A member renamed in place; not one moved into an anonymous
		// aggregate.
		if c.Note == anonymousNote {
			return true
		}
		return c.Note != "" && !strings.Contains(c.Path, "(anonymous") && !strings.Contains(c.New, "{...}")
	}
	return c.Note == typedefNote || c.Note == baseTypedefNote || c.Note == arrayLengthNote || c.Note == anonymousNote || c.Note == voidPointerNote || c.Note == qualifierNote ||
		c.Note == enumIntegerNote
}

// harmless reports whether every change to t is harmless, or t is a
// union that kept its size (libabigail's harmless union change).
func (t *TypeChange) harmless() bool {
	union := strings.HasPrefix(t.Name, "union ")
	for _, c := range t.Changes {
		if c.Kind == Size && c.Path == "" {
			return false
		}
		if !union && !Harmless(c) {
			return false
		}
	}
	return true
}

// abidiffIncompatible reports whether c is a change libabigail calls
// incompatible.
func abidiffIncompatible(c Change) bool {
	switch c.Kind {
	case SymbolRemoved, SONameChange, ArchChange, VirtualSlot, VirtualRemoved, VirtualAdded:
		return true
	}
	return false
}

// noDebugNote says which side had no debug info, so that types were not
// compared.
func noDebugNote(noOld, noNew bool) string {
	switch {
	case noOld && noNew:
		return "no debug info on either side: types not compared"
	case noOld:
		return "no debug info in the old file: types not compared"
	}
	return "no debug info in the new file: types not compared"
}

// Demangler names mangled C++ symbols, in reports (a virtual function's
// name) and for suppressions (libabigail's name properties match the
// qualified name without parameters; a member function of a private
// class is private). abiread.Demangler is the readers'; this package
// needs none of its own.
type Demangler interface {
	// Demangle returns the C++ name of a mangled name, with its
	// parameters when params is set (foo::bar(int), or foo::bar); ok is
	// false for a name that is not mangled or does not demangle.
	Demangle(mangled string, params bool) (name string, ok bool)
}

// Compare diffs old against new, leaving out what sup suppresses (sup may
// be nil). names demangles C++ symbols; with nil, a virtual function is
// named by its linkage name, a C++ symbol is matched by its mangled and
// its full demangled name only, and no member function counts as private
// (the report may then say more, never less). It checks ctx between
// symbols and between types, and returns its error, and no report, once
// it is done: a comparison cut short decides nothing.
func Compare(ctx context.Context, old, new *abi.ABI, sup *Suppressions, names Demangler) (Report, error) {
	if err := ctx.Err(); err != nil {
		return Report{}, err
	}
	sup = sup.withNames(names)
	r := Report{
		Types: []TypeChange{},
	}
	incompatible := false
	r.Notes = append(append(r.Notes, old.Notes...), new.Notes...)
	cmp := newComparer(ctx, old, new)
	cmp.names = names
	compareSymbols(&r, cmp, sup, &incompatible)
	if cmp.err != nil {
		return Report{}, cmp.err
	}
	if noOld, noNew := old.DebugInfo == abi.DebugNone, new.DebugInfo == abi.DebugNone; noOld || noNew {
		r.Notes = append(r.Notes, noDebugNote(noOld, noNew))
	} else {
		r.Untyped = untypedSymbols(old.Symbols, new.Symbols, sup, cmp.scope(sup))
		if u := r.Untyped; len(u) > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("%d symbols with no type information on one side, not compared: %s", len(u), list(u, 5)))
		}
		pubOld, pubNew := publicTypes(old), publicTypes(new)
		impOld, impNew := newImpacts(old), newImpacts(new)
		var own map[string]TypeChange
		if sup != nil && pubOld != nil {
			own = map[string]TypeChange{}
		}
		tcs := compareTypes(cmp, sup, &r.Filtered, own)
		if cmp.err != nil {
			return Report{}, cmp.err
		}
		if own != nil {
			tcs = hideUnreached(cmp, sup, tcs, own, pubOld, pubNew, &r.Filtered)
		}
		for _, tc := range tcs {
			if pubOld != nil && !pubOld[tc.Name] && !pubNew[tc.Name] {
				r.PrivateTypes = append(r.PrivateTypes, tc)
				continue
			}
			if pubOld != nil {
				tc.Impact = impactOf(impOld, impNew, tc.Name)
			}
			r.Types = append(r.Types, tc)
			incompatible = incompatible || tc.Incompatible()
		}
	}
	r.Constants = compareConstants(old, new)
	for _, c := range r.Constants {
		incompatible = incompatible || !c.Compatible
	}
	r.File = compareFile(old, new)
	for _, c := range r.File {
		incompatible = incompatible || !c.Compatible
	}
	r.Compatible = !incompatible
	if cmp.match != nil {
		r.Notes = append(r.Notes, cmp.match.notes()...)
	}
	for _, c := range append(r.File, r.Symbols.Changes...) {
		r.AbidiffIncompatible = r.AbidiffIncompatible || abidiffIncompatible(c)
	}
	for _, t := range r.Types {
		for _, c := range t.Changes {
			r.AbidiffIncompatible = r.AbidiffIncompatible || abidiffIncompatible(c) && !c.Compatible
		}
	}
	if !r.Changed() && r.Filtered.Total() == 0 {
		if fo, fn := old.Fingerprint(), new.Fingerprint(); fo != fn {
			// The symbols with no type information on one side
			// already say why (a note above).
			if len(r.Untyped) == 0 {
				r.Notes = append(r.Notes, fmt.Sprintf("the ABIs differ (fingerprints %s, %s), but not in anything diff compares", fo, fn))
			}
			r.differs = true
		}
	}
	return r, nil
}

// compareFile compares what describes the file as a whole.
func compareFile(old, new *abi.ABI) []Change {
	var out []Change
	if old.Arch != "" && new.Arch != "" && old.Arch != new.Arch {
		out = append(out, Change{Kind: ArchChange, Old: old.Arch, New: new.Arch})
	}
	if old.SOName != new.SOName && (old.SOName != "" || new.SOName != "") {
		out = append(out, Change{Kind: SONameChange, Old: old.SOName, New: new.SOName})
	}
	return out
}

func compareSymbols(r *Report, cmp *comparer, sup *Suppressions, incompatible *bool) {
	old, new := cmp.oa, cmp.na
	oldBy := byID(old.Symbols)
	newBy := byID(new.Symbols)
	demangled := map[string]string{}
	for _, list := range [][]abi.Symbol{old.Symbols, new.Symbols} {
		for _, s := range list {
			if s.Demangled != "" {
				demangled[s.Name] = s.Demangled
			}
		}
	}
	r.demangled = demangled
	add := func(version string, c Change) {
		if c.Symbol != "" {
			name, _, _ := strings.Cut(c.Symbol, "@")
			c.Demangled = demangled[name]
		}
		p := &r.Symbols
		if symver.IsPrivate(version) {
			p = &r.Private
		} else {
			*incompatible = *incompatible || !c.Compatible
		}
		p.Changes = append(p.Changes, c)
	}
	sc := cmp.scope(sup)
	// hidden counts a change the suppressions filter out.
	hidden := func(s abi.Symbol, k Kind) bool {
		if sup.symbol(s, k, sc) {
			r.Filtered.Symbols++
			return true
		}
		return false
	}
	for _, s := range old.Symbols {
		if cmp.stopped() {
			return
		}
		n, ok := newBy[s.ID()]
		if !ok {
			if !hidden(s, SymbolRemoved) {
				add(s.Version, Change{Kind: SymbolRemoved, Symbol: s.String()})
			}
			continue
		}
		cs := symbolChanges(cmp, s, n)
		if len(cs) > 0 && (hidden(s, SymbolType) || hidden(n, SymbolType) || privateOnly(cmp, sup, cs, s, n, &r.Filtered)) {
			continue
		}
		for _, c := range cs {
			add(s.Version, c)
		}
	}
	// A symbol added with aliases (symbols of its kind at its place) is
	// one function or variable to libabigail: it is hidden when one rule
	// matches them all (addedGroup).
	groups := map[uint64][]abi.Symbol{}
	for _, s := range new.Symbols {
		if p := s.Place; p != 0 {
			if _, ok := oldBy[s.ID()]; !ok {
				groups[p] = append(groups[p], s)
			}
		}
	}
	addedHidden := func(s abi.Symbol) bool {
		var group []abi.Symbol
		for _, o := range groups[s.Place] {
			if o.Kind == s.Kind {
				group = append(group, o)
			}
		}
		if s.Place == 0 || len(group) < 2 {
			return hidden(s, SymbolAdded)
		}
		if sup.addedGroup(group, sc) {
			r.Filtered.Symbols++
			return true
		}
		return false
	}
	for _, s := range new.Symbols {
		if cmp.stopped() {
			return
		}
		if _, ok := oldBy[s.ID()]; !ok && !addedHidden(s) {
			add(s.Version, Change{Kind: SymbolAdded, Symbol: s.String(), Compatible: true})
		}
	}
	// A default version that moved (foo@@GLIBC_2.2.5 -> foo@@GLIBC_2.34)
	// is news for new links, not a break for old binaries.
	oldDef, newDef := defaults(old.Symbols), defaults(new.Symbols)
	for _, name := range slices.Sorted(maps.Keys(oldDef)) {
		o := oldDef[name]
		n, ok := newDef[name]
		if !ok || o.Version == n.Version || hidden(o, SymbolVersion) {
			continue
		}
		add(o.Version, Change{Kind: SymbolVersion, Symbol: o.String(), Old: o.String(), New: n.String(), Compatible: true})
	}
	oldV, newV := set(old.Versions), set(new.Versions)
	for _, v := range old.Versions {
		if !newV[v] {
			add(v, Change{Kind: VersionRemoved, Version: v})
		}
	}
	// A node added with no symbol in it (json-c 0.16's JSONC_0.16) is
	// listed but is no change: no link takes a version from a node that
	// gives it no symbol, so no binary can come to need it.
	used := map[string]bool{}
	for _, s := range new.Symbols {
		used[s.Version] = true
	}
	for _, v := range new.Versions {
		if !oldV[v] {
			c := Change{Kind: VersionAdded, Version: v, Compatible: true}
			if !used[v] {
				c.Note = emptyNodeNote
			}
			add(v, c)
		}
	}
	for _, p := range []*SymbolChanges{&r.Symbols, &r.Private} {
		sortSymbolChanges(p.Changes)
	}
}

// sortSymbolChanges puts removals first, then additions, then the rest,
// each group in the order of its text.
func sortSymbolChanges(cs []Change) {
	group := func(k Kind) int {
		switch k {
		case SymbolRemoved:
			return 0
		case SymbolAdded:
			return 1
		}
		return 2
	}
	keyed := make([]struct {
		g int
		t string
		c Change
	}, len(cs))
	for i, c := range cs {
		keyed[i].g, keyed[i].t, keyed[i].c = group(c.Kind), c.String(), c
	}
	sort.SliceStable(keyed, func(i, j int) bool {
		if keyed[i].g != keyed[j].g {
			return keyed[i].g < keyed[j].g
		}
		return keyed[i].t < keyed[j].t
	})
	for i := range keyed {
		cs[i] = keyed[i].c
	}
}

// Filtered counts the changes suppressions hid: symbols (a symbol counts
// once however many of its changes were hidden) and named types.
type Filtered struct {
	Symbols int `json:"symbols"`
	Types   int `json:"types"`
}

// Total is the number of things filtered out.
func (f Filtered) Total() int { return f.Symbols + f.Types }

// impactOf is the impact of a change to key in the old ABI (what old
// binaries use), else in the new one.
func impactOf(old, new *impacts, key string) *Impact {
	for _, im := range []*impacts{old, new} {
		if _, ok := im.a.Types[key]; !ok {
			continue
		}
		if i := im.of(key); i.Symbols > 0 {
			return &i
		}
	}
	return nil
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
		if !symver.IsPrivate(s.Version) {
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

func set(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[s] = true
	}
	return m
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

// symbolChanges compares one symbol present in both ABIs.
func symbolChanges(cmp *comparer, o, n abi.Symbol) []Change {
	var out []Change
	id := o.String()
	if o.Kind != n.Kind {
		// func <-> ifunc is invisible to callers.
		out = append(out, Change{Kind: SymbolKind, Symbol: id, Old: string(o.Kind), New: string(n.Kind), Compatible: o.Kind.IsFunc() && n.Kind.IsFunc()})
	}
	if !o.Kind.IsFunc() && o.Size != n.Size {
		// A variable's size is copied into executables (copy
		// relocations): any change breaks them.
		out = append(out, Change{Kind: SymbolSize, Symbol: id, Old: utoa(o.Size), New: utoa(n.Size)})
	}
	if o.Type != nil && n.Type != nil && o.Kind == n.Kind && !untyped(o.Type) && !untyped(n.Type) {
		os, ns := abi.Spell(o.Type), abi.Spell(n.Type)
		if canonSpell(os) != canonSpell(ns) {
			c := Change{Kind: SymbolType, Symbol: id, Old: os, New: ns}
			c.Note, c.Compatible = cmp.namesOnly(o.Type, n.Type)
			if c.Note == typedefNote && o.Kind.IsFunc() && baseSpell(cmp.oa, o.Type, 0) == baseSpell(cmp.na, n.Type, 0) {
				c.Note = baseTypedefNote
			}
			if !c.Compatible && !o.Kind.IsFunc() && o.Size == n.Size && o.Size > 0 && lengthKnown(cmp, o.Type, n.Type) {
				c.Note, c.Compatible = arrayLengthNote, true
			}
			if !c.Compatible && pointeeQualifiersOnly(cmp.oa, o.Type, cmp.na, n.Type) {
				c.Note, c.Compatible = qualifierNote, true
			}
			out = append(out, c)
		}
	}
	return out
}

// untyped reports whether t says nothing about a symbol: an unknown type,
// or a function without a prototype or parameters (f(...), what DWARF
// gives for a function written in assembly or known only from a builtin
// declaration). A symbol untyped on either side is not compared: there is
// no type information, not a change.
func untyped(t *abi.Type) bool {
	if t == nil || t.Kind == abi.Unknown {
		return true
	}
	return t.Kind == abi.Func && t.Variadic && len(t.Params) == 0
}

// untypedSymbols counts the symbols both ABIs have whose type is known on
// one side only or on neither.
func untypedSymbols(old, new []abi.Symbol, sup *Suppressions, sc scope) []string {
	newBy := byID(new)
	var out []string
	for _, o := range old {
		n, ok := newBy[o.ID()]
		if !ok || o.Type == nil && n.Type == nil || sup.symbol(o, SymbolType, sc) {
			continue
		}
		if untyped(o.Type) || untyped(n.Type) {
			out = append(out, o.String())
		}
	}
	sort.Strings(out)
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
			out = append(out, Change{Kind: ConstantRemoved, Constant: c.Name})
		case v != c.Value:
			out = append(out, Change{Kind: ConstantValue, Constant: c.Name, Old: hex(c.Value), New: hex(v)})
		}
	}
	for _, c := range new.Constants {
		if !seen[c.Name] {
			out = append(out, Change{Kind: ConstantAdded, Constant: c.Name, Compatible: true})
		}
	}
	return out
}

// list joins the first max items with ", " and says how many more.
func list(items []string, max int) string {
	if len(items) <= max {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:max], ", ") + fmt.Sprintf(" and %d more", len(items)-max)
}

func itoa(n int64) string  { return strconv.FormatInt(n, 10) }
func utoa(n uint64) string { return strconv.FormatUint(n, 10) }
func hex(n uint64) string  { return "0x" + strconv.FormatUint(n, 16) }

// privateOnly reports whether the changes cs of a symbol are a change of
// type that keeps the layout and differs only in private types (those no
// public header defines, --headers-dir): libabigail hides it with the
// private types. It counts the symbol as filtered.
func privateOnly(cmp *comparer, sup *Suppressions, cs []Change, o, n abi.Symbol, filtered *Filtered) bool {
	if sup == nil || sup.public[0] == nil && sup.public[1] == nil {
		return false
	}
	for _, c := range cs {
		if c.Kind != SymbolType || !c.Compatible {
			return false
		}
	}
	if bareSpell(cmp.oa, o.Type, 0, sup.privateType) != bareSpell(cmp.na, n.Type, 0, sup.privateType) {
		return false
	}
	filtered.Symbols++
	return true
}
