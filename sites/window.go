package sites

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/abifloor/abifloor/elfx"
)

// windowSize is how much code a window scans: a program's code is read
// a window at a time into a reused buffer, never held whole (a tree of
// programs read whole by every worker kept the collector busy under the
// command's memory limit), and the windows of a large program are
// scanned on every core.
var windowSize uint64 = 1 << 20

// window is one piece of a code section: b holds the section's bytes
// from offset base, and the positions from lo to hi (offsets in b) are
// the ones this window scans; the bytes before lo and from hi on are
// there for the instructions that reach across.
type window struct {
	addr   uint64 // the address of b[0]
	b      []byte
	lo, hi int
}

// windowBounds splits a section of size bytes at addr into windows of
// about windowSize, each beginning where an instruction is known to
// begin when atSync (a function start: a walk never needs what lies
// before its window), else anywhere.
func (sc *scan) windowBounds(addr, size uint64, atSync bool) []uint64 {
	bounds := []uint64{0}
	for start := uint64(0); start < size; {
		end := start + windowSize
		if end >= size {
			end = size
		} else if atSync {
			// The last function start in (start, end], else the
			// first past end (a function larger than a window).
			if s, ok := sc.syncBefore(addr + end); ok && s > addr+start {
				end = s - addr
			} else if s, ok := sc.syncAfter(addr + end); ok && s < addr+size {
				end = s - addr
			} else {
				end = size
			}
		}
		bounds = append(bounds, end)
		start = end
	}
	return bounds
}

// syncAfter is the first known instruction start above addr.
func (sc *scan) syncAfter(addr uint64) (uint64, bool) {
	i := sc.syncIndex(addr)
	if i == len(sc.syncs) {
		return 0, false
	}
	return sc.syncs[i], true
}

var windowBufs = sync.Pool{New: func() any { b := make([]byte, 0, windowSize+4096); return &b }}

// eachWindow calls scan on every window of code section s, with behind
// bytes before each window and ahead bytes after it (as far as the
// section has them), on up to GOMAXPROCS goroutines, and adds the sites
// each returns in address order, as one pass over the section would.
func (sc *scan) eachWindow(s *elfx.Section, behind, ahead uint64, atSync bool, scan func(w *window) []Site) error {
	// Every window is read from the file: the section must lie in it
	// before any buffer is sized by it.
	if size := uint64(sc.f.Size()); s.Off > size || s.Size > size-s.Off {
		return fmt.Errorf("section %s (%d bytes at %#x) past end of file", s.Name, s.Size, s.Off)
	}
	bounds := sc.windowBounds(s.Addr, s.Size, atSync)
	n := len(bounds) - 1
	found := make([][]Site, n)
	errs := make([]error, n)
	one := func(k int) {
		lo, hi := bounds[k], bounds[k+1]
		base := lo - min(lo, behind)
		end := min(s.Size, hi+ahead)
		bp := windowBufs.Get().(*[]byte)
		defer windowBufs.Put(bp)
		if uint64(cap(*bp)) < end-base {
			*bp = make([]byte, end-base)
		}
		b := (*bp)[:end-base]
		if err := sc.f.SectionAt(s, b, base); err != nil {
			errs[k] = err
			return
		}
		found[k] = scan(&window{addr: s.Addr + base, b: b, lo: int(lo - base), hi: int(hi - base)})
	}
	workers := min(n, runtime.GOMAXPROCS(0))
	if workers <= 1 {
		for k := 0; k < n; k++ {
			one(k)
		}
	} else {
		var wg sync.WaitGroup
		next := make(chan int)
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := range next {
					one(k)
				}
			}()
		}
		for k := 0; k < n; k++ {
			next <- k
		}
		close(next)
		wg.Wait()
	}
	for k := range n {
		if errs[k] != nil {
			return errs[k]
		}
		for _, st := range found[k] {
			sc.add(st)
		}
	}
	return nil
}
