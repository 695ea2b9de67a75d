package sites

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/fixture"
)

// seedFixture compiles the truth fixture (x86-64, -fno-plt and PLT) for
// the fuzzer's corpus, when a compiler is there.
func seedFixture(f *testing.F, args ...string) []byte {
	cc := fixture.Compiler(f, "gcc")
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "conv.h"), []byte(truthHeader), 0o644); err != nil {
		f.Fatal(err)
	}
	out := fixture.Build(f, cc, dir, "t.c", truthC, "t", append([]string{"-g", "-O2", "-I", dir}, args...)...)
	b, err := os.ReadFile(out)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// FuzzFind drives Find over arbitrary bytes: it returns sites or an
// error, never panics, and every site lies inside the file's address
// space as its sections describe it.
func FuzzFind(f *testing.F) {
	f.Add(seedFixture(f))
	f.Add(seedFixture(f, "-fno-plt", "-no-pie", "-fno-pie"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ef, err := elfx.NewFile(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		want := []string{"strtol@GLIBC_2.2.5", "memcpy@GLIBC_2.14", "stdout@GLIBC_2.2.5", "fprintf@GLIBC_2.2.5", "strtoul@GLIBC_2.2.5"}
		res, err := Find(ef, want, Options{NoDefaultDebugDir: true})
		if err != nil {
			return
		}
		if len(res.Sites) > len(b) {
			t.Fatalf("%d sites in %d bytes", len(res.Sites), len(b))
		}
	})
}

// BenchmarkFind measures the site finder over the truth fixture built
// as C++ (where the code between PLT and GOT is largest).
func BenchmarkFind(b *testing.B) {
	for _, path := range []string{os.Getenv("ABIFLOOR_SITES_BENCH"), "/usr/bin/gdb"} {
		if path == "" {
			continue
		}
		f, err := elfx.Open(path)
		if err != nil {
			continue
		}
		syms, err := f.Symbols()
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		var want []string
		for _, s := range syms {
			if s.Undefined() && s.Version != "" {
				want = append(want, s.String())
			}
		}
		want = want[:min(len(want), 8)]
		b.Run(filepath.Base(path), func(b *testing.B) {
			for b.Loop() {
				f, err := elfx.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Find(f, want, Options{Path: path}); err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
		})
		return
	}
	b.Skip("no program to measure: set ABIFLOOR_SITES_BENCH")
}
