package targets

import (
	"testing"

	"github.com/abifloor/abifloor/internal/deptest"
)

// TestDeps: a JSON table and its names, with no file reader under it.
func TestDeps(t *testing.T) {
	deptest.Check(t, ".", deptest.Readers...)
}
