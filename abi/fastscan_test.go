package abi

import (
	"debug/elf"
	"encoding/binary"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestFastScanMatchesScan checks the byte-level index against the one
// built with debug/dwarf Entries, on compiled fixtures and on this
// machine's libc debug file when libc6-dbg is installed.
func TestFastScanMatchesScan(t *testing.T) {
	var files []string
	if _, err := exec.LookPath("gcc"); err == nil {
		for _, g := range []string{"-gdwarf-4", "-gdwarf-5"} {
			out := filepath.Join(t.TempDir(), "libfix.so")
			if b, err := exec.Command("gcc", "-shared", "-fPIC", g, "-o", out, filepath.Join("testdata", "fix.c")).CombinedOutput(); err != nil {
				t.Fatalf("gcc: %v\n%s", err, b)
			}
			files = append(files, out)
		}
	}
	if f, err := elf.Open("/lib/x86_64-linux-gnu/libc.so.6"); err == nil {
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
		ef, err := elf.NewFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, s, err := loadDWARF(ef, DefaultMaxDebugSize)
		if err != nil {
			t.Fatal(err)
		}
		d, err := s.data()
		if err != nil {
			t.Fatal(err)
		}
		for _, names := range []bool{false, true} {
			fast, _, err := fastScan(s, names)
			if err != nil {
				t.Fatalf("%s: fastScan: %v", p, err)
			}
			slow, err := scan(d, names)
			if err != nil {
				t.Fatal(err)
			}
			same := maps.Equal(fast.funcs, slow.funcs) && maps.Equal(fast.vars, slow.vars) &&
				maps.Equal(fast.funcDecls, slow.funcDecls) && maps.Equal(fast.varDecls, slow.varDecls) &&
				maps.Equal(fast.funcAddr, slow.funcAddr) && maps.Equal(fast.varAddr, slow.varAddr) &&
				maps.Equal(fast.defs, slow.defs) && maps.Equal(fast.decls, slow.decls) && len(fast.names) == len(slow.names)
			if !same {
				t.Errorf("%s (names %v): indices differ: funcs %d/%d vars %d/%d addr %d/%d defs %d/%d", p, names,
					len(fast.funcs), len(slow.funcs), len(fast.vars), len(slow.vars), len(fast.funcAddr), len(slow.funcAddr), len(fast.defs), len(slow.defs))
			}
		}
		f.Close()
	}
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
	_, units, err := fastScan(&sections{info: info, abbrev: abbrev, order: binary.LittleEndian}, false)
	laid := 0
	for _, u := range units {
		laid += len(u.tab)
	}
	if laid > len(abbrev) {
		t.Errorf("fastScan laid out %d abbreviations from %d bytes (err %v)", laid, len(abbrev), err)
	}
}
