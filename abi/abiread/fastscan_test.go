package abiread

import (
	"context"
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"testing"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/fixture"
)

// TestFastScanMatchesScan checks the byte-level index against the one
// built with debug/dwarf Entries, on compiled fixtures and on this
// machine's libc debug file when libc6-dbg is installed.
func TestFastScanMatchesScan(t *testing.T) {
	var files []string
	if fixture.Have("gcc") {
		for _, g := range []string{"-gdwarf-4", "-gdwarf-5"} {
			out := filepath.Join(t.TempDir(), "libfix.so")
			if b, err := exec.Command("gcc", "-shared", "-fPIC", g, "-o", out, filepath.Join("testdata", "fix.c")).CombinedOutput(); err != nil {
				t.Fatalf("gcc: %v\n%s", err, b)
			}
			files = append(files, out)
		}
	}
	// clang's DWARF 5 names strings and addresses by index (strx,
	// addrx, DW_OP_addrx).
	if fixture.Have("clang") {
		out := filepath.Join(t.TempDir(), "libfixclang.so")
		if b, err := exec.Command("clang", "-shared", "-fPIC", "-gdwarf-5", "-o", out, filepath.Join("testdata", "fix.c")).CombinedOutput(); err != nil {
			t.Fatalf("clang: %v\n%s", err, b)
		}
		files = append(files, out)
	} else {
		t.Log("clang not installed: its DWARF 5 is not checked")
	}
	if f, err := elfx.Open("/lib/x86_64-linux-gnu/libc.so.6"); err == nil {
		if p, dbg := findDebug(f, "/lib/x86_64-linux-gnu/libc.so.6", Options{}); dbg != nil {
			dbg.Close()
			files = append(files, p)
		}
		f.Close()
	}
	if dir := os.Getenv("ABIFLOOR_BULLSEYE"); dir != "" {
		// glibc 2.31's debug file: DWARF 4 from GCC 10.
		m, _ := filepath.Glob(filepath.Join(dir, "usr/lib/debug/.build-id/*/*.debug"))
		for _, p := range m {
			if f, err := elf.Open(p); err == nil {
				if s := f.Section(".debug_info"); s != nil && s.Size > 1<<20 {
					files = append(files, p)
				}
				f.Close()
			}
		}
	}
	if len(files) == 0 {
		t.Skip("gcc not installed and no libc debug info")
	}
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		st, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		ef, err := openELF(f, st.Size(), DefaultMaxDebugSize)
		if err != nil {
			t.Fatal(err)
		}
		_, s, _, err := loadDWARF(ef, DefaultMaxDebugSize)
		if err != nil {
			t.Fatal(err)
		}
		d, err := s.data()
		if err != nil {
			t.Fatal(err)
		}
		for _, names := range []bool{false, true} {
			fast, _, err := fastScan(context.Background(), s, names)
			if err != nil {
				t.Fatalf("%s: fastScan: %v", p, err)
			}
			slow, err := scan(context.Background(), d, names, nil)
			if err != nil {
				t.Fatal(err)
			}
			same := maps.Equal(fast.funcs, slow.funcs) && maps.Equal(fast.vars, slow.vars) &&
				maps.Equal(fast.funcDecls, slow.funcDecls) && maps.Equal(fast.varDecls, slow.varDecls) &&
				maps.Equal(fast.funcAddr, slow.funcAddr) && subset(slow.varAddr, fast.varAddr) &&
				maps.Equal(fast.defs, slow.defs) && maps.Equal(fast.decls, slow.decls) && len(fast.names) == len(slow.names)
			if !same {
				t.Errorf("%s (names %v): indices differ: funcs %d/%d vars %d/%d addr %d/%d varaddr %v/%v defs %d/%d", p, names,
					len(fast.funcs), len(slow.funcs), len(fast.vars), len(slow.vars), len(fast.funcAddr), len(slow.funcAddr), fast.varAddr, slow.varAddr, len(fast.defs), len(slow.defs))
			}
		}
		f.Close()
	}
}

// subset reports whether every entry of a is in b. The fast scan finds
// variables by a DW_OP_addrx location too (clang's DWARF 5), which the
// slow path, without .debug_addr, cannot resolve; otherwise they agree.
func subset(a, b map[uint64]dwarf.Offset) bool {
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return len(a) == len(b) || len(a) == 0
}

// TestAbbrevGapBomb: abbreviation codes may skip numbers, and each table
// is laid out by code. Many units, each naming its own few-byte table
// whose one code is in the thousands, made the tables together cost
// (abbrev bytes)² entries. What the fast scan lays out stays within the
// section's bytes; past that it leaves the file to the general reader.
func TestAbbrevGapBomb(t *testing.T) {
	const tables, code = 512, 8000
	uleb := func(b []byte, v uint64) []byte {
		for ; v >= 0x80; v >>= 7 {
			b = append(b, byte(v)|0x80)
		}
		return append(b, byte(v))
	}
	var abbrev, info []byte
	for range tables {
		off := len(abbrev)
		abbrev = uleb(abbrev, code)
		abbrev = append(abbrev, 0x11, 0, 0, 0, 0) // tag compile_unit, no children, no attributes; end of table
		// A DWARF 4 unit: length, version, abbrev offset, address size,
		// and a null entry.
		info = binary.LittleEndian.AppendUint32(info, 8)
		info = binary.LittleEndian.AppendUint16(info, 4)
		info = binary.LittleEndian.AppendUint32(info, uint32(off))
		info = append(info, 8, 0)
	}
	abbrev = append(abbrev, make([]byte, code-len(abbrev))...)
	_, units, err := fastScan(context.Background(), &sections{info: info, abbrev: abbrev, order: binary.LittleEndian}, false)
	laid := 0
	for _, u := range units {
		laid += len(u.tab)
	}
	if laid > len(abbrev) {
		t.Errorf("fastScan laid out %d abbreviations from %d bytes (err %v)", laid, len(abbrev), err)
	}
}

// TestSharedTypeBomb: function types whose two parameters are the type of
// the level below make a tree of 2^levels nodes from a few bytes per
// level. The builder stops the tree once it outgrows the input, on the
// path debug/dwarf reads (relocatable objects) as on the fast one.
func TestSharedTypeBomb(t *testing.T) {
	abbrev := []byte{
		1, 0x11, 1, 0, 0, // compile_unit, children
		2, 0x2e, 0, 0x03, 0x08, 0x3f, 0x19, 0x49, 0x13, 0, 0, // subprogram: name, external, type
		3, 0x15, 1, 0x27, 0x19, 0, 0, // subroutine_type, children: prototyped
		4, 0x05, 0, 0x49, 0x13, 0, 0, // formal_parameter: type
		0,
	}
	const levels = 40
	info := []byte{0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 8, 1} // length (set below), version 4, abbrev 0, address size 8; the unit DIE
	prev := len(info)
	info = append(info, 3, 0) // level 0: void ()
	for range levels {
		off := len(info)
		info = append(info, 3)
		for range 2 {
			info = append(info, 4)
			info = binary.LittleEndian.AppendUint32(info, uint32(prev))
		}
		info = append(info, 0)
		prev = off
	}
	info = append(info, 2, 'f', 0)
	info = binary.LittleEndian.AppendUint32(info, uint32(prev))
	info = append(info, 0)
	binary.LittleEndian.PutUint32(info, uint32(len(info)-4))
	limit := 1 << 16
	for _, fast := range []bool{true, false} {
		a := typesOfF(t, info, abbrev, fast)
		if a.Symbols[0].Type == nil {
			t.Fatalf("fast=%v: f has no type", fast)
		}
		if n := countNodes(a.Symbols[0].Type, limit+1); n > limit {
			t.Errorf("fast=%v: the type of f has more than %d nodes, from %d bytes of DWARF", fast, limit, len(info))
		}
	}
}

// countNodes counts the nodes of t written as a tree, stopping past max.
func countNodes(t *abi.Type, max int) int {
	if t == nil {
		return 0
	}
	n := 1
	for _, c := range append([]*abi.Type{t.Elem}, t.Params...) {
		if n += countNodes(c, max-n); n > max {
			return n
		}
	}
	for _, ms := range [][]abi.Member{t.Members, t.Statics} {
		for _, m := range ms {
			if n += countNodes(m.Type, max-n); n > max {
				return n
			}
		}
	}
	for _, b := range t.Bases {
		if n += countNodes(b.Type, max-n); n > max {
			return n
		}
	}
	return n
}

// TestNamedChainStack: each named type is built where it is first used,
// and its depth count starts again from zero, so a chain of typedefs each
// naming the next recursed once per link: a few bytes a link, and a
// compressed .debug_info of a few MB, overflowed the goroutine stack
// (a fatal error, not a panic). Named types nest to maxNamed at most.
func TestNamedChainStack(t *testing.T) {
	abbrev := []byte{
		1, 0x11, 1, 0, 0, // compile_unit, children
		2, 0x2e, 0, 0x03, 0x08, 0x3f, 0x19, 0x49, 0x13, 0, 0, // subprogram: name, external, type
		3, 0x16, 0, 0x03, 0x08, 0x49, 0x13, 0, 0, // typedef: name, type
		0,
	}
	const links = 200_000
	info := []byte{0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 8, 1} // as in TestSharedTypeBomb
	// Link i names link i+1; the last names void.
	first := len(info)
	for i := range links {
		next := len(info) + 1 + len(strconv.Itoa(i)) + 2 + 4
		info = append(info, 3, 't')
		info = append(info, strconv.Itoa(i)...)
		info = append(info, 0)
		if i == links-1 {
			next = 0
		}
		info = binary.LittleEndian.AppendUint32(info, uint32(next))
	}
	info = append(info, 2, 'f', 0)
	info = binary.LittleEndian.AppendUint32(info, uint32(first))
	info = append(info, 0)
	binary.LittleEndian.PutUint32(info, uint32(len(info)-4))
	defer debug.SetMaxStack(debug.SetMaxStack(64 << 20))
	a := &abi.ABI{Types: map[string]*abi.Type{}, Symbols: []abi.Symbol{{Name: "f", Kind: abi.SymFunc}}}
	s := &sections{info: info, abbrev: abbrev, order: binary.LittleEndian}
	if err := typesOf(context.Background(), a, nil, s, binary.LittleEndian, 1<<24, newNameBudget(s.dwarfBytes(), 0), false); err != nil {
		t.Fatal(err)
	}
	if a.Symbols[0].Type == nil || len(a.Types) > maxNamed+1 {
		t.Errorf("f: %v; %d named types, want at most %d", a.Symbols[0].Type, len(a.Types), maxNamed+1)
	}
}
