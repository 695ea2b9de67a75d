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
		if got := newComparer(a, a).sameUnderlying(tt.o, tt.n); got != tt.same {
			t.Errorf("%s vs %s: %v, want %v", abi.Spell(tt.o), abi.Spell(tt.n), got, tt.same)
		}
	}
}

func TestSameLayout(t *testing.T) {
	long := &abi.Type{Kind: abi.Base, Name: "long int", Size: 8, Encoding: "signed"}
	ulong := &abi.Type{Kind: abi.Base, Name: "long unsigned int", Size: 8, Encoding: "unsigned"}
	member := func(name string, off int64, ty string) abi.Member {
		return abi.Member{Name: name, Offset: off, Type: &abi.Type{Ref: ty}}
	}
	a := &abi.ABI{Types: map[string]*abi.Type{
		"long int":          long,
		"long long int":     {Kind: abi.Base, Name: "long long int", Size: 8, Encoding: "signed"},
		"long unsigned int": ulong,
		"ino_t":             {Kind: abi.Typedef, Name: "ino_t", Elem: &abi.Type{Ref: "long unsigned int"}},
		"ino64_t":           {Kind: abi.Typedef, Name: "ino64_t", Elem: &abi.Type{Ref: "long unsigned int"}},
		"struct stat":       {Kind: abi.Struct, Name: "stat", Size: 16, Members: []abi.Member{member("st_ino", 0, "ino_t"), member("st_size", 8, "long int")}},
		"struct stat64":     {Kind: abi.Struct, Name: "stat64", Size: 16, Members: []abi.Member{member("st_ino", 0, "ino64_t"), member("st_size", 8, "long int")}},
		"struct moved":      {Kind: abi.Struct, Name: "moved", Size: 16, Members: []abi.Member{member("st_size", 0, "long int"), member("st_ino", 8, "ino_t")}},
		"struct list":       {Kind: abi.Struct, Name: "list", Size: 8, Members: []abi.Member{{Name: "next", Type: &abi.Type{Kind: abi.Pointer, Size: 8, Elem: &abi.Type{Ref: "struct list"}}}}},
		"struct list2":      {Kind: abi.Struct, Name: "list2", Size: 8, Members: []abi.Member{{Name: "next", Type: &abi.Type{Kind: abi.Pointer, Size: 8, Elem: &abi.Type{Ref: "struct list2"}}}}},
	}}
	ptr := func(k string) *abi.Type { return &abi.Type{Kind: abi.Pointer, Size: 8, Elem: &abi.Type{Ref: k}} }
	ref := func(k string) *abi.Type { return &abi.Type{Ref: k} }
	for _, tt := range []struct {
		o, n *abi.Type
		same bool
	}{
		{ptr("struct stat"), ptr("struct stat64"), true},
		{ref("long long int"), ref("long int"), true},
		{ref("long unsigned int"), ref("long int"), false},
		{ptr("struct stat"), ptr("struct moved"), false},
		{ref("struct list"), ref("struct list2"), true}, // recursive, ends
		{&abi.Type{Kind: abi.Const, Elem: ref("long int")}, ref("long int"), false},
	} {
		if got := newComparer(a, a).sameLayout(tt.o, tt.n); got != tt.same {
			t.Errorf("%s vs %s: %v, want %v", abi.Spell(tt.o), abi.Spell(tt.n), got, tt.same)
		}
	}
}
