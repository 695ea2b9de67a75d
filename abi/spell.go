package abi

import (
	"strconv"
	"strings"
)

// Spell writes t as C would declare an unnamed object of that type:
// "const char *", "int (*)(int, ...)", "struct foo[4]". Anonymous
// aggregates are written "struct {...}". A type too large to spell (more
// than spellNodes nodes, or a declarator past spellLen bytes, which only a
// hostile input makes) is cut short with "...".
func Spell(t *Type) string {
	return Declare(t, "")
}

// Declare spells a declaration of inner (a name) with type t, as C writes
// it (int (*f)(void), char name[8]), within Spell's limits.
func Declare(t *Type, inner string) string {
	sp := speller{}
	return strings.TrimSpace(sp.declare(t, inner))
}

// Limits of one spelling: real signatures are a few dozen nodes, and a
// model built from shared nodes can be exponentially larger as text.
const (
	spellNodes = 1 << 14
	spellLen   = 1 << 16
)

type speller struct{ nodes int }

// declare writes t around the declarator inner, C style: the base on the
// left, pointers wrapping inner, arrays and parameter lists on the right.
func (sp *speller) declare(t *Type, inner string) string {
	if sp.nodes++; sp.nodes > spellNodes || len(inner) > spellLen {
		return "..." + pad(inner)
	}
	declare := sp.declare
	if t == nil {
		return "void" + pad(inner)
	}
	if t.Ref != "" {
		return t.Ref + pad(inner)
	}
	switch t.Kind {
	case Pointer, Reference, RvalueReference:
		in := map[Kind]string{Pointer: "*", Reference: "&", RvalueReference: "&&"}[t.Kind] + inner
		if t.Elem != nil && (t.Elem.Kind == Array || t.Elem.Kind == Func) {
			in = "(" + in + ")"
		}
		return declare(t.Elem, in)
	case Array:
		n := ""
		if t.Count > 0 {
			n = strconv.FormatInt(t.Count, 10)
		} else if t.Count == 0 {
			n = "0"
		}
		return declare(t.Elem, inner+"["+n+"]")
	case Func:
		ps := make([]string, 0, len(t.Params)+1)
		n := 0
		for _, p := range t.Params {
			if n > spellLen {
				ps = append(ps, "...")
				break
			}
			ps = append(ps, strings.TrimSpace(sp.declare(p, "")))
			n += len(ps[len(ps)-1])
		}
		if t.Variadic {
			ps = append(ps, "...")
		}
		if len(ps) == 0 {
			ps = append(ps, "void")
		}
		return declare(t.Elem, inner+"("+strings.Join(ps, ", ")+")")
	case Const, Volatile, Restrict:
		q := string(t.Kind)
		if t.Elem != nil && t.Elem.Kind == t.Kind {
			return declare(t.Elem, inner)
		}
		if t.Elem != nil && t.Elem.Kind == Array {
			// A qualified array is an array of qualified elements.
			e := *t.Elem
			e.Elem = &Type{Kind: t.Kind, Elem: e.Elem}
			return declare(&e, inner)
		}
		if t.Elem != nil && (t.Elem.Kind == Pointer || t.Elem.Kind == Reference || t.Elem.Kind == RvalueReference) {
			return declare(t.Elem, q+pad(inner))
		}
		return q + " " + declare(t.Elem, inner)
	case Void:
		return "void" + pad(inner)
	case Struct, Union, Enum:
		if t.Name == "" {
			return string(t.Kind) + " {...}" + pad(inner)
		}
		return Key(t.Kind, t.Name) + pad(inner)
	}
	if t.Name != "" {
		return t.Name + pad(inner)
	}
	return string(t.Kind) + pad(inner)
}

func pad(s string) string {
	if s == "" || strings.HasPrefix(s, "[") || strings.HasPrefix(s, "(") && !strings.HasPrefix(s, "(*") && !strings.HasPrefix(s, "(&") {
		return s
	}
	return " " + s
}
