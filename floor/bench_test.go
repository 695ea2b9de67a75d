package floor

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/input"
)

// BenchmarkScanUsrBin is the whole scan path over a real directory: walk,
// magic check, floors.
func BenchmarkScanUsrBin(b *testing.B) {
	if _, err := os.Stat("/usr/bin"); err != nil {
		b.Skip("no /usr/bin")
	}
	for i := 0; i < b.N; i++ {
		Scan(context.Background(), []string{"/usr/bin"}, Options{})
	}
}

// benchLibraries are real libraries and programs of this machine, small
// and large: the files a floor scan reads most.
func benchLibraries(b *testing.B) []string {
	var out []string
	for _, glob := range []string{
		"/usr/bin/ls", "/usr/bin/true", "/usr/bin/gcc", "/usr/bin/objdump", "/usr/bin/git",
		"/lib/*-linux-gnu/libc.so.6", "/usr/lib/*-linux-gnu/libstdc++.so.6",
		"/usr/lib/*-linux-gnu/libm.so.6", "/usr/lib/*-linux-gnu/libz.so.1",
		"/usr/lib/*-linux-gnu/libcrypto.so.3", "/usr/lib/*-linux-gnu/libgcc_s.so.1",
		"/usr/lib/*-linux-gnu/libLLVM*.so*", "/usr/lib/*-linux-gnu/libpython3*.so*",
	} {
		m, _ := filepath.Glob(glob)
		out = append(out, m...)
	}
	if len(out) < 5 {
		b.Skip("too few system libraries found")
	}
	return out
}

// BenchmarkFloorFile is the floor of one file as a scan worker computes
// it: open with a reused buffer, headers, dynamic section, version needs,
// Analyze. Per op: every file of benchLibraries once.
func BenchmarkFloorFile(b *testing.B) {
	files := benchLibraries(b)
	buf := make([]byte, headSize)
	scratch := elfx.NewScratch()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, p := range files {
			in, err := input.Open(p, nil, buf)
			if err != nil {
				b.Fatal(err)
			}
			f, err := elfx.NewFileScratch(in.FD, in.Size, in.Head, scratch)
			if err != nil {
				b.Fatal(err)
			}
			if r, _ := Analyze(f, p, FileOptions{}); r.Error != nil {
				b.Fatal(r.Error)
			}
			in.Close()
		}
	}
	b.ReportMetric(float64(len(files)), "files/op")
}

// BenchmarkScanFiles is `abifloor scan FILE...` over every ELF file of
// /usr/bin named one by one: no directory walk, a floor per file.
func BenchmarkScanFiles(b *testing.B) {
	res := Scan(context.Background(), []string{"/usr/bin"}, Options{NoTreeArtefacts: true})
	var paths []string
	for _, f := range res.Files {
		if f.Error == nil {
			paths = append(paths, f.Path)
		}
	}
	if len(paths) < 50 {
		b.Skip("fewer than 50 ELF files under /usr/bin")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Scan(context.Background(), paths, Options{})
	}
	b.ReportMetric(float64(len(paths)), "files/op")
}

// BenchmarkOneFile is the floor of one small program, named alone (a
// compiler wrapper's proof of its output): through Scan's walker and
// workers, and read on the caller's goroutine (ScanFile).
func BenchmarkOneFile(b *testing.B) {
	const prog = "/usr/bin/true"
	if _, err := os.Stat(prog); err != nil {
		b.Skip("no " + prog)
	}
	ctx := context.Background()
	// The wrapper holds the output to GLIBC by its number, and to no other
	// limit with --glibc (ccwrap.prove).
	opt := Options{Workers: 1}
	b.Run("Scan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Scan(ctx, []string{prog}, opt)
		}
	})
	b.Run("ScanFile", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ScanFile(ctx, prog, opt)
		}
	})
}
