package abidiff

import (
	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/symver"
)

// access is how a use reaches a named type: by value, through a pointer
// or through a reference (libabigail's accessed_through).
type access uint8

const (
	accDirect access = iota
	accPointer
	accReference
)

// hideUnreached applies what libabigail's suppressions do to the changes
// under a function or variable: libabigail reports a type change only as
// part of the changes of a function or variable that reaches it, so a
// change reached only through suppressed functions and variables, only
// through types whose own change a [suppress_type] rule hides, or only
// along ways an accessed_through rule hides, is not reported. Each such
// change is counted as filtered. pubOld and pubNew are the public types of
// each side; a change to a type neither side's public symbols reach is
// left alone (it is a private type's).
func hideUnreached(cmp *comparer, sup *Suppressions, tcs []TypeChange, own map[string]TypeChange, pubOld, pubNew map[string]bool, filtered *Filtered) []TypeChange {
	sc := cmp.scope(sup)
	reached := map[string]bool{}
	for _, side := range []struct {
		a *abi.ABI
		x *expander
	}{{cmp.oa, cmp.ox}, {cmp.na, cmp.nx}} {
		a := side.a
		size := func(t *abi.Type) int64 { return cmp.sizeOf(a, side.x, t) }
		type arrival struct {
			key string
			acc access
		}
		seen := map[arrival]bool{}
		var queue []arrival
		emit := func(key string, acc access) {
			if ar := (arrival{key, acc}); !seen[ar] {
				seen[ar] = true
				queue = append(queue, ar)
			}
		}
		for _, s := range a.Symbols {
			if s.Type == nil || symver.IsPrivate(s.Version) || sup.symbol(s, SymbolType, sc) {
				continue
			}
			walkAccess(s.Type, accDirect, map[*abi.Type]bool{}, emit)
		}
		for len(queue) > 0 {
			ar := queue[0]
			queue = queue[1:]
			t := a.Types[ar.key]
			tc, changed := own[ar.key]
			if !changed {
				tc = TypeChange{Name: ar.key}
			}
			if sup.hidesAccess(tc, t, ar.acc, sc, size) {
				continue
			}
			reached[ar.key] = true
			if t == nil || sup.blocks(tc, t, sc, size) {
				continue
			}
			acc := accDirect
			if t.Kind == abi.Typedef {
				// A typedef is seen through, as libabigail peels
				// typedefs: a pointer to a typedef of S reaches S
				// through a pointer.
				acc = ar.acc
			}
			walkAccess(t, acc, map[*abi.Type]bool{}, emit)
		}
	}
	out := tcs[:0]
	for _, tc := range tcs {
		if (pubOld[tc.Name] || pubNew[tc.Name]) && !reached[tc.Name] {
			filtered.Types++
			continue
		}
		out = append(out, tc)
	}
	return out
}

// walkAccess calls emit for each named type t's inline tree refers to,
// with how it is reached: acc for t itself, pointer or reference below a
// pointer or a reference, direct again inside an aggregate or a function.
func walkAccess(t *abi.Type, acc access, seen map[*abi.Type]bool, emit func(string, access)) {
	if t == nil || seen[t] {
		return
	}
	seen[t] = true
	if t.Ref != "" {
		emit(t.Ref, acc)
		return
	}
	switch t.Kind {
	case abi.Pointer:
		walkAccess(t.Elem, accPointer, seen, emit)
		return
	case abi.Reference, abi.RvalueReference:
		walkAccess(t.Elem, accReference, seen, emit)
		return
	case abi.Const, abi.Volatile, abi.Restrict, abi.Typedef, abi.Array:
		walkAccess(t.Elem, acc, seen, emit)
		return
	}
	walkAccess(t.Elem, accDirect, seen, emit)
	for _, p := range t.Params {
		walkAccess(p, accDirect, seen, emit)
	}
	for _, b := range t.Bases {
		walkAccess(b.Type, accDirect, seen, emit)
	}
	for _, m := range t.Members {
		walkAccess(m.Type, accDirect, seen, emit)
	}
	for _, m := range t.Statics {
		walkAccess(m.Type, accDirect, seen, emit)
	}
}

// hidesAccess reports whether an accessed_through rule hides the type t
// (its change tc, maybe empty) reached by acc.
func (s *Suppressions) hidesAccess(tc TypeChange, t *abi.Type, acc access, sc scope, size func(*abi.Type) int64) bool {
	x := s.matcher(&sc)
	for _, i := range x.cands(&x.access, typeKeys(tc, t)) {
		r := x.access.rules[i]
		if r.accessMatches(acc) && x.try(func() bool { return r.matchTypeCore(tc, t, sc, size) }) {
			return true
		}
	}
	return false
}

// blocks reports whether a [suppress_type] rule without accessed_through
// hides the type t (its change tc, maybe empty), and with it what is
// reached only through t.
func (s *Suppressions) blocks(tc TypeChange, t *abi.Type, sc scope, size func(*abi.Type) int64) bool {
	if s.privateType(tc.Name) {
		return true
	}
	x := s.matcher(&sc)
	for _, i := range x.cands(&x.typ, typeKeys(tc, t)) {
		r := x.typ.rules[i]
		if x.try(func() bool { return r.matchTypeCore(tc, t, sc, size) }) {
			return true
		}
	}
	return false
}

func (r *rule) accessMatches(acc access) bool {
	switch r.access {
	case "direct":
		return acc == accDirect
	case "pointer":
		return acc == accPointer
	case "reference":
		return acc == accReference
	case "reference-or-pointer":
		return acc == accPointer || acc == accReference
	}
	return false
}
