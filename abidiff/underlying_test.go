package abidiff

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/abi/abiread"
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
		if got := newComparer(context.Background(), a, a).sameUnderlying(tt.o, tt.n); got != tt.same {
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
		if got := newComparer(context.Background(), a, a).sameLayout(tt.o, tt.n); got != tt.same {
			t.Errorf("%s vs %s: %v, want %v", abi.Spell(tt.o), abi.Spell(tt.n), got, tt.same)
		}
	}
}

// TestFlattenedLayout: glibc 2.34 turned the anonymous unions of struct
// __pthread_cond_s into members of the named union __atomic_wide_counter,
// at the same offsets with the same scalars: names only, same layout.
func TestFlattenedLayout(t *testing.T) {
	u32 := &abi.Type{Ref: "unsigned int"}
	u64 := &abi.Type{Ref: "long long unsigned int"}
	halves := &abi.Type{Kind: abi.Struct, Size: 8, Members: []abi.Member{{Name: "__low", Type: u32}, {Name: "__high", Offset: 4, Type: u32}}}
	wide := func(n64, n32 string) *abi.Type {
		return &abi.Type{Kind: abi.Union, Size: 8, Members: []abi.Member{{Name: n64, Type: u64}, {Name: n32, Type: halves}}}
	}
	base := map[string]*abi.Type{
		"unsigned int":           {Kind: abi.Base, Name: "unsigned int", Size: 4, Encoding: "unsigned"},
		"long long unsigned int": {Kind: abi.Base, Name: "long long unsigned int", Size: 8, Encoding: "unsigned"},
		"int":                    {Kind: abi.Base, Name: "int", Size: 4, Encoding: "signed"},
	}
	old := &abi.ABI{DebugInfo: abi.DebugDWARF, Types: maps.Clone(base)}
	old.Types["struct __pthread_cond_s"] = &abi.Type{Kind: abi.Struct, Name: "__pthread_cond_s", Size: 20, Members: []abi.Member{
		{Type: wide("__wseq", "__wseq32")}, {Offset: 8, Type: wide("__g1_start", "__g1_start32")}, {Name: "__flags", Offset: 16, Type: u32}}}
	new := &abi.ABI{DebugInfo: abi.DebugDWARF, Types: maps.Clone(base)}
	new.Types["__atomic_wide_counter"] = &abi.Type{Kind: abi.Typedef, Name: "__atomic_wide_counter", Elem: wide("__value64", "__value32")}
	new.Types["struct __pthread_cond_s"] = &abi.Type{Kind: abi.Struct, Name: "__pthread_cond_s", Size: 20, Members: []abi.Member{
		{Name: "__wseq", Type: &abi.Type{Ref: "__atomic_wide_counter"}}, {Name: "__g1_start", Offset: 8, Type: &abi.Type{Ref: "__atomic_wide_counter"}},
		{Name: "__flags", Offset: 16, Type: u32}}}
	r := compare(t, old, new, nil)
	if !r.Compatible || len(r.Types) != 1 {
		t.Fatalf("compatible %v, types %+v", r.Compatible, r.Types)
	}
	for _, c := range r.Types[0].Changes {
		if !c.Compatible || c.Note != "names only, same layout" {
			t.Errorf("%s: compatible %v, note %q", c, c.Compatible, c.Note)
		}
	}
	// The same change with the high half moved is a real one.
	moved := wide("__value64", "__value32")
	moved.Members[1].Type = &abi.Type{Kind: abi.Struct, Size: 8, Members: []abi.Member{{Name: "__low", Type: u32}, {Name: "__high", Offset: 4, Type: &abi.Type{Ref: "int"}}}}
	new.Types["__atomic_wide_counter"] = &abi.Type{Kind: abi.Typedef, Name: "__atomic_wide_counter", Elem: moved}
	if r := compare(t, old, new, nil); r.Compatible {
		t.Errorf("an unsigned half that became signed is compatible: %+v", r.Types)
	}
}

// TestNoTypeInformation: a function known only as f(...) (assembly, or a
// builtin declaration) has no type information: not a change.
func TestNoTypeInformation(t *testing.T) {
	fn := func(ret abi.Kind) *abi.Type {
		return &abi.Type{Kind: abi.Func, Elem: &abi.Type{Kind: ret}, Variadic: true}
	}
	sym := func(ty *abi.Type) []abi.Symbol {
		return []abi.Symbol{{Name: "memcpy", Version: "GLIBC_2.2.5", Kind: abi.SymFunc, Binding: abi.BindGlobal, Type: ty}}
	}
	old := &abi.ABI{DebugInfo: abi.DebugDWARF, Symbols: sym(fn(abi.Void)), Types: map[string]*abi.Type{}}
	new := &abi.ABI{DebugInfo: abi.DebugDWARF, Symbols: sym(fn(abi.Unknown)), Types: map[string]*abi.Type{}}
	r := compare(t, old, new, nil)
	if r.Changed() || !r.Compatible {
		t.Errorf("changes: %v", r.Symbols.Changed())
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "no type information") || !slices.Equal(r.Untyped, []string{"memcpy@GLIBC_2.2.5"}) {
		t.Errorf("notes %q", r.Notes)
	}
}

// TestTypedefChainStack: a chain of 200,000 typedefs in ABI JSON, each
// naming the next, is compared without recursing once per link: the
// expansion stops at maxExpand. The stack is held to 16 MB here, so an
// unbounded recursion would end the test binary, not pass.
func TestTypedefChainStack(t *testing.T) {
	const n = 200000
	var b strings.Builder
	b.WriteString(`{"schema": 1, "debug_info": "dwarf", "types": {"int": {"kind": "base", "name": "int", "size": 4, "encoding": "signed"}`)
	for i := 0; i < n; i++ {
		next := fmt.Sprintf("t%d", i+1)
		if i == n-1 {
			next = "int"
		}
		fmt.Fprintf(&b, `,"t%d": {"kind": "typedef", "name": "t%d", "elem": {"kind": "pointer", "size": 8, "elem": {"ref": %q}}}`, i, i, next)
	}
	b.WriteString(`}, "symbols": [{"name": "f", "kind": "func", "binding": "global", "type": {"kind": "func", "elem": {"ref": "int"}, "params": [{"ref": "t0"}]}}]}`)
	p := filepath.Join(t.TempDir(), "chain.json")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := abiread.Load(context.Background(), p, abiread.Options{NoDefaultDebugDir: true})
	if err != nil {
		t.Fatal(err)
	}
	defer debug.SetMaxStack(debug.SetMaxStack(16 << 20))
	c := newComparer(context.Background(), a, a)
	if !c.sameUnderlying(&abi.Type{Ref: "t0"}, &abi.Type{Ref: "t0"}) {
		t.Error("a chain differs from itself")
	}
}

// compare is Compare under a context that never ends.
func compare(t testing.TB, old, new *abi.ABI, sup *Suppressions) Report {
	t.Helper()
	r, err := Compare(context.Background(), old, new, sup, abiread.Demangler{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
