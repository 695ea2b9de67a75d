package floor

import (
	"context"
	"os"
	"testing"
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
