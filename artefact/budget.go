package artefact

import (
	"io/fs"
	"os"

	"github.com/abifloor/abifloor/internal/limits"
)

// Budget is a run's shared allowance of decompressed bytes beyond what
// each artefact's size earns it (limits.ExpandRatio times the size): a run
// reading many small bombs costs their sum, not limits.RunExpand each. It is
// safe for concurrent use by the walks of parallel workers. Once spent it
// stays spent: every later walk that needs it fails with ErrBomb.
//
// It also holds the run's decoder memory (see memory.go), which every
// decoder of the run reserves from before it starts.
//
// The allowance is a limits.Budget, as elfx.Budget's is: every allowance
// of bytes is counted one way.
type Budget struct {
	allow *limits.Budget
	mem   *memPool
}

// NewBudget returns a run's budget of n bytes (DefaultMinExpand when n <= 0).
func NewBudget(n int64) *Budget {
	if n <= 0 {
		n = DefaultMinExpand
	}
	return &Budget{allow: limits.NewBudget(n, "the run's shared allowance"), mem: newMemPool(0)}
}

// Left is how many bytes are left of the budget (negative once spent).
func (b *Budget) Left() int64 { return b.allow.Left() }

// take charges n bytes, reporting whether the budget held them.
func (b *Budget) take(n int64) bool { return b.allow.Spend(n) }

// grant is the size of the run's allowance.
func (b *Budget) grant() int64 { return b.allow.Max() }

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
