package abidiff

import "github.com/abifloor/abifloor/abi"

// underlying rewrites t with every typedef replaced by what it names and
// restrict dropped: two types with the same underlying spelling have the
// same layout and calling convention, so a change between them (intmax_t
// to long int) is a change of name only. Structs, unions and enums stay
// references, which keeps recursive types finite.
func underlying(a *abi.ABI, t *abi.Type) *abi.Type {
	return under(a, t, 0)
}

func under(a *abi.ABI, t *abi.Type, depth int) *abi.Type {
	if t == nil || depth > 64 {
		return t
	}
	if t.Ref != "" {
		if d := a.Types[t.Ref]; d != nil && d.Kind == abi.Typedef {
			return under(a, d.Elem, depth+1)
		}
		return t
	}
	if t.Kind == abi.Restrict || t.Kind == abi.Typedef {
		return under(a, t.Elem, depth+1)
	}
	c := *t
	c.Elem = under(a, t.Elem, depth+1)
	if len(t.Params) > 0 {
		c.Params = make([]*abi.Type, len(t.Params))
		for i, p := range t.Params {
			c.Params[i] = under(a, p, depth+1)
		}
	}
	return &c
}

// sameUnderlying reports whether o (in oa) and n (in na) differ only in
// typedef names and restrict.
func sameUnderlying(oa, na *abi.ABI, o, n *abi.Type) bool {
	return abi.Spell(underlying(oa, o)) == abi.Spell(underlying(na, n))
}

// sameLayout reports whether o (in oa) and n (in na) have the same layout
// even though their names differ: struct stat and struct stat64 on a
// 64-bit target, long and long long where both are 8 bytes. Aggregates
// match when their sizes and their members' names, offsets and layouts
// match; base types when size and encoding do. Qualifiers and kinds must
// agree. Such a change is invisible to compiled code: a caller passing the
// old type passes the same bytes. Recursive types end through seen.
func sameLayout(oa, na *abi.ABI, o, n *abi.Type) bool {
	return layoutEq(oa, na, o, n, map[[2]string]bool{}, 0)
}

func layoutEq(oa, na *abi.ABI, o, n *abi.Type, seen map[[2]string]bool, depth int) bool {
	if o == nil || n == nil {
		return o == n
	}
	if depth > 64 {
		return false
	}
	o, n = underlying(oa, o), underlying(na, n)
	if o.Ref != "" && n.Ref != "" {
		pair := [2]string{o.Ref, n.Ref}
		if seen[pair] {
			return true // already being compared further up
		}
		seen[pair] = true
	}
	od, nd := resolve(oa, o), resolve(na, n)
	if od == nil || nd == nil || od.Kind != nd.Kind {
		return false
	}
	switch od.Kind {
	case abi.Base:
		return od.Size == nd.Size && od.Encoding == nd.Encoding
	case abi.Void:
		return true
	case abi.Struct, abi.Union:
		if od.Incomplete || nd.Incomplete {
			return o.Ref == n.Ref
		}
		if od.Size != nd.Size || len(od.Members) != len(nd.Members) {
			return false
		}
		for i, om := range od.Members {
			nm := nd.Members[i]
			if om.Name != nm.Name || om.Offset != nm.Offset || om.BitOffset != nm.BitOffset || om.BitSize != nm.BitSize ||
				!layoutEq(oa, na, om.Type, nm.Type, seen, depth+1) {
				return false
			}
		}
		return true
	case abi.Enum:
		if od.Size != nd.Size || len(od.Enumerators) != len(nd.Enumerators) {
			return false
		}
		for i, e := range od.Enumerators {
			if e != nd.Enumerators[i] {
				return false
			}
		}
		return true
	case abi.Array:
		return od.Count == nd.Count && layoutEq(oa, na, od.Elem, nd.Elem, seen, depth+1)
	case abi.Func:
		if len(od.Params) != len(nd.Params) || od.Variadic != nd.Variadic {
			return false
		}
		for i := range od.Params {
			if !layoutEq(oa, na, od.Params[i], nd.Params[i], seen, depth+1) {
				return false
			}
		}
		return layoutEq(oa, na, od.Elem, nd.Elem, seen, depth+1)
	case abi.Pointer, abi.Const, abi.Volatile:
		return od.Size == nd.Size && layoutEq(oa, na, od.Elem, nd.Elem, seen, depth+1)
	}
	return false
}

// resolve follows a reference to the named type's definition.
func resolve(a *abi.ABI, t *abi.Type) *abi.Type {
	if t.Ref == "" {
		return t
	}
	return a.Types[t.Ref]
}
