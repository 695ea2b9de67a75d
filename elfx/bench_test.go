package elfx

import (
	"os"
	"testing"
)

// BenchmarkFloorPath measures what a floor scan does per file: open,
// decode the headers and dynamic section, walk the version-need chain.
func BenchmarkFloorPath(b *testing.B) {
	files := systemFiles(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, p := range files {
			f, err := Open(p)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := f.VersionNeeds(); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	}
	b.ReportMetric(float64(len(files)), "files/op")
}

// BenchmarkSymbols measures reading a large dynamic symbol table with
// versions (libc: about 3,000 symbols), the --why and violation path.
func BenchmarkSymbols(b *testing.B) {
	var path string
	for _, p := range systemFiles(b) {
		if fi, err := os.Stat(p); err == nil && fi.Size() > 1<<20 {
			path = p
			break
		}
	}
	if path == "" {
		b.Skip("no large system library")
	}
	for i := 0; i < b.N; i++ {
		f, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.Symbols(); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}
