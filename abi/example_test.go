package abi_test

import (
	"fmt"

	"github.com/abifloor/abifloor/abi"
)

// An ABI is plain data: built by hand here, as a reader (abi/abiread)
// builds it from DWARF, then spelled, encoded and fingerprinted with the
// model alone.
func Example() {
	a := &abi.ABI{
		Schema:    abi.Schema,
		SOName:    "libpoint.so.1",
		DebugInfo: abi.DebugDWARF,
		Types: map[string]*abi.Type{
			"int": {Kind: abi.Base, Name: "int", Size: 4, Encoding: "signed"},
			"struct point": {Kind: abi.Struct, Name: "point", Size: 8, Members: []abi.Member{
				{Name: "x", Type: &abi.Type{Ref: "int"}},
				{Name: "y", Offset: 4, Type: &abi.Type{Ref: "int"}},
			}},
		},
		Symbols: []abi.Symbol{{
			Name: "point_norm", Version: "POINT_1", Default: true,
			Kind: abi.SymFunc, Binding: abi.BindGlobal,
			Type: &abi.Type{Kind: abi.Func, Elem: &abi.Type{Ref: "int"}, Params: []*abi.Type{
				{Kind: abi.Pointer, Size: 8, Elem: &abi.Type{Kind: abi.Const, Elem: &abi.Type{Ref: "struct point"}}},
			}},
		}},
	}
	s := a.Symbols[0]
	fmt.Println(s, "is", abi.Declare(s.Type, s.Name))
	fmt.Println(a.Types["struct point"].Refs())
	fmt.Printf("%s\n", a.Canonical()[:60])
	fmt.Println(a.Fingerprint() == (&abi.ABI{Schema: abi.Schema, SOName: "libpoint.so.1"}).Fingerprint())
	// Output:
	// point_norm@@POINT_1 is int point_norm(const struct point *)
	// [int]
	// {"schema":2,"soname":"libpoint.so.1","debug_info":"dwarf","s
	// false
}
