package bind

import (
	"context"
	"testing"
)

// BenchmarkAuditUsrBin audits /usr/bin with a fresh Auditor each time, so
// every library is parsed once per iteration.
func BenchmarkAuditUsrBin(b *testing.B) {
	for i := 0; i < b.N; i++ {
		a := New(Options{})
		res := a.Audit(context.Background(), []string{"/usr/bin"})
		b.ReportMetric(float64(len(res.Files)), "files")
		b.ReportMetric(float64(a.Parsed()), "parsed")
	}
}
