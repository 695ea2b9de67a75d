package abi

import (
	"fmt"
	"slices"
	"sort"
)

// Type is one broad struct, so that the JSON form stays one flat object
// per node; what each kind may carry is written here once, and Validate
// holds an ABI to it. The readers' output always validates (their tests
// and fuzzers check it); ABI JSON from elsewhere may not, and the
// comparison copes with either.

// fields are the fields a node may set besides Kind.
type fields uint16

const (
	fName fields = 1 << iota
	fSize
	fEncoding
	fIncomplete
	fElem
	fCount
	fMembers   // Members, Bases, Virtuals, Statics, Methods, Class
	fEnum      // Enumerators, EnumClass
	fSignature // Params, Variadic
)

// allowed is what each kind may carry.
var allowed = map[Kind]fields{
	Base:            fName | fSize | fEncoding,
	Struct:          fName | fSize | fIncomplete | fMembers,
	Union:           fName | fSize | fIncomplete | fMembers,
	Enum:            fName | fSize | fIncomplete | fEnum,
	Typedef:         fName | fElem,
	Pointer:         fSize | fElem,
	Reference:       fSize | fElem,
	RvalueReference: fSize | fElem,
	Const:           fElem,
	Volatile:        fElem,
	Restrict:        fElem,
	Array:           fSize | fElem | fCount,
	Func:            fElem | fSignature,
	Void:            0,
	Unknown:         fName,
}

// set is what t sets, Kind and Ref aside.
func (t *Type) set() fields {
	var f fields
	add := func(on bool, x fields) {
		if on {
			f |= x
		}
	}
	add(t.Name != "", fName)
	add(t.Size != 0, fSize)
	add(t.Encoding != "", fEncoding)
	add(t.Incomplete, fIncomplete)
	add(t.Elem != nil, fElem)
	add(t.Count != 0, fCount)
	add(len(t.Members)+len(t.Bases)+len(t.Virtuals)+len(t.Statics)+len(t.Methods) > 0 || t.Class, fMembers)
	add(len(t.Enumerators) > 0 || t.EnumClass, fEnum)
	add(len(t.Params) > 0 || t.Variadic, fSignature)
	return f
}

// fieldNames names the bits of f, for errors.
func fieldNames(f fields) []string {
	names := []string{"name", "size", "encoding", "incomplete", "elem", "count", "members", "enumerators", "params"}
	var out []string
	for i, n := range names {
		if f&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// maxValidateNodes bounds the nodes Validate visits: a model built from
// shared nodes is a graph, visited once per node, and this bounds even a
// hostile one.
const maxValidateNodes = 1 << 24

// Validate reports the first node of a that no reader would write: a
// reference ({"ref": KEY}) with anything else set, a kind that is not one
// of the kinds above, a field its kind does not have (members on a
// pointer, a count on a struct), or a member, parameter or base without a
// type. It visits each node once.
func (a *ABI) Validate() error {
	v := validator{seen: map[*Type]bool{}}
	for _, s := range a.Symbols {
		if err := v.check(s.Type, "symbol "+s.String()); err != nil {
			return err
		}
	}
	keys := make([]string, 0, len(a.Types))
	for k := range a.Types {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t := a.Types[k]
		if t == nil {
			return fmt.Errorf("type %q: no definition", k)
		}
		if t.Ref != "" {
			return fmt.Errorf("type %q: a reference, not a definition", k)
		}
		if err := v.check(t, "type "+k); err != nil {
			return err
		}
	}
	return nil
}

type validator struct {
	seen  map[*Type]bool
	nodes int
}

func (v *validator) check(t *Type, where string) error {
	if t == nil || v.seen[t] {
		return nil
	}
	v.seen[t] = true
	if v.nodes++; v.nodes > maxValidateNodes {
		return fmt.Errorf("%s: more than %d type nodes", where, maxValidateNodes)
	}
	if t.Ref != "" {
		if t.Kind != "" || t.set() != 0 {
			return fmt.Errorf("%s: reference %q with other fields set", where, t.Ref)
		}
		return nil
	}
	ok, known := allowed[t.Kind]
	if !known {
		return fmt.Errorf("%s: unknown kind %q", where, t.Kind)
	}
	if extra := t.set() &^ ok; extra != 0 {
		return fmt.Errorf("%s: a %s with %v", where, t.Kind, fieldNames(extra))
	}
	if err := v.check(t.Elem, where); err != nil {
		return err
	}
	for _, m := range slices.Concat(t.Members, t.Statics) {
		if m.Type == nil {
			return fmt.Errorf("%s: member %q without a type", where, m.Name)
		}
		if err := v.check(m.Type, where+"."+m.Name); err != nil {
			return err
		}
	}
	for _, b := range t.Bases {
		if b.Type == nil {
			return fmt.Errorf("%s: a base without a type", where)
		}
		if err := v.check(b.Type, where); err != nil {
			return err
		}
	}
	for _, p := range t.Params {
		if p == nil {
			return fmt.Errorf("%s: a parameter without a type", where)
		}
		if err := v.check(p, where); err != nil {
			return err
		}
	}
	return nil
}
