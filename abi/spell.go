package abi

import (
	"strconv"
	"strings"
)

// Spell writes t as C would declare an unnamed object of that type:
// "const char *", "int (*)(int, ...)", "struct foo[4]". Anonymous
// aggregates are written "struct {...}".
func Spell(t *Type) string {
	return strings.TrimSpace(declare(t, ""))
}

// declare writes t around the declarator inner, C style: the base on the
// left, pointers wrapping inner, arrays and parameter lists on the right.
func declare(t *Type, inner string) string {
	if t == nil {
		return "void" + pad(inner)
	}
	if t.Ref != "" {
		return t.Ref + pad(inner)
	}
	switch t.Kind {
	case Pointer:
		in := "*" + inner
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
		for _, p := range t.Params {
			ps = append(ps, Spell(p))
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
		if t.Elem != nil && t.Elem.Kind == Pointer {
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
	if s == "" || strings.HasPrefix(s, "[") || strings.HasPrefix(s, "(") && !strings.HasPrefix(s, "(*") {
		return s
	}
	return " " + s
}
