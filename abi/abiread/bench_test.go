package abiread_test

import (
	"context"
	"os"
	"testing"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/abi/abiread"
)

// BenchmarkReadELFLibc reads this machine's libc with its separate DWARF
// (libc6-dbg): the cost abifloor diff pays per side.
func BenchmarkReadELFLibc(b *testing.B) {
	const libc = "/lib/x86_64-linux-gnu/libc.so.6"
	if _, err := os.Stat(libc); err != nil {
		b.Skip(err)
	}
	a, err := abiread.Load(context.Background(), libc, abiread.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if a.DebugInfo != abi.DebugDWARF {
		b.Skip("no debug info for libc (install libc6-dbg)")
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := abiread.Load(context.Background(), libc, abiread.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadELFFixture(b *testing.B) {
	lib := compile(b, "gcc", "-g")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := abiread.Load(context.Background(), lib, abiread.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFingerprintLibc(b *testing.B) {
	a, err := abiread.Load(context.Background(), "/lib/x86_64-linux-gnu/libc.so.6", abiread.Options{})
	if err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		a.Fingerprint()
		a.TypeFingerprints()
	}
}
