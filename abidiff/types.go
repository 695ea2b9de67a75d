package abidiff

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/abifloor/abifloor/abi"
)

// compareTypes diffs every named type both ABIs have. Each type is compared
// shallowly: a member whose type is another named type is compared by name,
// and that type gets its own entry, so a change is reported once, where it
// happened. Anonymous aggregates are written inline and compared in place.
//
// own, when not nil, receives every change found under its type's key,
// the suppressed ones too (reach needs them).
func compareTypes(cmp *comparer, sup *Suppressions, filtered *Filtered, own map[string]TypeChange) []TypeChange {
	old, new := cmp.oa, cmp.na
	sc := cmp.scope(sup)
	size := func(t *abi.Type) int64 { return cmp.sizeOf(old, cmp.ox, t) }
	keep := func(tc TypeChange, t *abi.Type) bool {
		if own != nil {
			own[tc.Name] = tc
		}
		if sup.typ(tc, t, sc, size) {
			filtered.Types++
			return false
		}
		return true
	}
	var out []TypeChange
	newRoots := map[string]bool{}
	for _, r := range new.Roots {
		newRoots[r] = true
	}
	for _, r := range old.Roots {
		if _, ok := new.Types[r]; !ok && !newRoots[r] {
			tc := TypeChange{Name: r, Changes: []Change{{Kind: TypeRemoved, Type: r}}}
			if keep(tc, old.Types[r]) {
				out = append(out, tc)
			}
		}
	}
	oldRoots := map[string]bool{}
	for _, r := range old.Roots {
		oldRoots[r] = true
	}
	for _, r := range new.Roots {
		if _, ok := old.Types[r]; !ok && !oldRoots[r] {
			tc := TypeChange{Name: r, Changes: []Change{{Kind: TypeAdded, Type: r, Compatible: true}}}
			if keep(tc, new.Types[r]) {
				out = append(out, tc)
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(old.Types)) {
		if cmp.stopped() {
			return nil
		}
		n, ok := new.Types[key]
		if !ok {
			continue
		}
		c := changes{cmp: cmp, key: key}
		c.node("", old.Types[key], n)
		c.sameLayout()
		c.foldAnonymous(old.Types[key], n)
		if len(c.list) > 0 {
			tc := TypeChange{Name: key, Changes: c.list}
			if keep(tc, old.Types[key]) {
				out = append(out, tc)
			}
		}
	}
	return out
}

// changes collects the changes to one named type.
type changes struct {
	cmp  *comparer
	key  string
	list []Change
}

// sameLayout marks the changes compatible, with the note "names only,
// same layout", when the type as a whole keeps its layout: the same size
// and, flattened through all its aggregate members, the same scalars at the
// same offsets (anonymous unions that became a named union, members
// renamed). Code compiled against the old type reads the same bytes.
func (c *changes) sameLayout() {
	incompatible := false
	for _, ch := range c.list {
		incompatible = incompatible || !ch.Compatible
	}
	if !incompatible || !c.cmp.sameLayout(&abi.Type{Ref: c.key}, &abi.Type{Ref: c.key}) {
		return
	}
	for i := range c.list {
		switch c.list[i].Kind {
		case VirtualSlot, VirtualRemoved, VirtualAdded:
			// The object's bytes are the same, its vtable's are not:
			// a call through the old slot reaches another function.
			continue
		}
		c.list[i].Compatible = true
		if c.list[i].Note == "" {
			c.list[i].Note = sameLayoutNote
		}
	}
}

func (c *changes) add(ch Change) {
	ch.Type = c.key
	c.list = append(c.list, ch)
}

// retyped reports a change of type at path; one of names only is
// compatible.
func (c *changes) retyped(path string, kind Kind, o, n *abi.Type) {
	ch := Change{Kind: kind, Path: path, Old: abi.Spell(o), New: abi.Spell(n)}
	ch.Note, ch.Compatible = c.cmp.namesOnly(o, n)
	if !ch.Compatible && (qualifiersOnly(c.cmp.oa, o, c.cmp.na, n) || pointeeQualifiersOnly(c.cmp.oa, o, c.cmp.na, n) ||
		path == "" && qualifiersMoved(c.cmp, c.key, o, n)) {
		ch.Note, ch.Compatible = qualifierNote, true
	}
	c.add(ch)
}

// qualifierNote marks a member's or typedef's type that only gained
// const, volatile or restrict qualifiers (its typedef names aside), or a
// type whose qualifiers changed only below a pointer or inside a function
// type (pointeeQualifiersOnly): the same bytes at the same place,
// libabigail's "compatible type" change, which it filters out as harmless.
const qualifierNote = "qualifiers only"

// qualifiersOnly reports whether o (old) and n (new) are spelled the same
// with every typedef followed and every qualifier dropped. Anonymous
// aggregates, spelled alike whatever their members, never count.
func qualifiersOnly(oa *abi.ABI, o *abi.Type, na *abi.ABI, n *abi.Type) bool {
	so, sn := bareSpell(oa, o, 0, nil), bareSpell(na, n, 0, nil)
	if so != sn || strings.Contains(so, "{") {
		return false
	}
	// Only qualifiers added: one removed (a volatile dropped) is a
	// change libabigail reports.
	ql, nl := qualLevels(oa, o, 0, 0, nil), qualLevels(na, n, 0, 0, nil)
	if len(ql) != len(nl) {
		return false
	}
	for i := range ql {
		if ql[i]&^nl[i] != 0 {
			return false
		}
	}
	return true
}

// pointeeQualifiersOnly reports whether o (old) and n (new) are spelled
// the same with every typedef followed and every qualifier dropped, and
// differ in qualifiers only below a pointer or reference (const char * ->
// char *) or inside a function type (its return and parameters): the
// same bytes and the same calling convention. libabigail's default filter
// hides such a change, added or removed, as harmless. A change of the
// qualifiers of o itself (a member or variable that lost const) is not one.
func pointeeQualifiersOnly(oa *abi.ABI, o *abi.Type, na *abi.ABI, n *abi.Type) bool {
	budget := 1 << 16
	if !sameBare(oa, o, na, n, map[[2]*abi.Type]bool{}, &budget) {
		return false
	}
	if isFunc(oa, o) && isFunc(na, n) {
		return true
	}
	return qualLevels(oa, o, 0, 0, nil)[0] == qualLevels(na, n, 0, 0, nil)[0]
}

// sameBare reports whether o and n are spelled the same with every
// typedef followed and every qualifier dropped, as bareSpell writes them,
// comparing node pairs once each (memo) so that typedefs of typedefs are
// never expanded into a tree; past budget nodes it says no. Anonymous
// aggregates written in place never count as the same.
func sameBare(oa *abi.ABI, o *abi.Type, na *abi.ABI, n *abi.Type, memo map[[2]*abi.Type]bool, budget *int) bool {
	o, n = bare(oa, o), bare(na, n)
	void := func(t *abi.Type) bool { return t == nil || t.Ref == "" && t.Kind == abi.Void }
	if void(o) || void(n) {
		return void(o) && void(n)
	}
	if o.Ref != "" || n.Ref != "" {
		return o.Ref != "" && n.Ref != "" && canonSpell(o.Ref) == canonSpell(n.Ref)
	}
	key := [2]*abi.Type{o, n}
	if v, ok := memo[key]; ok {
		return v
	}
	if *budget--; *budget < 0 || o.Kind != n.Kind {
		return false
	}
	memo[key] = true
	same := true
	switch o.Kind {
	case abi.Pointer, abi.Reference, abi.RvalueReference:
		same = sameBare(oa, o.Elem, na, n.Elem, memo, budget)
	case abi.Array:
		same = o.Count == n.Count && sameBare(oa, o.Elem, na, n.Elem, memo, budget)
	case abi.Func:
		same = o.Variadic == n.Variadic && len(o.Params) == len(n.Params) && sameBare(oa, o.Elem, na, n.Elem, memo, budget)
		for i := 0; same && i < len(o.Params); i++ {
			same = sameBare(oa, o.Params[i], na, n.Params[i], memo, budget)
		}
	case abi.Struct, abi.Union, abi.Enum:
		same = false
	default:
		same = canonSpell(abi.Spell(o)) == canonSpell(abi.Spell(n))
	}
	memo[key] = same
	return same
}

// bare follows t's typedefs and qualifiers.
func bare(a *abi.ABI, t *abi.Type) *abi.Type {
	for depth := 0; t != nil && depth <= 64; depth++ {
		switch {
		case t.Ref != "":
			d := a.Types[t.Ref]
			if d == nil || d.Kind != abi.Typedef {
				return t
			}
			t = d.Elem
		case t.Kind == abi.Const || t.Kind == abi.Volatile || t.Kind == abi.Restrict || t.Kind == abi.Typedef:
			t = t.Elem
		default:
			return t
		}
	}
	return t
}

// qualifiersMoved reports whether the typedef key lost qualifiers of
// its target (old o, new n) that every use of it in the new ABI puts
// back: typedef const plain monster, where GCC writes monster as int[7]
// and each use as const monster (libabigail's PR26739). The users see
// the same type.
func qualifiersMoved(cmp *comparer, key string, o, n *abi.Type) bool {
	if d := cmp.na.Types[key]; d == nil || d.Kind != abi.Typedef {
		return false
	}
	budget := 1 << 16
	if !sameBare(cmp.oa, o, cmp.na, n, map[[2]*abi.Type]bool{}, &budget) {
		return false
	}
	ql, nl := qualLevels(cmp.oa, o, 0, 0, nil), qualLevels(cmp.na, n, 0, 0, nil)
	if len(ql) != len(nl) || nl[0]&^ql[0] != 0 || ql[0] == nl[0] {
		return false
	}
	for i := 1; i < len(ql); i++ {
		if ql[i] != nl[i] {
			return false
		}
	}
	need := ql[0] &^ nl[0]
	uses, ok := 0, true
	seen := map[*abi.Type]bool{}
	var walk func(t *abi.Type, quals uint8, depth int)
	walk = func(t *abi.Type, quals uint8, depth int) {
		if t == nil || !ok || depth > 64 || seen[t] && quals == 0 {
			return
		}
		if quals == 0 {
			seen[t] = true
		}
		if t.Ref != "" {
			if t.Ref == key {
				uses++
				ok = ok && quals&need == need
			}
			return
		}
		var q uint8
		switch t.Kind {
		case abi.Const:
			q = quals | 1
		case abi.Volatile:
			q = quals | 2
		case abi.Restrict:
			q = quals | 4
		}
		walk(t.Elem, q, depth+1)
		for _, p := range t.Params {
			walk(p, 0, depth+1)
		}
		for i := range t.Bases {
			walk(t.Bases[i].Type, 0, depth+1)
		}
		for i := range t.Members {
			walk(t.Members[i].Type, 0, depth+1)
		}
		for i := range t.Statics {
			walk(t.Statics[i].Type, 0, depth+1)
		}
	}
	for k, t := range cmp.na.Types {
		if k != key {
			walk(t, 0, 0)
		}
	}
	for i := range cmp.na.Symbols {
		walk(cmp.na.Symbols[i].Type, 0, 0)
	}
	return ok && uses > 0
}

// isFunc reports whether t is a function type, typedefs and qualifiers
// followed.
func isFunc(a *abi.ABI, t *abi.Type) bool {
	for depth := 0; t != nil && depth <= 64; depth++ {
		switch {
		case t.Ref != "":
			d := a.Types[t.Ref]
			if d == nil || d.Kind != abi.Typedef {
				return false
			}
			t = d.Elem
		case t.Kind == abi.Func:
			return true
		case t.Kind == abi.Const || t.Kind == abi.Volatile || t.Kind == abi.Restrict || t.Kind == abi.Typedef:
			t = t.Elem
		default:
			return false
		}
	}
	return false
}

// qualLevels lists the qualifiers of t at each level of indirection
// (the pointer, what it points to, ...), typedefs followed; a qualified
// array's qualifiers are its elements', as in C.
func qualLevels(a *abi.ABI, t *abi.Type, pending uint8, depth int, out []uint8) []uint8 {
	if t == nil || depth > 64 {
		return append(out, pending)
	}
	if t.Ref != "" {
		if d := a.Types[t.Ref]; d != nil && d.Kind == abi.Typedef {
			return qualLevels(a, d.Elem, pending, depth+1, out)
		}
		return append(out, pending)
	}
	switch t.Kind {
	case abi.Const:
		return qualLevels(a, t.Elem, pending|1, depth+1, out)
	case abi.Volatile:
		return qualLevels(a, t.Elem, pending|2, depth+1, out)
	case abi.Restrict:
		return qualLevels(a, t.Elem, pending|4, depth+1, out)
	case abi.Typedef, abi.Array:
		return qualLevels(a, t.Elem, pending, depth+1, out)
	case abi.Pointer, abi.Reference, abi.RvalueReference:
		return qualLevels(a, t.Elem, 0, depth+1, append(out, pending))
	}
	return append(out, pending)
}

// bareSpell writes t with typedefs followed and qualifiers dropped; a
// named type mask reports is written {private}.
func bareSpell(a *abi.ABI, t *abi.Type, depth int, mask func(string) bool) string {
	if t == nil {
		return "void"
	}
	if depth > 64 {
		return "{deep}"
	}
	if t.Ref != "" {
		if d := a.Types[t.Ref]; d != nil && d.Kind == abi.Typedef {
			return bareSpell(a, d.Elem, depth+1, mask)
		}
		if mask != nil && mask(t.Ref) {
			return "{private}"
		}
		return canonSpell(t.Ref)
	}
	switch t.Kind {
	case abi.Const, abi.Volatile, abi.Restrict, abi.Typedef:
		return bareSpell(a, t.Elem, depth+1, mask)
	case abi.Pointer:
		return bareSpell(a, t.Elem, depth+1, mask) + "*"
	case abi.Reference:
		return bareSpell(a, t.Elem, depth+1, mask) + "&"
	case abi.RvalueReference:
		return bareSpell(a, t.Elem, depth+1, mask) + "&&"
	case abi.Array:
		return bareSpell(a, t.Elem, depth+1, mask) + "[" + strconv.FormatInt(t.Count, 10) + "]"
	case abi.Func:
		var b strings.Builder
		b.WriteString(bareSpell(a, t.Elem, depth+1, mask) + "(")
		for i, p := range t.Params {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(bareSpell(a, p, depth+1, mask))
		}
		if t.Variadic {
			b.WriteString(",...")
		}
		return b.String() + ")"
	}
	return canonSpell(abi.Spell(t))
}

// typeKind is the kind of a change of type at path: the member's type, or
// the node itself (a named type that became another kind).
func typeKind(path string) Kind {
	if path == "" {
		return TypeKind
	}
	return MemberType
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// node compares two type nodes at path (member names from the named type
// down, "" for the type itself).
func (c *changes) node(path string, o, n *abi.Type) {
	if o == nil || n == nil {
		if (o == nil) != (n == nil) {
			c.add(Change{Kind: typeKind(path), Path: path, Old: abi.Spell(o), New: abi.Spell(n)})
		}
		return
	}
	if o.Ref != "" || n.Ref != "" || o.Kind != n.Kind {
		if canonSpell(o.Ref) != canonSpell(n.Ref) || o.Kind != n.Kind {
			c.retyped(path, typeKind(path), o, n)
		}
		return
	}
	size := func() {
		if o.Size != n.Size {
			c.add(Change{Kind: Size, Path: path, Old: itoa(o.Size), New: itoa(n.Size)})
		}
	}
	switch o.Kind {
	case abi.Struct, abi.Union:
		if o.Incomplete != n.Incomplete {
			// Only the declaration is visible on one side: nothing
			// to compare, and callers of opaque types are unaffected.
			state := map[bool]string{true: "declared", false: "defined"}
			c.add(Change{Kind: Declaration, Path: path, Old: state[o.Incomplete], New: state[n.Incomplete], Compatible: true})
			c.becameVirtual(path, o, n)
			return
		}
		size()
		c.bases(path, o, n)
		c.members(path, o, n)
		c.virtuals(path, o, n)
		c.statics(path, o, n)
	case abi.Enum:
		if od, nd := enumDecl(o), enumDecl(n); od != nd {
			// An enum declared only (enum e;, a GNU extension in C, or
			// an opaque enum in C++) on one side: libabigail
			// compares nothing and calls the change harmless.
			state := map[bool]string{true: "declared", false: "defined"}
			c.add(Change{Kind: Declaration, Path: path, Old: state[od], New: state[nd], Compatible: true})
			return
		}
		size()
		if o.EnumClass != n.EnumClass {
			state := map[bool]string{true: "enum class", false: "enum"}
			c.add(Change{Kind: TypeKind, Path: path, Old: state[o.EnumClass], New: state[n.EnumClass], Compatible: true, Note: "scoping only, same values"})
		}
		c.enumerators(path, o, n)
	case abi.Typedef:
		if o.Elem != nil && n.Elem != nil && o.Elem.Ref == "" && n.Elem.Ref == "" && isAggregate(o.Elem) && o.Elem.Kind == n.Elem.Kind {
			// typedef struct {...} name: the struct is the type.
			c.node(path, o.Elem, n.Elem)
			return
		}
		if canonSpell(abi.Spell(o.Elem)) != canonSpell(abi.Spell(n.Elem)) {
			c.retyped(path, TypedefTarget, o.Elem, n.Elem)
		} else {
			// Spelled alike, but an anonymous aggregate inside
			// (typedef struct {...} *name) can still differ.
			c.inline(path, o.Elem, n.Elem)
		}
	case abi.Base:
		size()
		if o.Encoding != n.Encoding {
			c.add(Change{Kind: Encoding, Path: path, Old: o.Encoding, New: n.Encoding})
		}
	default:
		if canonSpell(abi.Spell(o)) != canonSpell(abi.Spell(n)) {
			c.retyped(path, typeKind(path), o, n)
		} else {
			size()
			c.inline(path, o.Elem, n.Elem)
		}
	}
}

// inline compares what o and n, spelled alike, hold inline: an anonymous
// struct or union behind a pointer, qualifier or array is spelled
// "struct {...}" whatever its members, so it is compared member by member.
func (c *changes) inline(path string, o, n *abi.Type) {
	if o == nil || n == nil || o.Ref != "" || n.Ref != "" || o.Kind != n.Kind {
		return
	}
	switch o.Kind {
	case abi.Struct, abi.Union, abi.Pointer, abi.Reference, abi.RvalueReference, abi.Const, abi.Volatile, abi.Restrict, abi.Array:
		c.node(path, o, n)
	}
}

// enumDecl reports whether an enum is a declaration only: marked so, or
// with no size and no enumerator (a defined enum always has a size).
func enumDecl(t *abi.Type) bool {
	return t.Incomplete || t.Size == 0 && len(t.Enumerators) == 0
}

func isAggregate(t *abi.Type) bool {
	return t.Kind == abi.Struct || t.Kind == abi.Union || t.Kind == abi.Enum
}

// memberKeys names members for matching: a name, or the position among
// the anonymous members ("(anonymous 1)").
func memberKeys(ms []abi.Member) []string {
	keys := make([]string, len(ms))
	anon := 0
	for i, m := range ms {
		if m.Name == "" {
			anon++
			keys[i] = "(anonymous " + strconv.Itoa(anon) + ")"
		} else {
			keys[i] = m.Name
		}
	}
	return keys
}

func (c *changes) members(path string, o, n *abi.Type) {
	ok, nk := memberKeys(o.Members), memberKeys(n.Members)
	ni := map[string]int{}
	for i, k := range nk {
		ni[k] = i
	}
	seen := map[string]bool{}
	for i, k := range ok {
		seen[k] = true
		p := join(path, k)
		j, found := ni[k]
		if !found {
			c.add(Change{Kind: MemberRemoved, Path: p})
			continue
		}
		om, nm := o.Members[i], n.Members[j]
		if om.Offset != nm.Offset {
			c.add(Change{Kind: Offset, Path: p, Old: itoa(om.Offset), New: itoa(nm.Offset)})
		}
		if om.BitSize != nm.BitSize {
			c.add(Change{Kind: BitSize, Path: p, Old: itoa(om.BitSize), New: itoa(nm.BitSize)})
		}
		if om.BitOffset != nm.BitOffset && (om.BitSize > 0 || nm.BitSize > 0) {
			c.add(Change{Kind: BitOffset, Path: p, Old: itoa(om.BitOffset), New: itoa(nm.BitOffset)})
		}
		c.node(p, om.Type, nm.Type)
	}
	for i, k := range nk {
		if !seen[k] {
			m := n.Members[i]
			c.add(Change{Kind: MemberAdded, Path: join(path, k), New: abi.Spell(m.Type), At: itoa(m.Offset), Compatible: true})
		}
	}
}

func (c *changes) enumerators(path string, o, n *abi.Type) {
	nv := map[string]int64{}
	for _, e := range n.Enumerators {
		nv[e.Name] = e.Value
	}
	seen := map[string]bool{}
	for _, e := range o.Enumerators {
		seen[e.Name] = true
		v, ok := nv[e.Name]
		switch {
		case !ok:
			c.add(Change{Kind: EnumeratorRemoved, Path: join(path, e.Name), Old: itoa(e.Value)})
		case v != e.Value:
			c.add(Change{Kind: EnumeratorValue, Path: join(path, e.Name), Old: itoa(e.Value), New: itoa(v)})
		}
	}
	for _, e := range n.Enumerators {
		if !seen[e.Name] {
			c.add(Change{Kind: EnumeratorAdded, Path: join(path, e.Name), New: itoa(e.Value), Compatible: true})
		}
	}
}

// bases compares C++ base classes by type: one added or removed moves
// every member after it; one at another offset is a layout change.
func (c *changes) bases(path string, o, n *abi.Type) {
	if len(o.Bases)+len(n.Bases) == 0 {
		return
	}
	name := func(b abi.BaseClass) string {
		s := abi.Spell(b.Type)
		if b.Virtual {
			s = "virtual " + s
		}
		return s
	}
	nb := map[string]abi.BaseClass{}
	for _, b := range n.Bases {
		nb[name(b)] = b
	}
	seen := map[string]bool{}
	for _, b := range o.Bases {
		k := name(b)
		seen[k] = true
		m, ok := nb[k]
		switch {
		case !ok:
			c.add(Change{Kind: BaseRemoved, Path: path, Member: k, Old: itoa(b.Offset)})
		case m.Offset != b.Offset:
			c.add(Change{Kind: BaseOffset, Path: path, Member: k, Old: itoa(b.Offset), New: itoa(m.Offset)})
		}
	}
	for _, b := range n.Bases {
		if k := name(b); !seen[k] {
			c.add(Change{Kind: BaseAdded, Path: path, Member: k, New: itoa(b.Offset)})
		}
	}
}

// virtuals compares vtables: a virtual function at another slot, removed,
// or added (inserted or appended: a class derived from it in a program
// has its own virtuals after the base's, which then move) breaks callers.
func (c *changes) virtuals(path string, o, n *abi.Type) {
	if len(o.Virtuals)+len(n.Virtuals) == 0 {
		return
	}
	// A name can stand for several virtuals (overloads, when DWARF gives
	// no linkage name): the k-th of a name, in slot order, is paired
	// with the k-th of that name on the other side, so a class compared
	// with itself never changes.
	key := func(vs []abi.Virtual) []string {
		n := map[string]int{}
		out := make([]string, len(vs))
		for i, v := range vs {
			out[i] = v.Name + "\x00" + strconv.Itoa(n[v.Name])
			n[v.Name]++
		}
		return out
	}
	ok, nk := key(o.Virtuals), key(n.Virtuals)
	ns := map[string]int64{}
	for i, v := range n.Virtuals {
		ns[nk[i]] = v.Slot
	}
	seen := map[string]bool{}
	for i, v := range o.Virtuals {
		seen[ok[i]] = true
		slot, found := ns[ok[i]]
		switch {
		case !found:
			c.add(Change{Kind: VirtualRemoved, Path: path, Member: c.symbolName(v.Name), Old: itoa(v.Slot)})
		case slot != v.Slot:
			c.add(Change{Kind: VirtualSlot, Path: path, Member: c.symbolName(v.Name), Old: itoa(v.Slot), New: itoa(slot)})
		}
	}
	for i, v := range n.Virtuals {
		if !seen[nk[i]] {
			c.add(Change{Kind: VirtualAdded, Path: path, Member: c.symbolName(v.Name), New: itoa(v.Slot)})
		}
	}
}

// becameVirtual compares a class's declaration with its definition on the
// other side: a member function the declaration lists as not virtual
// (abi.Type.Methods) that the definition has in its vtable became virtual
// (a vtable entry callers of the old class do not have), and the reverse
// is one that stopped being virtual. libabigail reports both as
// incompatible changes to the vtable.
func (c *changes) becameVirtual(path string, o, n *abi.Type) {
	for _, m := range o.Methods {
		for _, v := range n.Virtuals {
			if v.Name == m {
				c.add(Change{Kind: VirtualAdded, Path: path, Member: c.symbolName(m), New: itoa(v.Slot), Note: "now declared virtual"})
			}
		}
	}
	for _, m := range n.Methods {
		for _, v := range o.Virtuals {
			if v.Name == m {
				c.add(Change{Kind: VirtualRemoved, Path: path, Member: c.symbolName(m), Old: itoa(v.Slot), Note: "no longer virtual"})
			}
		}
	}
}

// statics compares static data members by name: each is a symbol of its
// own, so an addition is compatible and a removal is not.
func (c *changes) statics(path string, o, n *abi.Type) {
	if len(o.Statics)+len(n.Statics) == 0 {
		return
	}
	has := func(list []abi.Member, name string) bool {
		return slices.ContainsFunc(list, func(m abi.Member) bool { return m.Name == name })
	}
	for _, m := range o.Statics {
		if !has(n.Statics, m.Name) {
			c.add(Change{Kind: StaticRemoved, Path: path, Member: m.Name})
		}
	}
	for _, m := range n.Statics {
		if !has(o.Statics, m.Name) {
			c.add(Change{Kind: StaticAdded, Path: path, Member: m.Name, Compatible: true})
		}
	}
}

// symbolName writes a linkage name demangled ("foo::bar()") when it is
// mangled and the comparison has a Demangler, as it is otherwise.
func (c *changes) symbolName(name string) string {
	if c.cmp.names != nil {
		if d, ok := c.cmp.names.Demangle(name, true); ok {
			return d
		}
	}
	return name
}

// anonymousNote marks the changes of members that moved into (or out of)
// an anonymous struct or union at the same offsets, with the same types:
// libabigail calls it harmless ("data member became part of anonymous
// data member"), and so does abifloor (Harmless).
const anonymousNote = "same members, now in an anonymous member"

// anonLeaf is a named member of an aggregate, its anonymous members seen
// through: its absolute place and its type.
type anonLeaf struct {
	off, bitOff, bitSize int64
	typ                  string
	overlay              bool // inside an anonymous union
}

// flatLeaves lists t's named members with those of its anonymous members,
// by name.
func flatLeaves(t *abi.Type) map[string]anonLeaf {
	out := map[string]anonLeaf{}
	var walk func(ms []abi.Member, base int64, overlay bool, depth int)
	walk = func(ms []abi.Member, base int64, overlay bool, depth int) {
		for _, m := range ms {
			if m.Name == "" && m.Type != nil && m.Type.Ref == "" && depth < 64 {
				walk(m.Type.Members, base+m.Offset, overlay || m.Type.Kind == abi.Union, depth+1)
				continue
			}
			bo := m.BitOffset
			if m.BitSize > 0 {
				bo += base * 8
			}
			out[m.Name] = anonLeaf{off: base + m.Offset, bitOff: bo, bitSize: m.BitSize, typ: canonSpell(abi.Spell(m.Type)), overlay: overlay}
		}
	}
	walk(t.Members, 0, false, 0)
	return out
}

// foldAnonymous marks the changes to a struct harmless when they only
// move members into or out of anonymous members: the size is the same,
// every old member is found, seen through anonymous members, at the same
// place with the same type, and every new member not in the old type
// overlays others in an anonymous union (a tag array beside them).
func (c *changes) foldAnonymous(o, n *abi.Type) {
	if len(c.list) == 0 || o == nil || n == nil || o.Kind != abi.Struct || n.Kind != abi.Struct || o.Size != n.Size {
		return
	}
	moved := false
	for _, ch := range c.list {
		anon := strings.Contains(ch.Path, "(anonymous")
		switch {
		case ch.Kind == MemberRemoved || ch.Kind == MemberAdded:
			moved = moved || anon
		case !anon:
			return
		}
	}
	if !moved {
		return
	}
	ol, nl := flatLeaves(o), flatLeaves(n)
	for name, l := range ol {
		if nl[name].typ != l.typ || nl[name].off != l.off || nl[name].bitOff != l.bitOff || nl[name].bitSize != l.bitSize {
			return
		}
	}
	for name, l := range nl {
		if _, ok := ol[name]; !ok && !l.overlay {
			return
		}
	}
	for i := range c.list {
		c.list[i].Compatible = true
		c.list[i].Note = anonymousNote
	}
}
