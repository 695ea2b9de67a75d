package abiread_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/abi/abiread"
	"github.com/abifloor/abifloor/internal/fixture"
)

// TestCancelInsideDWARF: a reader told to stop stops inside the DWARF walk
// (between compilation units and between symbols), with the context's
// error, not only before it starts.
func TestCancelInsideDWARF(t *testing.T) {
	// The fast tier's committed library: DWARF without a compiler.
	lib := filepath.Join("..", "..", "cmd", "abifloor", "testdata", "fast", "libfix.so")
	inDWARF := 0
	for n := int64(0); ; n++ {
		if n > 100 {
			t.Fatal("Load never finished")
		}
		ctx := fixture.NewCountdown(n)
		a, err := abiread.Load(ctx, lib, abiread.Options{NoDefaultDebugDir: true})
		if err == nil {
			if a.DebugInfo != "dwarf" || n < 2 {
				t.Fatalf("read %s after %d checks", a.DebugInfo, n)
			}
			break
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("after %d checks: %v, want the context's error", n, err)
		}
		if strings.Contains(err.Error(), "DWARF") {
			inDWARF++
		}
	}
	if inDWARF < 2 {
		t.Errorf("stopped inside the DWARF walk at %d checks, want at least 2 (a unit, the symbols)", inDWARF)
	}
}
