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

// BenchmarkWriteStubLibc is what a cold cache pays for the largest stub,
// glibc 2.17's x86_64 libc.so.6, now that no link editor writes it.
func BenchmarkWriteStubLibc(b *testing.B) {
	a, err := LoadArch("x86_64", true)
	if err != nil {
		b.Fatal(err)
	}
	var libc StubLib
	for _, s := range a.Select("2.17") {
		if s.Soname == "libc.so.6" {
			libc = s
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := writeStubLib("x86_64", &libc); err != nil {
			b.Fatal(err)
		}
	}
}
