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
