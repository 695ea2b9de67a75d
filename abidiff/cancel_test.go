package abidiff_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/abidiff"
	"github.com/abifloor/abifloor/internal/fixture"
)

// TestCompareCancel: Compare checks its context between symbols and
// between types, and a comparison cut short returns the context's error
// and no report.
func TestCompareCancel(t *testing.T) {
	mk := func(n int) *abi.ABI {
		a := &abi.ABI{Schema: abi.Schema, DebugInfo: abi.DebugDWARF, Types: map[string]*abi.Type{}}
		for i := range n {
			a.Symbols = append(a.Symbols, abi.Symbol{Name: fmt.Sprintf("f%d", i), Kind: abi.SymFunc, Binding: abi.BindGlobal})
			a.Types[fmt.Sprintf("struct s%d", i)] = &abi.Type{Kind: abi.Struct, Name: fmt.Sprintf("s%d", i), Size: int64(4 + n)}
		}
		return a
	}
	old, new := mk(1000), mk(999)
	checks := int64(0)
	for ; ; checks++ {
		if checks > 1000 {
			t.Fatal("Compare never finished")
		}
		ctx := fixture.NewCountdown(checks)
		r, err := abidiff.Compare(ctx, old, new, nil, nil)
		if err == nil {
			if r.Compatible {
				t.Fatal("a removed symbol and resized types are compatible")
			}
			break
		}
		if !errors.Is(err, context.Canceled) || r.Changed() || r.Compatible {
			t.Fatalf("after %d checks: %v, report %+v", checks, err, r)
		}
	}
	// 1,000 symbols, 999 added or kept, 1,000 types: one check per 64 of
	// each, and one before.
	if checks < 30 {
		t.Errorf("Compare checked its context %d times, want one per 64 symbols and types", checks)
	}
}
