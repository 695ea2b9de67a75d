package abi

import "testing"

func TestSpell(t *testing.T) {
	ref := func(k string) *Type { return &Type{Ref: k} }
	ptr := func(e *Type) *Type { return &Type{Kind: Pointer, Size: 8, Elem: e} }
	tests := []struct {
		t    *Type
		want string
	}{
		{ref("int"), "int"},
		{nil, "void"},
		{ptr(ref("char")), "char *"},
		{ptr(&Type{Kind: Const, Elem: ref("char")}), "const char *"},
		{&Type{Kind: Const, Elem: ptr(ref("char"))}, "char *const"},
		{ptr(ptr(ref("struct foo"))), "struct foo **"},
		{&Type{Kind: Array, Count: 4, Elem: ref("int")}, "int[4]"},
		{&Type{Kind: Array, Count: -1, Elem: ref("int")}, "int[]"},
		{&Type{Kind: Array, Count: 2, Elem: &Type{Kind: Array, Count: 3, Elem: ref("int")}}, "int[2][3]"},
		{ptr(&Type{Kind: Func, Elem: ref("int"), Params: []*Type{ref("int")}, Variadic: true}), "int (*)(int, ...)"},
		{ptr(&Type{Kind: Array, Count: 8, Elem: ref("char")}), "char (*)[8]"},
		{&Type{Kind: Func}, "void(void)"},
		{&Type{Kind: Struct}, "struct {...}"},
		{&Type{Kind: Const, Elem: &Type{Kind: Array, Count: 2, Elem: &Type{Kind: Const, Elem: ptr(&Type{Kind: Const, Elem: ref("char")})}}}, "const char *const[2]"},
	}
	for _, tt := range tests {
		if got := Spell(tt.t); got != tt.want {
			t.Errorf("Spell(%+v) = %q, want %q", tt.t, got, tt.want)
		}
	}
}
