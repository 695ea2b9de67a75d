package abidiff

import (
	"context"
	"sort"
	"strings"

	"github.com/abifloor/abifloor/abi"
)

// expander rewrites types of one ABI with every typedef replaced by what it
// names and restrict dropped: two types with the same underlying type have
// the same layout and calling convention, so a change between them
// (intmax_t to long int) is a change of name only. Structs, unions and
// enums stay references, which keeps recursive types finite.
//
// Results are memoised by typedef key and by node, so a typedef used many
// times (or typedefs built from typedefs, each used twice by the next) is
// expanded once: the result is a graph that shares nodes, as large as the
// input, and is compared with sameGraph, never spelled.
type expander struct {
	a      *abi.ABI
	byKey  map[string]*abi.Type
	byNode map[*abi.Type]*abi.Type
	busy   map[string]bool // typedefs being expanded: a cycle stops there
	depth  int             // of the expansion under way
	// cut is set when the expansion under way stopped short (maxExpand,
	// or a cycle): its result may expand further, so it is not marked
	// as expanded.
	cut bool
}

// maxExpand bounds how deep one expansion goes. A chain of typedefs in ABI
// JSON is flat in the file (each names the next by key), so its length is
// bounded only by the file's size; without a bound, a chain of millions
// would recurse until the goroutine's stack is exhausted, which kills the
// process. Deeper than this, a type stays as it is written and is compared
// by its name, which can only report a change, never hide one.
const maxExpand = 4096

func newExpander(a *abi.ABI) *expander {
	return &expander{a: a, byKey: map[string]*abi.Type{}, byNode: map[*abi.Type]*abi.Type{}, busy: map[string]bool{}}
}

// under is t with its typedefs expanded and restrict dropped. A node
// under returns is marked as its own expansion when nothing in it
// was cut short: callers walk the expanded graph and hand its nodes back
// (layoutEq expands each level's elem), and without the mark each level
// copied everything below it again, so a pointer chain n deep cost n²
// (52 chains 510 deep in 930 KB of ABI JSON: 52 s and 1 GB in diff).
func (x *expander) under(t *abi.Type) *abi.Type {
	if t == nil {
		return t
	}
	if x.depth >= maxExpand {
		x.cut = true
		return t
	}
	x.depth++
	defer func() { x.depth-- }()
	if t.Ref != "" {
		d := x.a.Types[t.Ref]
		if d == nil || d.Kind != abi.Typedef {
			return t
		}
		if x.busy[t.Ref] {
			x.cut = true
			return t
		}
		if u, ok := x.byKey[t.Ref]; ok {
			return u
		}
		x.busy[t.Ref] = true
		u := x.under(d.Elem)
		delete(x.busy, t.Ref)
		x.byKey[t.Ref] = u
		return u
	}
	if u, ok := x.byNode[t]; ok {
		return u
	}
	var u *abi.Type
	outer := x.cut
	x.cut = false
	if t.Kind == abi.Restrict || t.Kind == abi.Typedef {
		u = x.under(t.Elem)
	} else {
		c := *t
		c.Elem = x.under(t.Elem)
		if len(t.Params) > 0 {
			c.Params = make([]*abi.Type, len(t.Params))
			for i, p := range t.Params {
				c.Params[i] = x.under(p)
			}
		}
		u = &c
		if !x.cut {
			x.byNode[u] = u
		}
	}
	x.byNode[t] = u
	x.cut = x.cut || outer
	return u
}

// sameGraph reports whether o and n are the same type, node by node,
// memoised by pair of nodes so that shared nodes are compared once.
// References compare by key.
func sameGraph(o, n *abi.Type, memo map[[2]*abi.Type]bool) bool {
	if o == nil || n == nil {
		return o == n
	}
	if o == n {
		return true
	}
	pair := [2]*abi.Type{o, n}
	if same, ok := memo[pair]; ok {
		return same
	}
	same := o.Ref == n.Ref && o.Kind == n.Kind && o.Name == n.Name && o.Size == n.Size &&
		o.Encoding == n.Encoding && o.Incomplete == n.Incomplete && o.Count == n.Count && o.Variadic == n.Variadic &&
		len(o.Members) == len(n.Members) && len(o.Params) == len(n.Params) && len(o.Enumerators) == len(n.Enumerators)
	for i := 0; same && i < len(o.Enumerators); i++ {
		same = o.Enumerators[i] == n.Enumerators[i]
	}
	for i := 0; same && i < len(o.Members); i++ {
		om, nm := o.Members[i], n.Members[i]
		same = om.Name == nm.Name && om.Offset == nm.Offset && om.BitOffset == nm.BitOffset && om.BitSize == nm.BitSize &&
			sameGraph(om.Type, nm.Type, memo)
	}
	for i := 0; same && i < len(o.Params); i++ {
		same = sameGraph(o.Params[i], n.Params[i], memo)
	}
	same = same && sameGraph(o.Elem, n.Elem, memo)
	memo[pair] = same
	return same
}

// comparer holds what one Compare learns about both ABIs: their typedef
// expansions.
type comparer struct {
	oa, na *abi.ABI
	ox, nx *expander
	// match is the suppressions' matcher for this comparison, built
	// once: a comparison has one Suppressions.
	match *matcher
	// ctx is checked every stopEvery symbols or types (stopped); err is
	// its error once it is done.
	ctx   context.Context
	polls int
	err   error
	// names demangles C++ symbols (Compare); nil: none.
	names Demangler
}

func newComparer(ctx context.Context, oa, na *abi.ABI) *comparer {
	return &comparer{oa: oa, na: na, ox: newExpander(oa), nx: newExpander(na), ctx: ctx}
}

// stopEvery is how many symbols or types are compared between two checks
// of the context: a check is cheap next to one comparison, but not free.
const stopEvery = 64

// stopped reports whether the comparison's context is done, checking it
// every stopEvery calls; a comparison that stopped returns no report.
func (c *comparer) stopped() bool {
	if c.err == nil && c.polls%stopEvery == 0 {
		c.err = c.ctx.Err()
	}
	c.polls++
	return c.err != nil
}

const sameLayoutNote = "names only, same layout"

// scope is what suppressions' soname and file name properties are matched
// against for this comparison.
func (c *comparer) scope(sup *Suppressions) scope {
	var sc scope
	for _, a := range []*abi.ABI{c.oa, c.na} {
		if a.SOName != "" {
			sc.sonames = append(sc.sonames, a.SOName)
		}
	}
	if sup != nil {
		sc.files = sup.files
		if c.match == nil {
			c.match = newMatcher(sup, sc)
		}
		sc.x, sc.m = c.match, &c.match.meter
	}
	return sc
}

// namesOnly says whether a change of type from o to n is one of names only,
// which is compatible, and of what names.
// typedefNote marks a change of spelling through typedefs only.
const typedefNote = "typedef names only"

// emptyNodeNote marks a version node added with no symbol in it.
const emptyNodeNote = "no symbol in it"

func (c *comparer) namesOnly(o, n *abi.Type) (note string, compatible bool) {
	if c.sameUnderlying(o, n) {
		return typedefNote, true
	}
	if c.sameLayout(o, n) {
		return sameLayoutNote, true
	}
	if voidToPointer(c.oa, o, c.na, n) {
		return voidPointerNote, true
	}
	if enumToInteger(c.oa, o, c.na, n) || c.enumToIntegerParams(o, n) {
		return enumIntegerNote, true
	}
	return "", false
}

// enumToIntegerParams reports whether the function types o and n differ
// only in enums that became integers of their size (and typedef names).
func (c *comparer) enumToIntegerParams(o, n *abi.Type) bool {
	o, n = c.oa.Resolve(o), c.na.Resolve(n)
	if o == nil || n == nil || o.Kind != abi.Func || n.Kind != abi.Func || len(o.Params) != len(n.Params) || o.Variadic != n.Variadic {
		return false
	}
	some := false
	pair := func(x, y *abi.Type) bool {
		if enumToInteger(c.oa, x, c.na, y) {
			some = true
			return true
		}
		return canonSpell(abi.Spell(x)) == canonSpell(abi.Spell(y)) || c.sameUnderlying(x, y)
	}
	if !pair(o.Elem, n.Elem) {
		return false
	}
	for i := range o.Params {
		if !pair(o.Params[i], n.Params[i]) {
			return false
		}
	}
	return some
}

// enumIntegerNote marks an enum (maybe behind a typedef) replaced by an
// integer type of its size: the same value passed the same way, a change
// libabigail filters out as harmless.
const enumIntegerNote = "enum became an integer of its size"

// enumToInteger reports whether o is an enum and n an integer base type of
// the same size, typedefs and qualifiers followed.
func enumToInteger(oa *abi.ABI, o *abi.Type, na *abi.ABI, n *abi.Type) bool {
	po, pn := peel(oa, o), peel(na, n)
	if po == nil || pn == nil || po.Kind != abi.Enum || pn.Kind != abi.Base || po.Size == 0 || po.Size != pn.Size {
		return false
	}
	switch pn.Encoding {
	case "signed", "unsigned", "":
		return true
	}
	return false
}

// voidPointerNote marks a void * that became a pointer to a type: the
// same pointer in the ABI, and one libabigail filters out as harmless.
const voidPointerNote = "void * became a typed pointer"

// peel follows references, typedefs and qualifiers to the type under t.
func peel(a *abi.ABI, t *abi.Type) *abi.Type {
	for i := 0; t != nil && i < 64; i++ {
		if t.Ref != "" {
			t = a.Types[t.Ref]
			continue
		}
		switch t.Kind {
		case abi.Typedef, abi.Const, abi.Volatile, abi.Restrict:
			t = t.Elem
			continue
		}
		return t
	}
	return t
}

// voidToPointer reports whether o is a pointer to void (through typedefs
// and qualifiers) and n a pointer to something else.
func voidToPointer(oa *abi.ABI, o *abi.Type, na *abi.ABI, n *abi.Type) bool {
	po, pn := peel(oa, o), peel(na, n)
	if po == nil || pn == nil || po.Kind != abi.Pointer || pn.Kind != abi.Pointer {
		return false
	}
	eo, en := peel(oa, po.Elem), peel(na, pn.Elem)
	return (eo == nil || eo.Kind == abi.Void) && en != nil && en.Kind != abi.Void
}

// sameUnderlying reports whether o (in the old ABI) and n (in the new)
// differ only in typedef names and restrict.
func (c *comparer) sameUnderlying(o, n *abi.Type) bool {
	return sameGraph(c.ox.under(o), c.nx.under(n), map[[2]*abi.Type]bool{})
}

// sameLayout reports whether o (old) and n (new) have the same layout even
// though their names differ: struct stat and struct stat64 on a 64-bit
// target, long and long long where both are 8 bytes. Aggregates match when
// their sizes and their members' names, offsets and layouts match; base
// types when size and encoding do. Qualifiers and kinds must agree. Such a
// change is invisible to compiled code: a caller passing the old type
// passes the same bytes. Recursive types end through the pairs already on
// the way; pairs are memoised, so shared nodes are compared once.
func (c *comparer) sameLayout(o, n *abi.Type) bool {
	return c.layoutEq(o, n, map[[2]*abi.Type]bool{}, map[[2]string]bool{}, 0)
}

func (c *comparer) layoutEq(o, n *abi.Type, memo map[[2]*abi.Type]bool, seen map[[2]string]bool, depth int) bool {
	if o == nil || n == nil {
		return o == n
	}
	if depth > 64 {
		return false
	}
	o, n = c.ox.under(o), c.nx.under(n)
	if o == nil || n == nil {
		return o == n
	}
	pair := [2]*abi.Type{o, n}
	if same, ok := memo[pair]; ok {
		// A false anywhere makes the whole comparison false, so a true
		// found while assuming a pair further up is never misused.
		return same
	}
	if o.Ref != "" && n.Ref != "" {
		refs := [2]string{o.Ref, n.Ref}
		if seen[refs] {
			return true // already being compared further up
		}
		seen[refs] = true
	}
	same := c.layoutNodes(c.oa.Resolve(o), c.na.Resolve(n), o, n, memo, seen, depth)
	memo[pair] = same
	return same
}

func (c *comparer) layoutNodes(od, nd, o, n *abi.Type, memo map[[2]*abi.Type]bool, seen map[[2]string]bool, depth int) bool {
	if od == nil || nd == nil || od.Kind != nd.Kind {
		return false
	}
	eq := func(x, y *abi.Type) bool { return c.layoutEq(x, y, memo, seen, depth+1) }
	switch od.Kind {
	case abi.Base:
		return od.Size == nd.Size && od.Encoding == nd.Encoding
	case abi.Void:
		return true
	case abi.Struct, abi.Union:
		if od.Incomplete || nd.Incomplete {
			return o.Ref == n.Ref
		}
		if od.Size != nd.Size || len(od.Virtuals) != len(nd.Virtuals) {
			return false
		}
		for i, v := range od.Virtuals {
			if v != nd.Virtuals[i] {
				return false
			}
		}
		ol, ok1 := c.flatten(c.oa, c.ox, od, 0, nil, 0)
		nl, ok2 := c.flatten(c.na, c.nx, nd, 0, nil, 0)
		if !ok1 || !ok2 || len(ol) != len(nl) {
			return false
		}
		for i, o := range ol {
			n := nl[i]
			if o.bit != n.bit || o.bits != n.bits || !eq(o.t, n.t) {
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
		return od.Count == nd.Count && eq(od.Elem, nd.Elem)
	case abi.Func:
		if len(od.Params) != len(nd.Params) || od.Variadic != nd.Variadic {
			return false
		}
		for i := range od.Params {
			if !eq(od.Params[i], nd.Params[i]) {
				return false
			}
		}
		return eq(od.Elem, nd.Elem)
	case abi.Pointer, abi.Reference, abi.RvalueReference, abi.Const, abi.Volatile:
		return od.Size == nd.Size && eq(od.Elem, nd.Elem)
	}
	return false
}

// leaf is one scalar of a flattened aggregate: where it is (bits from the
// outermost aggregate's start), how many bits, and its type (a base type,
// enum, pointer, array of scalars, function or qualified scalar).
type leaf struct {
	bit, bits int64
	t         *abi.Type
}

// maxLeaves bounds a flattened layout; an aggregate with more scalars than
// this is compared member by member instead (never equal here).
const maxLeaves = 1 << 14

// flatten appends the scalars of the struct or union d (resolved, typedefs
// expanded by x) at bit offset base, recursing through every aggregate
// member, named or anonymous, and through arrays of aggregates. Names play
// no part: a union of anonymous structs and a union named elsewhere with
// the same members at the same offsets flatten alike. Leaves are sorted by
// offset then size (stable, so union alternatives keep their order). ok is
// false when the layout is too large or too deep to flatten.
func (c *comparer) flatten(a *abi.ABI, x *expander, d *abi.Type, base int64, out []leaf, depth int) ([]leaf, bool) {
	if depth > 32 {
		return out, false
	}
	for _, b := range d.Bases {
		// A base is laid out like a member without a name.
		r := a.Resolve(x.under(b.Type))
		if r == nil || r.Incomplete || b.Virtual {
			return out, false
		}
		var ok bool
		if out, ok = c.flatten(a, x, r, base+b.Offset*8, out, depth+1); !ok {
			return out, false
		}
	}
	for _, m := range d.Members {
		if len(out) > maxLeaves {
			return out, false
		}
		bit := base + m.Offset*8
		if m.BitSize > 0 {
			out = append(out, leaf{bit: base + m.BitOffset, bits: m.BitSize, t: x.under(m.Type)})
			continue
		}
		u := x.under(m.Type)
		if u == nil {
			return out, false
		}
		r := a.Resolve(u)
		if r == nil {
			return out, false
		}
		if (r.Kind == abi.Struct || r.Kind == abi.Union) && !r.Incomplete {
			var ok bool
			if out, ok = c.flatten(a, x, r, bit, out, depth+1); !ok {
				return out, false
			}
			continue
		}
		out = append(out, leaf{bit: bit, bits: c.sizeOf(a, x, u) * 8, t: u})
	}
	if depth == 0 {
		sort.SliceStable(out, func(i, j int) bool {
			if out[i].bit != out[j].bit {
				return out[i].bit < out[j].bit
			}
			return out[i].bits < out[j].bits
		})
	}
	return out, true
}

// sizeOf is the size of the expanded type u in bytes; -1 when unknown.
func (c *comparer) sizeOf(a *abi.ABI, x *expander, u *abi.Type) int64 {
	for range 64 {
		if u == nil {
			return -1
		}
		u = a.Resolve(x.under(u))
		if u == nil {
			return -1
		}
		switch u.Kind {
		case abi.Const, abi.Volatile:
			u = u.Elem
			continue
		case abi.Array:
			if u.Count < 0 {
				return -1
			}
			if u.Size == 0 && u.Count > 0 {
				return u.Count * c.sizeOf(a, x, u.Elem)
			}
		}
		return u.Size
	}
	return -1
}

// baseSpellings are the other spellings of C's base types that compilers
// write (gcc "long int", icc and clang "long"): one type, one ABI.
var baseSpellings = strings.NewReplacer(
	"long long unsigned int", "unsigned long long",
	"long long int", "long long",
	"long unsigned int", "unsigned long",
	"short unsigned int", "unsigned short",
	"short int", "short",
	"long int", "long",
)

// canonSpell is a spelled type with every base type written one way.
func canonSpell(s string) string {
	if !strings.Contains(s, " int") {
		return s
	}
	return baseSpellings.Replace(s)
}
