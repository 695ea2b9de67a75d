package abidiff

import (
	"fmt"
	"maps"
	"slices"

	"github.com/abifloor/abifloor/abi"
)

// compareTypes diffs every named type both ABIs have. Each type is compared
// shallowly: a member whose type is another named type is compared by name,
// and that type gets its own entry, so a change is reported once, where it
// happened. Anonymous aggregates are written inline and compared in place.
func compareTypes(old, new *abi.ABI, sup *Suppressions) []TypeChange {
	var out []TypeChange
	newRoots := map[string]bool{}
	for _, r := range new.Roots {
		newRoots[r] = true
	}
	for _, r := range old.Roots {
		if _, ok := new.Types[r]; !ok && !newRoots[r] && !sup.typ(r) {
			out = append(out, TypeChange{Name: r, Changes: []string{"removed"}, Incompatible: true})
		}
	}
	for _, key := range slices.Sorted(maps.Keys(old.Types)) {
		n, ok := new.Types[key]
		if !ok || sup.typ(key) {
			continue
		}
		c := changes{oa: old, na: new}
		c.node("", old.Types[key], n)
		if len(c.list) > 0 {
			out = append(out, TypeChange{Name: key, Changes: c.list, Incompatible: c.incompatible})
		}
	}
	return out
}

type changes struct {
	oa, na       *abi.ABI
	list         []string
	incompatible bool
}

// retyped reports a change of type; one of typedef names only is
// compatible.
func (c *changes) retyped(path, what string, o, n *abi.Type) {
	if sameUnderlying(c.oa, c.na, o, n) {
		c.add(false, "%s%s %s -> %s (typedef names only)", path, what, abi.Spell(o), abi.Spell(n))
		return
	}
	if sameLayout(c.oa, c.na, o, n) {
		c.add(false, "%s%s %s -> %s (names only, same layout)", path, what, abi.Spell(o), abi.Spell(n))
		return
	}
	c.add(true, "%s%s %s -> %s", path, what, abi.Spell(o), abi.Spell(n))
}

func (c *changes) add(incompatible bool, format string, args ...any) {
	c.list = append(c.list, fmt.Sprintf(format, args...))
	c.incompatible = c.incompatible || incompatible
}

// node compares two type nodes; path prefixes each change ("member u: ").
func (c *changes) node(path string, o, n *abi.Type) {
	if o == nil || n == nil {
		if (o == nil) != (n == nil) {
			c.add(true, "%stype %s -> %s", path, abi.Spell(o), abi.Spell(n))
		}
		return
	}
	if o.Ref != "" || n.Ref != "" || o.Kind != n.Kind {
		if o.Ref != n.Ref || o.Kind != n.Kind {
			c.retyped(path, "type", o, n)
		}
		return
	}
	switch o.Kind {
	case abi.Struct, abi.Union:
		if o.Incomplete != n.Incomplete {
			// Only the declaration is visible on one side: nothing
			// to compare, and callers of opaque types are unaffected.
			c.add(false, "%s%s", path, map[bool]string{true: "now declared only", false: "now defined"}[n.Incomplete])
			return
		}
		if o.Size != n.Size {
			c.add(true, "%ssize %d -> %d", path, o.Size, n.Size)
		}
		c.members(path, o, n)
	case abi.Enum:
		if o.Size != n.Size {
			c.add(true, "%ssize %d -> %d", path, o.Size, n.Size)
		}
		c.enumerators(path, o, n)
	case abi.Typedef:
		if o.Elem != nil && n.Elem != nil && o.Elem.Ref == "" && n.Elem.Ref == "" && isAggregate(o.Elem) && o.Elem.Kind == n.Elem.Kind {
			// typedef struct {...} name: the struct is the type.
			c.node(path, o.Elem, n.Elem)
			return
		}
		if abi.Spell(o.Elem) != abi.Spell(n.Elem) {
			c.retyped(path, "typedef", o.Elem, n.Elem)
		}
	case abi.Base:
		if o.Size != n.Size || o.Encoding != n.Encoding {
			c.add(true, "%ssize %d -> %d", path, o.Size, n.Size)
		}
	default:
		if abi.Spell(o) != abi.Spell(n) {
			c.retyped(path, "type", o, n)
		} else if o.Size != n.Size {
			c.add(true, "%ssize %d -> %d", path, o.Size, n.Size)
		}
	}
}

func isAggregate(t *abi.Type) bool {
	return t.Kind == abi.Struct || t.Kind == abi.Union || t.Kind == abi.Enum
}

// memberKey names a member for matching: its name, or its position among
// the anonymous members ("(anonymous 1)").
func memberKeys(ms []abi.Member) []string {
	keys := make([]string, len(ms))
	anon := 0
	for i, m := range ms {
		if m.Name == "" {
			anon++
			keys[i] = fmt.Sprintf("(anonymous %d)", anon)
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
		j, found := ni[k]
		if !found {
			c.add(true, "%smember %s removed", path, k)
			continue
		}
		om, nm := o.Members[i], n.Members[j]
		p := path + "member " + k + ": "
		if om.Offset != nm.Offset {
			c.add(true, "%soffset %d -> %d", p, om.Offset, nm.Offset)
		}
		if om.BitSize != nm.BitSize {
			c.add(true, "%sbit size %d -> %d", p, om.BitSize, nm.BitSize)
		}
		if om.BitOffset != nm.BitOffset && (om.BitSize > 0 || nm.BitSize > 0) {
			c.add(true, "%sbit offset %d -> %d", p, om.BitOffset, nm.BitOffset)
		}
		c.node(p, om.Type, nm.Type)
	}
	for i, k := range nk {
		if !seen[k] {
			m := n.Members[i]
			c.add(false, "%smember %s added at offset %d (%s)", path, k, m.Offset, abi.Spell(m.Type))
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
			c.add(true, "%senumerator %s removed", path, e.Name)
		case v != e.Value:
			c.add(true, "%senumerator %s: value %d -> %d", path, e.Name, e.Value, v)
		}
	}
	for _, e := range n.Enumerators {
		if !seen[e.Name] {
			c.add(false, "%senumerator %s = %s added", path, e.Name, itoa(e.Value))
		}
	}
}
