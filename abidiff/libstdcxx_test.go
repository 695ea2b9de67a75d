package abidiff_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/abi/abiread"
	"github.com/abifloor/abifloor/abidiff"
)

// libstdcxx returns the directory holding the debug builds of libstdc++
// from GCC 11 and 12 that .ci/fetch-libstdcxx.sh unpacks.
func libstdcxx(t testing.TB) string {
	const debug = "usr/lib/x86_64-linux-gnu/debug"
	root := fetched(t, "ABIFLOOR_LIBSTDCXX", "libstdcxx", "libstdc++ 11 and 12 debug builds",
		debug+"/libstdc++.so.6.0.29", debug+"/libstdc++.so.6.0.30")
	return filepath.Join(root, debug)
}

// TestLibstdcxx11to12 diffs libstdc++ from GCC 11 (6.0.29) and GCC 12
// (6.0.30), DWARF inside. Symbols are checked against the dynamic symbol
// tables read with debug/elf alone; the type changes below were checked
// by hand with readelf --debug-dump=info on both files (the DIE values are
// quoted in the comments).
func TestLibstdcxx11to12(t *testing.T) {
	dir := libstdcxx(t)
	oldPath, newPath := filepath.Join(dir, "libstdc++.so.6.0.29"), filepath.Join(dir, "libstdc++.so.6.0.30")
	old, err := abiread.Load(context.Background(), oldPath, abiread.Options{NoDefaultDebugDir: true})
	if err != nil {
		t.Fatal(err)
	}
	new, err := abiread.Load(context.Background(), newPath, abiread.Options{NoDefaultDebugDir: true})
	if err != nil {
		t.Fatal(err)
	}
	if old.DebugInfo != abi.DebugDWARF || new.DebugInfo != abi.DebugDWARF {
		t.Fatalf("debug info %s, %s", old.DebugInfo, new.DebugInfo)
	}
	r := compare(t, old, new, nil)
	oldSet, newSet := dynsyms(t, oldPath), dynsyms(t, newPath)
	wantRemoved, wantAdded := minus(oldSet, newSet), minus(newSet, oldSet)
	if got := ids(r.Symbols.Removed()); !slices.Equal(got, wantRemoved) {
		t.Errorf("removed = %v\nwant %v", got, wantRemoved)
	}
	if got := ids(r.Symbols.Added()); !slices.Equal(got, wantAdded) {
		t.Errorf("added = %v\nwant %v", got, wantAdded)
	}
	// abidiff reports the same 15 removed functions
	// (basic_string::_M_construct<...> and _M_construct_aux<...>).
	if len(wantRemoved) != 15 {
		t.Errorf("%d removed, abidiff says 15", len(wantRemoved))
	}
	for _, c := range r.Symbols.Changes {
		if c.Kind == abidiff.SymbolRemoved && c.Demangled == "" {
			t.Errorf("%s: not demangled", c.Symbol)
		}
	}

	types := map[string]abidiff.TypeChange{}
	for _, tc := range append(slices.Clone(r.Types), r.PrivateTypes...) {
		types[tc.Name] = tc
	}
	has := func(typ string, incompatible bool, texts ...string) {
		t.Helper()
		tc, ok := types[typ]
		if !ok {
			t.Errorf("%s: no change reported", typ)
			return
		}
		if tc.Incompatible() != incompatible {
			t.Errorf("%s: incompatible %v, want %v: %v", typ, tc.Incompatible(), incompatible, tc.Changes)
		}
		var got []string
		for _, c := range tc.Changes {
			got = append(got, c.String())
		}
		for _, want := range texts {
			if !slices.Contains(got, want) {
				t.Errorf("%s: no %q in %q", typ, want, got)
			}
		}
	}
	// 6.0.29 <305554> DW_TAG_structure_type _Dir_stack: DW_AT_byte_size 88,
	// options @80, pending @81. 6.0.30 <31143c>: byte_size 120, orig @80
	// (a path), options @112, pending @113.
	has("struct std::filesystem::__cxx11::recursive_directory_iterator::_Dir_stack", true,
		"size 88 -> 120", "member options: offset 80 -> 112", "member pending: offset 81 -> 113")
	// 6.0.30 <6cadb> DW_TAG_enumerator _S_noreplace, DW_AT_const_value 64;
	// no _S_noreplace in 6.0.29.
	has("enum std::_Ios_Openmode", false, "enumerator _S_noreplace = 64 added")
	// 6.0.29 unexpectedHandler -> <2001b> DW_TAG_typedef unexpected_handler;
	// 6.0.30 -> <20199> DW_TAG_typedef terminate_handler: both void (*)().
	has("struct __cxxabiv1::__cxa_exception", false,
		"member unexpectedHandler: type std::unexpected_handler -> std::terminate_handler (typedef names only)")
	// GCC 12 moved new_allocator into std as __new_allocator: a base of
	// another name, same layout.
	has("struct std::allocator<char>", false,
		"base struct __gnu_cxx::new_allocator<char> removed (names only, same layout)")

	// The artefacts of issue #12 are gone: __do_catch keeps its return
	// type (it is defined out of line), and nothing is named without its
	// namespace.
	for _, c := range r.Symbols.Changes {
		if c.Symbol == "_ZNK10__cxxabiv117__pbase_type_info10__do_catchEPKSt9type_infoPPvj@@CXXABI_1.3" {
			t.Errorf("__do_catch changed: %s", c)
		}
		if c.Kind == abidiff.SymbolType && !c.Compatible {
			t.Errorf("incompatible signature change: %s", c)
		}
	}
	// In C++, f() takes nothing: no symbol lacks type information.
	if len(r.Untyped) > 0 {
		t.Errorf("%d symbols untyped: %q", len(r.Untyped), r.Untyped[:min(5, len(r.Untyped))])
	}
	if _, ok := types["std::__detected_or_t"]; ok {
		t.Error("the alias template std::__detected_or_t is compared as one type")
	}
	if s := symbolNamed(old, "_ZNK10__cxxabiv117__pbase_type_info10__do_catchEPKSt9type_infoPPvj"); s == nil ||
		abi.Spell(s.Type) != "bool(const struct __cxxabiv1::__pbase_type_info *, const struct std::type_info *, void **, unsigned int)" {
		t.Errorf("__do_catch: %+v", s)
	}
}
