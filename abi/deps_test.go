package abi_test

import (
	"testing"

	"github.com/abifloor/abifloor/internal/deptest"
)

// TestModelDeps: the model is the standard library's alone, and reads no
// file format: a program that wants abi.Type pulls no reader.
func TestModelDeps(t *testing.T) {
	deptest.StdOnly(t, ".")
	deptest.Check(t, ".", deptest.Readers...)
}
