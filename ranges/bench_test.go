package ranges

import (
	"fmt"
	"testing"
)

// BenchmarkLookup looks versions up in a table of 200 versions in 14
// ranges, half of them observed and half inferred or in gaps. Goal: ≤ 1 µs.
func BenchmarkLookup(b *testing.B) {
	var vs []Version
	fps := []string{"a", "b", "a", "c", "d", "c", "a"}
	for i := 0; i < 200; i++ {
		vs = append(vs, Version{Name: fmt.Sprintf("5%02d.%d.%02d", 35+i/20, i%20, i%7), Fingerprint: fps[(i/13)%len(fps)]})
	}
	tab, err := New(nil, vs)
	if err != nil {
		b.Fatal(err)
	}
	queries := []string{"535.0.00", "537.4.01", "538.18.99", "541.9.03", "544.19.03", "560.1", "520.5", "540.3.05"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := tab.Lookup(queries[i%len(queries)]); err != nil {
			b.Fatal(err)
		}
	}
}
