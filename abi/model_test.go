package abi

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
)

func list(member string) map[string]*Type {
	return map[string]*Type{
		"int": {Kind: Base, Name: "int", Size: 4, Encoding: "signed"},
		"struct a": {Kind: Struct, Name: "a", Size: 16, Members: []Member{
			{Name: "next", Type: &Type{Kind: Pointer, Size: 8, Elem: &Type{Ref: "struct b"}}},
			{Name: member, Offset: 8, Type: &Type{Ref: "int"}},
		}},
		"struct b": {Kind: Struct, Name: "b", Size: 8, Members: []Member{
			{Name: "back", Type: &Type{Kind: Pointer, Size: 8, Elem: &Type{Ref: "struct a"}}},
		}},
		"struct c": {Kind: Struct, Name: "c", Size: 8, Members: []Member{
			{Name: "self", Type: &Type{Kind: Pointer, Size: 8, Elem: &Type{Ref: "struct c"}}},
		}},
	}
}

func TestTypeFingerprints(t *testing.T) {
	a := &ABI{Schema: Schema, Types: list("v")}
	f1 := a.TypeFingerprints()
	f2 := (&ABI{Schema: Schema, Types: list("v")}).TypeFingerprints()
	for k, v := range f1 {
		if f2[k] != v {
			t.Errorf("%s: not stable", k)
		}
	}
	g := (&ABI{Schema: Schema, Types: list("w")}).TypeFingerprints()
	tests := []struct {
		key     string
		changed bool
	}{
		{"struct a", true},  // its member was renamed
		{"struct b", true},  // it reaches struct a
		{"struct c", false}, // unrelated, self-referential
		{"int", false},
	}
	for _, tt := range tests {
		if (f1[tt.key] != g[tt.key]) != tt.changed {
			t.Errorf("%s: changed=%v, want %v", tt.key, f1[tt.key] != g[tt.key], tt.changed)
		}
	}
	if f1["struct a"] == f1["struct b"] {
		t.Error("a and b share a fingerprint")
	}
}

func TestCanonicalOrder(t *testing.T) {
	x := &ABI{Schema: Schema, Symbols: []Symbol{{Name: "b"}, {Name: "a", Version: "V2"}, {Name: "a", Version: "V1"}}}
	y := &ABI{Schema: Schema, Symbols: []Symbol{{Name: "a", Version: "V1"}, {Name: "b"}, {Name: "a", Version: "V2"}}}
	if !bytes.Equal(x.Canonical(), y.Canonical()) || x.Fingerprint() != y.Fingerprint() {
		t.Errorf("order changes the canonical form:\n%s\n%s", x.Canonical(), y.Canonical())
	}
	x.DebugFile = "/elsewhere"
	if x.Fingerprint() != y.Fingerprint() {
		t.Error("debug file changes the fingerprint")
	}
	// The JSON of a dump carries the fingerprint; reading it back drops
	// it, and the canonical form never has it.
	js, err := json.Marshal(x)
	if err != nil || !bytes.HasSuffix(js, []byte(`,"fingerprint":"`+x.Fingerprint()+`"}`)) {
		t.Errorf("JSON %s, %v", js, err)
	}
	var back ABI
	if err := json.Unmarshal(append(js[:len(js)-len(`"}`)], `x"}`...), &back); err != nil || back.Fingerprint() != x.Fingerprint() {
		t.Errorf("read back: %v, fingerprint %s", err, back.Fingerprint())
	}
}

func TestSymbolString(t *testing.T) {
	tests := []struct {
		s       Symbol
		str, id string
	}{
		{Symbol{Name: "f"}, "f", "f"},
		{Symbol{Name: "f", Version: "V_1"}, "f@V_1", "f@V_1"},
		{Symbol{Name: "f", Version: "V_1", Default: true}, "f@@V_1", "f@V_1"},
	}
	for _, tt := range tests {
		if tt.s.String() != tt.str || tt.s.ID() != tt.id {
			t.Errorf("%+v: %s %s", tt.s, tt.s.String(), tt.s.ID())
		}
	}
}

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
			if exec.Command("g++", "-shared", "-fPIC", g, "-o", out, filepath.Join("..", "abidiff", "testdata", "cxx_v1.cc")).Run() == nil {
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
		a.TypeFingerprints()
		a.Fingerprint()
		var buf bytes.Buffer
		if err := WriteText(&buf, a); err != nil {
			t.Fatal(err)
		}
	})
}

func BenchmarkCanonical(b *testing.B) {
	a := &ABI{Schema: Schema, Types: list("v")}
	for range b.N {
		a.Fingerprint()
	}
}

// TestShared encodes one unsorted ABI from several goroutines: Canonical,
// Fingerprint and WriteText must not sort the caller's slices (run with
// -race), and must leave them as they were.
func TestShared(t *testing.T) {
	a := &ABI{Schema: Schema, Types: list("v"),
		Symbols:   []Symbol{{Name: "z", Kind: "func"}, {Name: "a", Kind: "func"}, {Name: "m", Kind: "object"}},
		Constants: []Constant{{Name: "Z"}, {Name: "A"}},
		Roots:     []string{"struct c", "struct a"},
	}
	want := a.Fingerprint()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if got := a.Fingerprint(); got != want {
					t.Errorf("fingerprint %s, want %s", got, want)
				}
				a.TypeFingerprints()
				WriteText(io.Discard, a)
			}
		}()
	}
	wg.Wait()
	if a.Symbols[0].Name != "z" || a.Constants[0].Name != "Z" || a.Roots[0] != "struct c" {
		t.Errorf("the caller's slices were sorted: %v %v %v", a.Symbols, a.Constants, a.Roots)
	}
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
