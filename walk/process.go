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
	var (
		mu     sync.Mutex
		all    []Item[T]
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
					all = append(all, Item[T]{f.Root, f.Path, v})
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
	kept := all
	all = nil
	mu.Unlock()
	// Sort an index, not the items: a result is hundreds of bytes, and
	// swapping them cost a scan of thousands of files more than reading
	// their floors did.
	order := make([]int32, len(kept))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		x, y := &kept[a], &kept[b]
		if c := cmp.Compare(x.Root, y.Root); c != 0 {
			return c
		}
		return strings.Compare(x.Path, y.Path)
	})
	out := make([]Item[T], len(kept))
	for i, j := range order {
		out[i] = kept[j]
	}
	return out
}
