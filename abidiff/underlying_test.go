package abidiff

import (
	"testing"

	"github.com/abifloor/abifloor/abi"
)

func TestSameUnderlying(t *testing.T) {
	a := &abi.ABI{Types: map[string]*abi.Type{
		"long int":   {Kind: abi.Base, Name: "long int", Size: 8, Encoding: "signed"},
		"int":        {Kind: abi.Base, Name: "int", Size: 4, Encoding: "signed"},
		"intmax_t":   {Kind: abi.Typedef, Name: "intmax_t", Elem: &abi.Type{Ref: "__intmax_t"}},
		"__intmax_t": {Kind: abi.Typedef, Name: "__intmax_t", Elem: &abi.Type{Ref: "long int"}},
		"struct s":   {Kind: abi.Struct, Name: "s", Size: 8},
		"s_t":        {Kind: abi.Typedef, Name: "s_t", Elem: &abi.Type{Ref: "struct s"}},
	}}
	ptr := func(e *abi.Type) *abi.Type { return &abi.Type{Kind: abi.Pointer, Size: 8, Elem: e} }
	ref := func(k string) *abi.Type { return &abi.Type{Ref: k} }
	tests := []struct {
		o, n *abi.Type
		same bool
	}{
		{ref("intmax_t"), ref("long int"), true},
		{ref("intmax_t"), ref("int"), false},
		{ptr(ref("s_t")), ptr(ref("struct s")), true},
		{&abi.Type{Kind: abi.Restrict, Elem: ptr(ref("int"))}, ptr(ref("int")), true},
		{&abi.Type{Kind: abi.Func, Elem: ref("intmax_t"), Params: []*abi.Type{ref("s_t")}},
			&abi.Type{Kind: abi.Func, Elem: ref("long int"), Params: []*abi.Type{ref("struct s")}}, true},
		{&abi.Type{Kind: abi.Const, Elem: ref("int")}, ref("int"), false},
	}
	for _, tt := range tests {
		if got := sameUnderlying(a, a, tt.o, tt.n); got != tt.same {
			t.Errorf("%s vs %s: %v, want %v", abi.Spell(tt.o), abi.Spell(tt.n), got, tt.same)
		}
	}
}
