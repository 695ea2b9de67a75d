package limits

import (
	"math"
	"sync/atomic"
)

// Budget is an allowance of bytes that reading spends: what one file's
// compressed sections may expand to (elfx.Budget), or what a run's walks
// may decompress beyond what each artefact's size earns it
// (artefact.Budget). Both are this type underneath, so an allowance is
// counted one way wherever it is spent. It is safe for concurrent use.
type Budget struct {
	max  int64
	left atomic.Int64
	why  string
}

// NewBudget returns a budget of n bytes; why says where n comes from, for
// errors ("16 times the file's size"), and may be empty.
func NewBudget(n int64, why string) *Budget {
	b := &Budget{max: n, why: why}
	b.left.Store(n)
	return b
}

// Max is the budget's size, Left what is left of it (negative once
// Spend overdrew it), Why where its size comes from.
func (b *Budget) Max() int64      { return b.max }
func (b *Budget) Left() int64     { return b.left.Load() }
func (b *Budget) Why() string     { return b.why }
func (b *Budget) SetWhy(w string) { b.why = w }

// Take charges n bytes when they fit in what is left, and reports
// whether they did; a charge that does not fit costs nothing.
func (b *Budget) Take(n uint64) bool {
	if n > math.MaxInt64 {
		return false
	}
	for {
		l := b.left.Load()
		if int64(n) > l {
			return false
		}
		if b.left.CompareAndSwap(l, l-int64(n)) {
			return true
		}
	}
}

// Spend charges n bytes whatever is left, and reports whether the budget
// held them. Once overdrawn it stays spent: every later Spend fails,
// until Refund gives back enough.
func (b *Budget) Spend(n int64) bool {
	if b.left.Load() < 0 {
		return false
	}
	return b.left.Add(-n) >= 0
}

// Refund gives back n bytes spent (a walk read again from the start).
func (b *Budget) Refund(n int64) { b.left.Add(n) }
