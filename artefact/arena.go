package artefact

import (
	"golang.org/x/sys/unix"
)

// arena holds the kept blocks of a large member in anonymous memory maps,
// outside the Go heap: the collector neither scans them nor counts them
// against a soft memory limit (abifloor sets 48 MiB), which otherwise made
// it run without pause while a 50 MB library was held. The maps are
// released by free, which a cleanup of the owning Sparse calls.
type arena struct {
	slabs [][]byte
	cur   []byte // the free tail of the last slab
}

const slabSize = 4 << 20

// keep copies b into the arena and returns the copy; on a failed map it
// falls back to the heap.
func (a *arena) keep(b []byte) []byte {
	if len(b) > len(a.cur) {
		slab, err := unix.Mmap(-1, 0, max(slabSize, len(b)), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
		if err != nil {
			return append([]byte(nil), b...)
		}
		a.slabs = append(a.slabs, slab)
		a.cur = slab
	}
	n := copy(a.cur, b)
	out := a.cur[:n:n]
	a.cur = a.cur[n:]
	return out
}

func (a *arena) free() {
	for _, s := range a.slabs {
		unix.Munmap(s)
	}
	a.slabs, a.cur = nil, nil
}
