package abidiff

import (
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/abifloor/abifloor/abi"
)

// scope is what a rule's soname and file properties are matched against.
type scope struct {
	sonames []string
	files   []string
	// x is the comparison's matcher (its meter is m); nil outside a
	// comparison.
	x *matcher
	m *meter
}

// matcher is sc's matcher, or a new one for s.
func (s *Suppressions) matcher(sc *scope) *matcher {
	if sc.x == nil {
		sc.x = newMatcher(s, *sc)
		sc.m = &sc.x.meter
	}
	return sc.x
}

func anyMatch(m *meter, re *rx, list []string) bool {
	for _, s := range list {
		if m.match(re, s) || m.match(re, filepath.Base(s)) {
			return true
		}
	}
	return false
}

// inScope applies the soname and file name properties.
func (r *rule) inScope(sc scope) bool {
	m := sc.m
	if r.sonameRe != nil && !anyMatch(m, r.sonameRe, sc.sonames) ||
		r.sonameNotRe != nil && anyMatch(m, r.sonameNotRe, sc.sonames) ||
		r.fileRe != nil && !anyMatch(m, r.fileRe, sc.files) ||
		r.fileNotRe != nil && anyMatch(m, r.fileNotRe, sc.files) {
		return false
	}
	return true
}

// symbol reports whether s hides the change c to sym (either ABI's copy
// of the symbol).
func (s *Suppressions) symbol(sym abi.Symbol, c Kind, sc scope) bool {
	if s == nil {
		return false
	}
	if s.privateMember(sym) {
		return true
	}
	x := s.matcher(&sc)
	names := symbolNames([]abi.Symbol{sym})
	keys := append(names[:len(names):len(names)], sym.String())
	for _, i := range x.cands(&x.sym, keys) {
		r := x.sym.rules[i]
		if x.try(func() bool { return r.matchSymbolNames(sym, names, c, sc) }) {
			return true
		}
	}
	return false
}

// addedGroup reports whether s hides the addition of the function or
// variable whose symbols (a name and its aliases) are group, as
// libabigail 2.3 does: one rule must match every symbol, its name
// properties matched for C++ against the name of any of them (the
// aliases share one declaration and its name).
func (s *Suppressions) addedGroup(group []abi.Symbol, sc scope) bool {
	if s == nil {
		return false
	}
	x := s.matcher(&sc)
	groupNames := symbolNames(group)
	keys := slices.Clone(groupNames)
	own := make([][]string, len(group))
	for j, sym := range group {
		keys = append(keys, sym.String())
		own[j] = groupNames
		if sym.Demangled == "" {
			own[j] = symbolNames(group[j : j+1])
		}
	}
	for _, i := range x.cands(&x.sym, keys) {
		r := x.sym.rules[i]
		all := true
		for j, sym := range group {
			if !x.try(func() bool { return r.matchSymbolNames(sym, own[j], SymbolAdded, sc) }) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

// matchSymbolNames reports whether r hides the change c to sym, its name
// properties matched against names (symbolNames: sym's own, or those of
// the aliases it was added with). The matcher has applied the rule's
// soname and file properties.
func (r *rule) matchSymbolNames(sym abi.Symbol, names []string, c Kind, sc scope) bool {
	m := sc.m
	switch r.section {
	case ruleSymbol:
		return m.match(r.simple, sym.Name) || m.match(r.simple, sym.String())
	case secFunction:
		if !sym.Kind.IsFunc() {
			return false
		}
	case secVariable:
		if sym.Kind.IsFunc() {
			return false
		}
	default:
		return false
	}
	if r.unknowable {
		return false
	}
	anyName := func(re *rx) bool { return slices.ContainsFunc(names, func(n string) bool { return m.match(re, n) }) }
	if r.name != "" && !slices.Contains(names, r.name) || r.nameRe != nil && !anyName(r.nameRe) || r.nameNotRe != nil && anyName(r.nameNotRe) {
		return false
	}
	if r.symName != "" && r.symName != sym.Name || r.symRe != nil && !m.match(r.symRe, sym.Name) || r.symNotRe != nil && m.match(r.symNotRe, sym.Name) {
		return false
	}
	if r.version != "" && r.version != sym.Version || r.versionRe != nil && !m.match(r.versionRe, sym.Version) {
		return false
	}
	if len(r.changeKinds) > 0 && !slices.Contains(r.changeKinds, "all") {
		thing := "function"
		if r.section == secVariable {
			thing = "variable"
		}
		k := thing + "-subtype-change"
		switch c {
		case SymbolRemoved:
			k = "deleted-" + thing
		case SymbolAdded:
			k = "added-" + thing
		}
		if !slices.Contains(r.changeKinds, k) {
			return false
		}
	}
	if len(r.params) > 0 && !r.paramsMatch(sym, m) {
		return false
	}
	if r.hasTypeFilter {
		t := sym.Type
		if t != nil && r.section == secFunction {
			t = t.Elem
		}
		if t == nil {
			return false
		}
		spelled := abi.Spell(t)
		if r.typeName != "" && r.typeName != spelled || r.typeNameRe != nil && !m.match(r.typeNameRe, spelled) {
			return false
		}
	}
	return true
}

// typ reports whether s hides the changes tc to the named type t (the old
// definition).
func (s *Suppressions) typ(tc TypeChange, t *abi.Type, sc scope, size func(*abi.Type) int64) bool {
	if s == nil {
		return false
	}
	if s.privateType(tc.Name) {
		return true
	}
	x := s.matcher(&sc)
	keys := typeKeys(tc, t)
	for _, i := range x.cands(&x.typ, keys) {
		r := x.typ.rules[i]
		if x.try(func() bool { return r.matchType(tc, t, sc, size) }) {
			return true
		}
	}
	if !x.hasAllow || x.spent {
		return false
	}
	// An [allow_type] match the meter refuses counts as a match: the
	// change is reported.
	for _, i := range x.cands(&x.allow, keys) {
		r := x.allow.rules[i]
		if x.tryOr(true, func() bool { return r.matchType(tc, t, sc, size) }) {
			return false
		}
	}
	return true
}

// typeKeys are the strings a type change is known by to the rules.
func typeKeys(tc TypeChange, t *abi.Type) []string {
	if t != nil && t.Name != "" && t.Name != tc.Name {
		return []string{tc.Name, t.Name}
	}
	return []string{tc.Name}
}

// SuppressesFile reports whether a [suppress_file] section matches the
// input at path whose SONAME is soname: such an input is not compared.
func (s *Suppressions) SuppressesFile(path, soname string) bool {
	if s == nil {
		return false
	}
	for _, r := range s.rules {
		if r.section != secFile {
			continue
		}
		if r.fileRe == nil && r.fileNotRe == nil && r.sonameRe == nil && r.sonameNotRe == nil {
			continue
		}
		if r.inScope(scope{sonames: []string{soname}, files: []string{path}}) {
			return true
		}
	}
	return false
}

// paramsMatch applies the parameter properties to a function symbol. A
// C++ member function's implicit this is parameter 0 in libabigail's
// count, and DWARF lists it first, so the index is the position in the
// list either way.
func (r *rule) paramsMatch(sym abi.Symbol, m *meter) bool {
	t := sym.Type
	if t == nil || t.Kind != abi.Func {
		return false
	}
	for _, p := range r.params {
		if p.index >= len(t.Params) {
			return false
		}
		spelled := abi.Spell(t.Params[p.index])
		if p.re != nil && !m.match(p.re, spelled) && !m.match(p.re, paramSpelling(spelled)) ||
			p.re == nil && paramSpelling(p.name) != paramSpelling(spelled) {
			return false
		}
	}
	return true
}

// tagWords drops the C tags and the blanks before a declarator, so C's
// "struct S *" and C++'s "S*" (libabigail's spellings) are one.
var tagWords = strings.NewReplacer("struct ", "", "union ", "", "enum ", "", "class ", "", " *", "*", " &", "&")

func paramSpelling(s string) string { return tagWords.Replace(canonSpell(strings.TrimSpace(s))) }

// matchType is a rule's match of a type change where it was found; a rule
// with accessed_through depends on how the type is reached, and is applied
// by hideUnreached instead.
func (r *rule) matchType(tc TypeChange, t *abi.Type, sc scope, size func(*abi.Type) int64) bool {
	if r.access != "" {
		return false
	}
	return r.matchTypeCore(tc, t, sc, size)
}

func (r *rule) matchTypeCore(tc TypeChange, t *abi.Type, sc scope, size func(*abi.Type) int64) bool {
	key := tc.Name
	switch r.section {
	case ruleType:
		return sc.m.match(r.simple, key)
	case secType, secAllow:
	default:
		return false
	}
	// The matcher has applied the soname and file properties.
	if r.unknowable {
		return false
	}
	m := sc.m
	name := key
	if t != nil && t.Name != "" {
		name = t.Name
	}
	is := func(want string) bool { return want == key || want == name }
	match := func(re *rx) bool { return m.match(re, key) || m.match(re, name) }
	if r.name != "" && !is(r.name) || r.nameRe != nil && !match(r.nameRe) || r.nameNotRe != nil && match(r.nameNotRe) {
		return false
	}
	if r.typeKind != "" {
		if t == nil {
			return false
		}
		want := map[string]abi.Kind{"class": abi.Struct, "struct": abi.Struct, "union": abi.Union, "enum": abi.Enum,
			"array": abi.Array, "typedef": abi.Typedef, "builtin": abi.Base}[r.typeKind]
		// As libabigail: "class" is any struct or class, "struct" only
		// one declared with the struct key.
		if t.Kind != want || r.typeKind == "struct" && t.Class {
			return false
		}
	}
	if (len(r.members) > 0 || r.membersRe != nil) && !r.hasMembers(t, m) {
		return false
	}
	if r.hasRanges && !r.insertedOnly(tc, t, size, m) {
		return false
	}
	if len(r.enumerators) > 0 || r.enumeratorsRe != nil {
		// As libabigail: no enumerator removed, the same size, and
		// every enumerator whose value changed named; enumerators
		// added do not count.
		changed := false
		for _, c := range tc.Changes {
			switch c.Kind {
			case EnumeratorAdded:
				continue
			case EnumeratorValue:
			default:
				return false
			}
			e := c.Path[strings.LastIndexByte(c.Path, '.')+1:]
			if !slices.Contains(r.enumerators, e) && (r.enumeratorsRe == nil || !m.match(r.enumeratorsRe, e)) {
				return false
			}
			changed = true
		}
		if !changed {
			return false
		}
	}
	return true
}

// hasMembers applies has_data_member and has_data_member_regexp to the
// old type t: it has every member named, and one whose name matches. The
// members of its anonymous members count as its own, as in C.
func (r *rule) hasMembers(t *abi.Type, m *meter) bool {
	if t == nil || t.Kind != abi.Struct && t.Kind != abi.Union {
		return false
	}
	var names []string
	var collect func(ms []abi.Member, depth int)
	collect = func(ms []abi.Member, depth int) {
		for _, m := range ms {
			if m.Name == "" && m.Type != nil && depth < 64 {
				collect(m.Type.Members, depth+1)
				continue
			}
			names = append(names, m.Name)
		}
	}
	collect(t.Members, 0)
	collect(t.Statics, 0)
	for _, n := range r.members {
		if !slices.Contains(names, n) {
			return false
		}
	}
	return r.membersRe == nil || slices.ContainsFunc(names, func(n string) bool { return m.match(r.membersRe, n) })
}

// insertedOnly reports whether every change to the type is a data member
// inserted in one of the rule's ranges, or follows from one:
// the size growing, or a member at or past a range's start moving. As in
// libabigail, a type whose size changed matches only with has_size_change
// = yes, and a shrinking type never. A type with no change of its own (one
// on the way to a changed type) never matches.
func (r *rule) insertedOnly(tc TypeChange, t *abi.Type, size func(*abi.Type) int64, m *meter) bool {
	if t == nil {
		return false
	}
	if len(tc.Changes) == 0 {
		// No change of its own (a type on the way to a changed one):
		// libabigail's leaf reports still show what lies below, so a
		// range rule does not hide it.
		return false
	}
	type span struct{ lo, hi int64 }
	var spans []span
	for _, rg := range r.ranges {
		lo, ok1 := rg[0].eval(t, false, size, m)
		hi, ok2 := rg[1].eval(t, true, size, m)
		if ok1 && ok2 {
			spans = append(spans, span{lo, hi})
		}
	}
	in := func(bit int64, start bool) bool {
		for _, s := range spans {
			if bit >= s.lo && (start || bit <= s.hi) {
				return true
			}
		}
		return false
	}
	inserted := false
	for _, c := range tc.Changes {
		switch c.Kind {
		case MemberAdded:
			at, err := strconv.ParseInt(c.At, 10, 64)
			if err != nil || strings.Contains(c.Path, ".") || !in(at*8, false) {
				return false
			}
			inserted = true
		case MemberRemoved:
			// libabigail 2.3 lets deleted members in a range too (a
			// reserved member replaced by the inserted ones).
			o, ok := memberBit(t, c.Path)
			if !ok || !in(o, false) {
				return false
			}
		case Size:
			o, _ := strconv.ParseInt(c.Old, 10, 64)
			n, _ := strconv.ParseInt(c.New, 10, 64)
			if n < o || c.Path != "" || !r.sizeChange {
				return false
			}
		case Offset, BitOffset:
			o, _ := strconv.ParseInt(c.Old, 10, 64)
			if c.Kind == Offset {
				o *= 8
			}
			if !in(o, true) {
				return false
			}
		case MemberType:
			// A member in the range that changed type (a reserved
			// char[50] that became char[46] to make room): libabigail
			// checks only the inserted members against the ranges.
			o, ok := memberBit(t, c.Path)
			if !ok || !in(o, false) {
				return false
			}
		default:
			return false
		}
	}
	return inserted
}

// memberBit is the old bit offset of t's direct member name.
func memberBit(t *abi.Type, name string) (int64, bool) {
	for _, m := range t.Members {
		if m.Name == name && name != "" {
			if m.BitSize > 0 {
				return m.BitOffset, true
			}
			return m.Offset * 8, true
		}
	}
	return 0, false
}

// eval evaluates a boundary against the old type t; ok is false when it
// names a member t does not have. "end" is the type's end as a start, and
// no limit as an end.
func (b boundary) eval(t *abi.Type, isEnd bool, size func(*abi.Type) int64, mt *meter) (int64, bool) {
	switch {
	case b.end && isEnd:
		return math.MaxInt64, true
	case b.end:
		return t.Size * 8, true
	case b.re != nil:
		var off int64
		found := false
		for _, m := range t.Members {
			if m.Name != "" && mt.match(b.re, m.Name) && (b.last || !found) {
				off, found = m.Offset*8, true
				if m.BitSize > 0 {
					off = m.BitOffset
				}
			}
		}
		return off, found
	case b.member == "":
		return b.bits, true
	}
	for _, m := range t.Members {
		if m.Name != b.member {
			continue
		}
		off := m.Offset * 8
		if m.BitSize > 0 {
			off = m.BitOffset
		}
		if !b.after {
			return off, true
		}
		if m.BitSize > 0 {
			return off + m.BitSize, true
		}
		if n := size(m.Type); n >= 0 {
			return off + n*8, true
		}
		return 0, false
	}
	return 0, false
}
