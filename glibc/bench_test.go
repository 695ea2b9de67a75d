package glibc

import (
	"bytes"
	"compress/gzip"
	"testing"
)

func BenchmarkParse(b *testing.B) {
	for i := 0; i < b.N; i++ {
		zr, err := gzip.NewReader(bytes.NewReader(embedded))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Parse(zr); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadArch is what every abifloor cc run pays: one architecture,
// with its symbols, from the embedded database.
func BenchmarkLoadArch(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := LoadArch("x86_64", true); err != nil {
			b.Fatal(err)
		}
	}
}
