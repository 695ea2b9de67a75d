package artefact

import (
	"bytes"
	"io"
	"math/rand/v2"
	"testing"
)

// TestReadAhead: reads through the window give what the file holds, at
// any offset and length, the end included.
func TestReadAhead(t *testing.T) {
	data := make([]byte, 3*readAheadWindow+123)
	for i := range data {
		data[i] = byte(i * 7)
	}
	want := bytes.NewReader(data)
	a := newReadAhead(want, int64(len(data)))
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		off := rng.Int64N(int64(len(data)) + 10)
		n := rng.IntN(readAheadWindow / 2)
		p, q := make([]byte, n), make([]byte, n)
		k1, e1 := a.ReadAt(p, off)
		k2, e2 := want.ReadAt(q, off)
		if k1 != k2 || !bytes.Equal(p[:k1], q[:k2]) || (e1 == nil) != (e2 == nil) || (e1 != nil && e1 != io.EOF) {
			t.Fatalf("ReadAt(%d bytes, %d) = %d, %v; want %d, %v", n, off, k1, e1, k2, e2)
		}
	}
}
