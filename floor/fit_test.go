package floor

import (
	"context"
	"testing"
)

func BenchmarkFitUsrBin(b *testing.B) {
	ts := FitTargets()
	for i := 0; i < b.N; i++ {
		res := Scan(context.Background(), []string{"/usr/bin"}, Options{Targets: ts, EachTarget: true})
		Fit(res, ts)
	}
}
