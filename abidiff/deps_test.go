package abidiff_test

import (
	"testing"

	"github.com/abifloor/abifloor/internal/deptest"
)

// TestDeps: the comparison depends on the model, not on its readers, and
// on nothing outside the standard library and this module.
func TestDeps(t *testing.T) {
	deptest.Check(t, ".", deptest.Readers...)
}
