package walk

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"time"
)

// Item is one result of Process, with the file it came from.
type Item[T any] struct {
	Root  int
	Path  string
	Value T
}

// AbandonAfter is how long Process waits, once ctx is cancelled, for the
// workers still in a file. After it, the results finished so far are
// returned and the rest are dropped: a worker in a large file on a slow
// disk would otherwise hold back the report of everything else, and the
// hard stop (cmd/abifloor) would end the process before it was written.
const AbandonAfter = 100 * time.Millisecond

// Process runs workers goroutines over files; each gets its own function
// from newWorker (so it can keep buffers) and keeps a result by returning
// true. The results are sorted by root index, then path, so output does not
// depend on which worker was faster.
//
// When ctx is cancelled, workers take no new file, and Process returns
// what finished within AbandonAfter; a worker still at work then goes on
// in the background (it is expected to notice ctx itself) and its result
// is dropped.
func Process[T any](ctx context.Context, files <-chan File, workers int, newWorker func() func(File) (T, bool)) []Item[T] {
	// Results are kept in blocks (of 16, 32, ... 1024), not one slice
	// grown by append: a result is hundreds of bytes, and append's growth
	// by a quarter copied thousands of them several times over.
	var (
		mu     sync.Mutex
		all    [][]Item[T]
		closed bool // set once Process has returned: later results are dropped
		wg     sync.WaitGroup
	)
	for i := 0; i < max(workers, 1); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn := newWorker()
			for f := range files {
				if ctx.Err() != nil {
					continue // drain: the walker closes files soon
				}
				v, ok := fn(f)
				if !ok {
					continue
				}
				mu.Lock()
				if !closed {
					if len(all) == 0 || len(all[len(all)-1]) == cap(all[len(all)-1]) {
						all = append(all, make([]Item[T], 0, 16<<min(len(all), 6)))
					}
					all[len(all)-1] = append(all[len(all)-1], Item[T]{f.Root, f.Path, v})
				}
				mu.Unlock()
			}
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-ctx.Done():
		t := time.NewTimer(AbandonAfter)
		select {
		case <-finished:
		case <-t.C:
		}
		t.Stop()
	}
	mu.Lock()
	closed = true
	blocks := all
	all = nil
	mu.Unlock()
	// Sort pointers, not the items: a result is hundreds of bytes, and
	// swapping them cost a scan of thousands of files more than reading
	// their floors did. Then each is copied once, to its place.
	n := 0
	for _, b := range blocks {
		n += len(b)
	}
	refs := make([]*Item[T], 0, n)
	for _, b := range blocks {
		for i := range b {
			refs = append(refs, &b[i])
		}
	}
	slices.SortFunc(refs, func(x, y *Item[T]) int {
		if c := cmp.Compare(x.Root, y.Root); c != 0 {
			return c
		}
		return strings.Compare(x.Path, y.Path)
	})
	kept := make([]Item[T], len(refs))
	for i, r := range refs {
		kept[i] = *r
	}
	return kept
}
