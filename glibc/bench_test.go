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

// BenchmarkWriteThunks is the rest of what a cold cache pays in process
// for glibc 2.17 on x86_64: every redirect's thunk object, and the compat
// archive of them with its symbol index (the polyfills' objects, which
// the compiler makes, are left out).
func BenchmarkWriteThunks(b *testing.B) {
	a, err := LoadArch("x86_64", true)
	if err != nil {
		b.Fatal(err)
	}
	members := compatMembers(a, "2.17", a.Redirects("2.17"))
	var thunks []compatMember
	for _, m := range members {
		if m.asm {
			thunks = append(thunks, m)
		}
	}
	if len(thunks) < 20 {
		b.Fatalf("%d thunks for 2.17", len(thunks))
	}
	b.ReportAllocs()
	for b.Loop() {
		ms := make([]arMember, len(thunks))
		for i, m := range thunks {
			data, err := writeThunk("x86_64", m.from, m.to)
			if err != nil {
				b.Fatal(err)
			}
			ms[i] = arMember{name: "compat-" + m.from + ".o", data: data}
		}
		if _, err := writeArchive(ms); err != nil {
			b.Fatal(err)
		}
	}
}
