package abiread

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/abifloor/abifloor/abi/abitext"
	"github.com/abifloor/abifloor/internal/fixture"
)

// FuzzFromELF feeds arbitrary bytes to the ELF and DWARF reader and to
// everything downstream of it. Seeds are a library compiled now and the
// small real libraries of this machine.
func FuzzFromELF(f *testing.F) {
	if fixture.Have("gcc") {
		out := filepath.Join(f.TempDir(), "libfix.so")
		for _, g := range []string{"-gdwarf-4", "-gdwarf-5"} {
			if exec.Command("gcc", "-shared", "-fPIC", g, "-o", out, filepath.Join("testdata", "fix.c")).Run() == nil {
				if b, err := os.ReadFile(out); err == nil {
					f.Add(b)
				}
			}
		}
	}
	if fixture.Have("g++") {
		// C++ DWARF: scopes, classes, specification chains (abidiff's
		// C++ fixture).
		out := filepath.Join(f.TempDir(), "libfixcc.so")
		for _, g := range []string{"-gdwarf-4", "-gdwarf-5"} {
			if exec.Command("g++", "-shared", "-fPIC", g, "-o", out, filepath.Join("..", "..", "abidiff", "testdata", "cxx_v1.cc")).Run() == nil {
				if b, err := os.ReadFile(out); err == nil {
					f.Add(b)
				}
			}
		}
	}
	for _, p := range []string{"/lib/x86_64-linux-gnu/libdl.so.2", "/lib/x86_64-linux-gnu/libutil.so.1"} {
		if b, err := os.ReadFile(p); err == nil && len(b) < 1<<20 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := fromELF("fuzz", data)
		if err != nil {
			return
		}
		if err := a.Validate(); err != nil {
			t.Fatal(err)
		}
		a.TypeFingerprints()
		a.Fingerprint()
		var buf bytes.Buffer
		if err := abitext.WriteText(&buf, a); err != nil {
			t.Fatal(err)
		}
	})
}

// TestOldDump: a dump that lists version nodes as symbols reads as one
// that lists them in versions.
func TestOldDump(t *testing.T) {
	a, err := parseJSON("old.json", []byte(`{"schema": 1, "debug_info": "none", "symbols": [
		{"name": "V_2", "version": "V_2", "default": true, "kind": "object", "binding": "global"},
		{"name": "f", "version": "V_2", "default": true, "kind": "func", "binding": "global"},
		{"name": "V_1", "version": "V_1", "default": true, "kind": "object", "binding": "global"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Symbols) != 1 || a.Symbols[0].Name != "f" || !slices.Equal(a.Versions, []string{"V_1", "V_2"}) {
		t.Errorf("symbols %v, versions %v", a.Symbols, a.Versions)
	}
}
