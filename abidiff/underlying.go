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
