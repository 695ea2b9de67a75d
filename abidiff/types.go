package abidiff

import (
	"maps"
	"slices"
	"strconv"

	"github.com/abifloor/abifloor/abi"
)

// compareTypes diffs every named type both ABIs have. Each type is compared
// shallowly: a member whose type is another named type is compared by name,
// and that type gets its own entry, so a change is reported once, where it
// happened. Anonymous aggregates are written inline and compared in place.
func compareTypes(cmp *comparer, sup *Suppressions) []TypeChange {
	old, new := cmp.oa, cmp.na
	var out []TypeChange
	newRoots := map[string]bool{}
	for _, r := range new.Roots {
		newRoots[r] = true
	}
	for _, r := range old.Roots {
		if _, ok := new.Types[r]; !ok && !newRoots[r] && !sup.typ(r) {
			out = append(out, TypeChange{Name: r, Changes: []Change{{Kind: TypeRemoved, Type: r}}})
		}
	}
	for _, key := range slices.Sorted(maps.Keys(old.Types)) {
		n, ok := new.Types[key]
		if !ok || sup.typ(key) {
			continue
		}
		c := changes{cmp: cmp, key: key}
		c.node("", old.Types[key], n)
		if len(c.list) > 0 {
			out = append(out, TypeChange{Name: key, Changes: c.list})
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

func (c *changes) add(ch Change) {
	ch.Type = c.key
	c.list = append(c.list, ch)
}

// retyped reports a change of type at path; one of names only is
// compatible.
func (c *changes) retyped(path string, kind Kind, o, n *abi.Type) {
	ch := Change{Kind: kind, Path: path, Old: abi.Spell(o), New: abi.Spell(n)}
	ch.Note, ch.Compatible = c.cmp.namesOnly(o, n)
	c.add(ch)
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
		if o.Ref != n.Ref || o.Kind != n.Kind {
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
			return
		}
		size()
		c.members(path, o, n)
	case abi.Enum:
		size()
		c.enumerators(path, o, n)
	case abi.Typedef:
		if o.Elem != nil && n.Elem != nil && o.Elem.Ref == "" && n.Elem.Ref == "" && isAggregate(o.Elem) && o.Elem.Kind == n.Elem.Kind {
			// typedef struct {...} name: the struct is the type.
			c.node(path, o.Elem, n.Elem)
			return
		}
		if abi.Spell(o.Elem) != abi.Spell(n.Elem) {
			c.retyped(path, TypedefTarget, o.Elem, n.Elem)
		}
	case abi.Base:
		size()
		if o.Encoding != n.Encoding {
			c.add(Change{Kind: Encoding, Path: path, Old: o.Encoding, New: n.Encoding})
		}
	default:
		if abi.Spell(o) != abi.Spell(n) {
			c.retyped(path, typeKind(path), o, n)
		} else {
			size()
		}
	}
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
