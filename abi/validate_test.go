package abi_test

import (
	"strings"
	"testing"

	"github.com/abifloor/abifloor/abi"
)

func TestValidate(t *testing.T) {
	ref := func(k string) *abi.Type { return &abi.Type{Ref: k} }
	good := &abi.ABI{Types: map[string]*abi.Type{
		"int":      {Kind: abi.Base, Name: "int", Size: 4, Encoding: "signed"},
		"struct s": {Kind: abi.Struct, Name: "s", Size: 8, Members: []abi.Member{{Name: "next", Type: &abi.Type{Kind: abi.Pointer, Size: 8, Elem: ref("struct s")}}}},
		"enum e":   {Kind: abi.Enum, Name: "e", Size: 4, Enumerators: []abi.Enumerator{{Name: "A"}}},
	}, Symbols: []abi.Symbol{{Name: "f", Type: &abi.Type{Kind: abi.Func, Elem: ref("int"), Params: []*abi.Type{{Kind: abi.Array, Count: 4, Elem: ref("int")}}, Variadic: true}}}}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		t    *abi.Type
		want string
	}{
		{&abi.Type{Ref: "int", Size: 4}, "reference"},
		{&abi.Type{Kind: "klass"}, "unknown kind"},
		{&abi.Type{Kind: abi.Pointer, Size: 8, Members: []abi.Member{{Name: "x", Type: ref("int")}}}, "a pointer with [members]"},
		{&abi.Type{Kind: abi.Struct, Count: 3}, "a struct with [count]"},
		{&abi.Type{Kind: abi.Func, Params: []*abi.Type{nil}}, "parameter without a type"},
		{&abi.Type{Kind: abi.Struct, Members: []abi.Member{{Name: "m"}}}, `member "m" without a type`},
		{&abi.Type{Kind: abi.Const, Elem: &abi.Type{Kind: abi.Base, Enumerators: []abi.Enumerator{{Name: "A"}}}}, "a base with [enumerators]"},
	} {
		a := &abi.ABI{Types: map[string]*abi.Type{}, Symbols: []abi.Symbol{{Name: "v", Type: c.t}}}
		if err := a.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.t, err, c.want)
		}
	}
	if err := (&abi.ABI{Types: map[string]*abi.Type{"x": ref("int")}}).Validate(); err == nil {
		t.Error("a named type that is a reference")
	}
}
