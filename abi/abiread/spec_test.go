package abiread

import (
	"context"
	"debug/dwarf"
	"encoding/binary"
	"testing"

	"github.com/abifloor/abifloor/abi"
)

// TestSpecificationNamesDefinition: GCC 4.4 writes a C++ class's
// declaration in its namespace and its definition, without DW_AT_name, at
// the top of the unit with DW_AT_specification naming the declaration.
// The definition is the named type (struct N::S), written once and
// referred to, not an anonymous struct expanded inline wherever it is
// used (which made the JSON dump of such libraries hundreds of MB). No
// compiler this project tests with writes this shape, so the DWARF is
// built here, as GCC 4.4 lays it out.
func TestSpecificationNamesDefinition(t *testing.T) {
	info, abbrev := gcc44DWARF()
	for _, fast := range []bool{true, false} {
		a := typesOfF(t, info, abbrev, fast)
		ft := a.Symbols[0].Type
		if ft == nil || ft.Elem == nil || ft.Elem.Kind != abi.Pointer || ft.Elem.Elem == nil || ft.Elem.Elem.Ref != "struct N::S" {
			t.Fatalf("fast=%v: f returns %s, want a pointer to struct N::S by reference", fast, abi.Spell(ft))
		}
		st := a.Types["struct N::S"]
		if st == nil || st.Incomplete || st.Size != 16 || len(st.Members) != 2 || st.Name != "N::S" {
			t.Fatalf("fast=%v: struct N::S: %+v", fast, st)
		}
		if next := st.Members[1].Type; next == nil || next.Kind != abi.Pointer || next.Elem == nil || next.Elem.Ref != "struct N::S" {
			t.Errorf("fast=%v: member next is %s, want struct N::S * by reference", fast, abi.Spell(next))
		}
	}
}

// gcc44DWARF is a unit as GCC 4.4 lays out a C++ class declared in
// namespace N and defined, nameless, with DW_AT_specification: struct
// N::S { int x; N::S *next; }, and a function N::S *f().
func gcc44DWARF() (info, abbrev []byte) {
	abbrev = []byte{
		1, 0x11, 1, 0x13, 0x0b, 0, 0, // compile_unit, children: language
		2, 0x39, 1, 0x03, 0x08, 0, 0, // namespace, children: name
		3, 0x13, 0, 0x03, 0x08, 0x3c, 0x19, 0, 0, // structure_type: name, declaration
		4, 0x13, 1, 0x47, 0x13, 0x0b, 0x0b, 0, 0, // structure_type, children: specification, byte_size
		5, 0x0d, 0, 0x03, 0x08, 0x49, 0x13, 0x38, 0x0b, 0, 0, // member: name, type, data_member_location
		6, 0x0f, 0, 0x0b, 0x0b, 0x49, 0x13, 0, 0, // pointer_type: byte_size, type
		7, 0x24, 0, 0x03, 0x08, 0x0b, 0x0b, 0x3e, 0x0b, 0, 0, // base_type: name, byte_size, encoding
		8, 0x2e, 0, 0x03, 0x08, 0x3f, 0x19, 0x49, 0x13, 0, 0, // subprogram: name, external, type
		0,
	}
	u32 := binary.LittleEndian.AppendUint32
	info = []byte{0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 8} // length (set below), version 4, abbrev 0, address size 8
	info = append(info, 1, 0x04)                   // the unit: DW_LANG_C_plus_plus
	info = append(info, 2, 'N', 0)                 // namespace N
	decl := len(info)
	info = append(info, 3, 'S', 0, 0) // struct S; (declaration), end of N
	// Offsets below are fixed by the layout: def, its two members and
	// the end of its children, then the pointer, int and f.
	def := len(info)
	ptr := def + 6 + 11 + 8 + 1
	intType := ptr + 6
	info = append(info, 4)
	info = u32(info, uint32(decl))
	info = append(info, 16)
	info = append(info, 5, 'x', 0)
	info = u32(info, uint32(intType))
	info = append(info, 0)
	info = append(info, 5, 'n', 'e', 'x', 't', 0)
	info = u32(info, uint32(ptr))
	info = append(info, 8)
	info = append(info, 0) // end of the definition's members
	if len(info) != ptr {
		panic("gcc44DWARF: layout")
	}
	info = append(info, 6, 8)
	info = u32(info, uint32(def))
	info = append(info, 7, 'i', 'n', 't', 0, 4, 5)
	info = append(info, 8, 'f', 0)
	info = u32(info, uint32(ptr))
	info = append(info, 0) // end of the unit
	binary.LittleEndian.PutUint32(info, uint32(len(info)-4))
	return info, abbrev

}

// typesOfF reads the types a function symbol f reaches in hand-built
// DWARF (little-endian .debug_info and .debug_abbrev), by the fast scan
// or, with fast false, by debug/dwarf.
func typesOfF(t *testing.T, info, abbrev []byte, fast bool) *abi.ABI {
	t.Helper()
	s := &sections{info: info, abbrev: abbrev, order: binary.LittleEndian}
	var d *dwarf.Data
	if !fast {
		var err error
		if d, err = s.data(); err != nil {
			t.Fatal(err)
		}
		s = nil
	}
	a := &abi.ABI{Types: map[string]*abi.Type{}, Symbols: []abi.Symbol{{Name: "f", Kind: abi.SymFunc}}}
	if err := typesOf(context.Background(), a, d, s, binary.LittleEndian, len(info), newNameBudget(int64(len(info)), 0), false); err != nil {
		t.Fatal(err)
	}
	return a
}
