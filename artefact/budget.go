package artefact

import (
	"io/fs"
	"os"
	"sync/atomic"
)

// Budget is a run's shared allowance of decompressed bytes beyond what
// each artefact's size earns it (Options.Ratio times the size): a run
// reading many small bombs costs their sum, not MinExpand each. It is
// safe for concurrent use by the walks of parallel workers. Once spent it
// stays spent: every later walk that needs it fails with ErrBomb.
//
// It also holds the run's decoder memory (see memory.go), which every
// decoder of the run reserves from before it starts.
type Budget struct {
	grant int64
	left  atomic.Int64
	mem   *memPool
}

// NewBudget returns a run's budget of n bytes (DefaultMinExpand when n <= 0).
func NewBudget(n int64) *Budget {
	if n <= 0 {
		n = DefaultMinExpand
	}
	b := &Budget{grant: n, mem: newMemPool(0)}
	b.left.Store(n)
	return b
}

// Left is how many bytes are left of the budget (negative once spent).
func (b *Budget) Left() int64 { return b.left.Load() }

// take charges n bytes, reporting whether the budget held them.
func (b *Budget) take(n int64) bool {
	if b.left.Load() < 0 {
		return false
	}
	return b.left.Add(-n) >= 0
}

// dirSize is the size of the regular files under dir (an image layout's
// size, for the bomb budget and Progress).
// SizeOf is the bytes on disk of the artefact at p, a file or an OCI
// layout directory, which its allowances are proportional to; 0 when it
// cannot be read.
func SizeOf(p string) int64 {
	st, err := os.Stat(p)
	switch {
	case err != nil:
		return 0
	case st.IsDir():
		return dirSize(p)
	}
	return st.Size()
}

func dirSize(dir string) int64 {
	var n int64
	fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
