package glibc

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
)

// TestGccStubBounded: the stub of the compiler's libgcc_s gives each of
// its objects storage, so a library claiming objects larger than itself
// (a 1 MiB array in .bss of a 16 KB file) is refused instead of costing
// that memory; the same library with a small object makes a stub.
func TestGccStubBounded(t *testing.T) {
	ctx := context.Background()
	cc, comp, _ := compilerFor(t, "gcc", "x86_64")
	for _, tt := range []struct {
		size string
		ok   bool
	}{{"16", true}, {"1 << 20", false}} {
		dir := t.TempDir()
		vs := filepath.Join(dir, "g.map")
		if err := os.WriteFile(vs, []byte("GCC_3.0 { global: big; f; local: *; };\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		lib := fixture.Build(t, cc, dir, "g.c", "char big["+tt.size+"];\nint f(void) { return big[0]; }\n", "libgcc_s.so.1", "-shared", "-fPIC", "-Wl,--version-script="+vs)
		c := *comp
		c.Answer = func(ctx context.Context, args ...string) ([]byte, error) {
			return []byte(lib + "\n"), nil // -print-file-name=libgcc_s.so.1
		}
		gs, ok, err := gccStub(ctx, &c)
		switch {
		case tt.ok && (err != nil || !ok || len(gs.Syms) != 2):
			t.Errorf("char big[%s]: %v (ok %v, %d symbols), want a stub of big and f", tt.size, err, ok, len(gs.Syms))
		case !tt.ok && (err == nil || !strings.Contains(err.Error(), "larger than the file")):
			t.Errorf("char big[%s]: %v, want it refused as larger than the file", tt.size, err)
		}
	}
}
