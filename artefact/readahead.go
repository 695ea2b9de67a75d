package artefact

import (
	"io"
	"sync"
)

// readAhead serves the small reads of a zip's members (a local header,
// then the first compressed bytes, member after member in file order)
// from one window read ahead of them: a jar of 33,000 classes then costs a
// few hundred reads, not two per member. A read larger than the window,
// or outside it, goes to r (and refills the window when small).
type readAhead struct {
	r    io.ReaderAt
	size int64
	mu   sync.Mutex
	off  int64
	buf  []byte
}

const readAheadWindow = 256 << 10

func newReadAhead(r io.ReaderAt, size int64) *readAhead {
	return &readAhead{r: r, size: size}
}

func (a *readAhead) ReadAt(p []byte, off int64) (int, error) {
	if len(p) >= readAheadWindow/4 || off < 0 {
		return a.r.ReadAt(p, off)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if off < a.off || off+int64(len(p)) > a.off+int64(len(a.buf)) {
		if a.buf == nil {
			a.buf = make([]byte, readAheadWindow)
		}
		a.buf = a.buf[:cap(a.buf)]
		n, err := a.r.ReadAt(a.buf, off)
		a.off, a.buf = off, a.buf[:n]
		if n < len(p) {
			k := copy(p, a.buf)
			if err == nil {
				err = io.EOF
			}
			return k, err
		}
	}
	return copy(p, a.buf[off-a.off:]), nil
}
