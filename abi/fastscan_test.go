package abi

import (
	"debug/elf"
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
