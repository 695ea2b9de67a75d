package elfx

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
)

// objectFile compiles a small C file into an object file with gcc.
func objectFile(t testing.TB) []byte {
	fixture.Need(t, "gcc")
	dir := t.TempDir()
	src := filepath.Join(dir, "s.c")
	if err := os.WriteFile(src, []byte("int v = 1;\nstatic int hidden(void) { return v; }\nint f(void) { return hidden(); }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	obj := filepath.Join(dir, "s.o")
	if b, err := exec.Command("gcc", "-c", "-o", obj, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	b, err := os.ReadFile(obj)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestStaticSymbols: an object file's global function and variable are
// Defined; its static function and section symbols are not.
func TestStaticSymbols(t *testing.T) {
	b := objectFile(t)
	f, err := NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	syms, err := f.StaticSymbols()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, s := range syms {
		if s.Defined() {
			got[s.Name] = true
		}
	}
	if !got["f"] || !got["v"] || got["hidden"] || len(got) != 2 {
		t.Errorf("defined %v, want f and v", got)
	}
}

// FuzzStaticSymbols: any input gives symbols or an error, never a panic,
// and never more symbols than the file has bytes.
func FuzzStaticSymbols(f *testing.F) {
	f.Add(objectFile(f))
	f.Fuzz(func(t *testing.T, b []byte) {
		x, err := NewFile(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		syms, err := x.StaticSymbols()
		if err == nil && len(syms) > len(b) {
			t.Fatalf("%d symbols from %d bytes", len(syms), len(b))
		}
	})
}
