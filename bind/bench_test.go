package bind

import (
	"context"
	"os"
	"strings"
	"testing"
)

// BenchmarkAuditUsrBin audits /usr/bin (or the colon-separated
// BIND_BENCH_DIRS) with a fresh Auditor each time, so every library is
// parsed once per iteration.
func BenchmarkAuditUsrBin(b *testing.B) {
	dirs := []string{"/usr/bin"}
	if d := os.Getenv("BIND_BENCH_DIRS"); d != "" {
		dirs = strings.Split(d, ":")
	}
	for i := 0; i < b.N; i++ {
		a := New(Options{})
		res := a.Audit(context.Background(), dirs)
		b.ReportMetric(float64(len(res.Files)), "files")
		b.ReportMetric(float64(a.Parsed()), "parsed")
	}
}

// BenchmarkLookup is the hot path of resolution: one name looked up in a
// large library (libc), hit and miss.
func BenchmarkLookup(b *testing.B) {
	o, err := openObject("/lib/x86_64-linux-gnu/libc.so.6")
	if err != nil {
		b.Skip(err)
	}
	for i := 0; i < b.N; i++ {
		if !o.provides("malloc", "GLIBC_2.2.5") || o.provides("nvmlInit_v2", "") {
			b.Fatal("lookup")
		}
	}
}

// BenchmarkParseLibc is the cost of reading one large library once.
func BenchmarkParseLibc(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := openObject("/lib/x86_64-linux-gnu/libc.so.6"); err != nil {
			b.Skip(err)
		}
	}
}
