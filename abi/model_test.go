package abi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
	"testing"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/abi/abitext"
)

func list(member string) map[string]*abi.Type {
	return map[string]*abi.Type{
		"int": {Kind: abi.Base, Name: "int", Size: 4, Encoding: "signed"},
		"struct a": {Kind: abi.Struct, Name: "a", Size: 16, Members: []abi.Member{
			{Name: "next", Type: &abi.Type{Kind: abi.Pointer, Size: 8, Elem: &abi.Type{Ref: "struct b"}}},
			{Name: member, Offset: 8, Type: &abi.Type{Ref: "int"}},
		}},
		"struct b": {Kind: abi.Struct, Name: "b", Size: 8, Members: []abi.Member{
			{Name: "back", Type: &abi.Type{Kind: abi.Pointer, Size: 8, Elem: &abi.Type{Ref: "struct a"}}},
		}},
		"struct c": {Kind: abi.Struct, Name: "c", Size: 8, Members: []abi.Member{
			{Name: "self", Type: &abi.Type{Kind: abi.Pointer, Size: 8, Elem: &abi.Type{Ref: "struct c"}}},
		}},
	}
}

func TestTypeFingerprints(t *testing.T) {
	a := &abi.ABI{Schema: abi.Schema, Types: list("v")}
	f1 := a.TypeFingerprints()
	f2 := (&abi.ABI{Schema: abi.Schema, Types: list("v")}).TypeFingerprints()
	for k, v := range f1 {
		if f2[k] != v {
			t.Errorf("%s: not stable", k)
		}
	}
	g := (&abi.ABI{Schema: abi.Schema, Types: list("w")}).TypeFingerprints()
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
	x := &abi.ABI{Schema: abi.Schema, Symbols: []abi.Symbol{{Name: "b"}, {Name: "a", Version: "V2"}, {Name: "a", Version: "V1"}}}
	y := &abi.ABI{Schema: abi.Schema, Symbols: []abi.Symbol{{Name: "a", Version: "V1"}, {Name: "b"}, {Name: "a", Version: "V2"}}}
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
	var back abi.ABI
	if err := json.Unmarshal(append(js[:len(js)-len(`"}`)], `x"}`...), &back); err != nil || back.Fingerprint() != x.Fingerprint() {
		t.Errorf("read back: %v, fingerprint %s", err, back.Fingerprint())
	}
}

func TestSymbolString(t *testing.T) {
	tests := []struct {
		s       abi.Symbol
		str, id string
	}{
		{abi.Symbol{Name: "f"}, "f", "f"},
		{abi.Symbol{Name: "f", Version: "V_1"}, "f@V_1", "f@V_1"},
		{abi.Symbol{Name: "f", Version: "V_1", Default: true}, "f@@V_1", "f@V_1"},
	}
	for _, tt := range tests {
		if tt.s.String() != tt.str || tt.s.ID() != tt.id {
			t.Errorf("%+v: %s %s", tt.s, tt.s.String(), tt.s.ID())
		}
	}
}

func BenchmarkCanonical(b *testing.B) {
	a := &abi.ABI{Schema: abi.Schema, Types: list("v")}
	for range b.N {
		a.Fingerprint()
	}
}

// TestShared encodes one unsorted ABI from several goroutines: Canonical,
// Fingerprint and WriteText must not sort the caller's slices (run with
// -race), and must leave them as they were.
func TestShared(t *testing.T) {
	a := &abi.ABI{Schema: abi.Schema, Types: list("v"),
		Symbols:   []abi.Symbol{{Name: "z", Kind: "func"}, {Name: "a", Kind: "func"}, {Name: "m", Kind: "object"}},
		Constants: []abi.Constant{{Name: "Z"}, {Name: "A"}},
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
				abitext.WriteText(io.Discard, a)
			}
		}()
	}
	wg.Wait()
	if a.Symbols[0].Name != "z" || a.Constants[0].Name != "Z" || a.Roots[0] != "struct c" {
		t.Errorf("the caller's slices were sorted: %v %v %v", a.Symbols, a.Constants, a.Roots)
	}
}
