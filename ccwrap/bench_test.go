package ccwrap

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/abifloor/abifloor/internal/fixture"
)

// BenchmarkWarmFixedCost is what a warm link costs besides the compiler:
// finding the compiler and the stubs in the cache (stamped), then the
// proof of the output (its floors and the loader's view). A build pays it
// on every link.
func BenchmarkWarmFixedCost(b *testing.B) {
	cc := fixture.Compiler(b, "gcc")
	dir := b.TempDir()
	src := filepath.Join(dir, "hi.c")
	if err := os.WriteFile(src, []byte("#include <stdio.h>\nint main(void) { puts(\"hi\"); return 0; }\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	w, err := New(Options{Glibc: "2.17", CacheDir: filepath.Join(dir, "cache"), Stdout: os.Stderr})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	argv := []string{cc, "-O2", "-o", filepath.Join(dir, "hi"), src}
	res, err := w.Run(ctx, argv)
	if err != nil || res.Code != 0 || res.Proof == nil || !res.Proof.OK() {
		b.Fatalf("link: %v %+v", err, res)
	}
	line := parseCCLine(argv[1:])
	// The cache stamps entries whose files are over a second old: a warm
	// cache's are.
	time.Sleep(1100 * time.Millisecond)
	b.Run("stubs", func(b *testing.B) {
		for b.Loop() {
			if _, err := w.stubsFor(ctx, cc); err != nil {
				b.Fatal(err)
			}
		}
	})
	sl, err := w.stubsFor(ctx, cc)
	if err != nil {
		b.Fatal(err)
	}
	// What is left after the link when the stubs were read while the
	// compiler ran (Run preloads them): the reading of the output.
	b.Run("proof-preloaded", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			aud := newProofAuditor(line, sl.dir, nil)
			aud.Preload(preloadPaths(line, sl.dir, sl.a)...)
			b.StartTimer()
			p, err := w.prove(ctx, line, aud, sl.a)
			if err != nil || !p.OK() {
				b.Fatalf("%v %+v", err, p)
			}
		}
	})
	b.Run("proof", func(b *testing.B) {
		for b.Loop() {
			p, err := w.prove(ctx, line, newProofAuditor(line, sl.dir, nil), sl.a)
			if err != nil || !p.OK() {
				b.Fatalf("%v %+v", err, p)
			}
		}
	})
}
