package abidiff_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/abifloor/abifloor/abi/abiread"
)

// BenchmarkCompareGlibc is the comparison alone, both ABIs in memory: what
// a range table pays per pair.
func BenchmarkCompareGlibc(b *testing.B) {
	dir := bullseye(b)
	old, err := abiread.Load(context.Background(), filepath.Join(dir, "lib/x86_64-linux-gnu/libc.so.6"), abiread.Options{DebugDirs: []string{filepath.Join(dir, "usr/lib/debug")}})
	if err != nil {
		b.Fatal(err)
	}
	new, err := abiread.Load(context.Background(), hostLibc, abiread.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		compare(b, old, new, nil)
	}
}
