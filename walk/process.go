package walk

import (
	"sort"
	"sync"
)

// Item is one result of Process, with the file it came from.
type Item[T any] struct {
	Root  int
	Path  string
	Value T
}

// Process runs workers goroutines over files; each gets its own function
// from newWorker (so it can keep buffers) and keeps a result by returning
// true. The results are sorted by root index, then path, so output does not
// depend on which worker was faster.
func Process[T any](files <-chan File, workers int, newWorker func() func(File) (T, bool)) []Item[T] {
	var (
		mu  sync.Mutex
		all []Item[T]
		wg  sync.WaitGroup
	)
	for i := 0; i < max(workers, 1); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn := newWorker()
			var local []Item[T]
			for f := range files {
				if v, ok := fn(f); ok {
					local = append(local, Item[T]{f.Root, f.Path, v})
				}
			}
			mu.Lock()
			all = append(all, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	sort.Slice(all, func(i, j int) bool {
		if all[i].Root != all[j].Root {
			return all[i].Root < all[j].Root
		}
		return all[i].Path < all[j].Path
	})
	return all
}
