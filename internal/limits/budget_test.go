package limits

import (
	"math"
	"sync"
	"testing"
)

// Take charges only what fits; Spend overdraws once and then stays
// spent until a Refund.
func TestBudget(t *testing.T) {
	b := NewBudget(100, "why")
	if !b.Take(60) || b.Take(41) || b.Left() != 40 || b.Take(math.MaxUint64) {
		t.Fatalf("Take: left %d", b.Left())
	}
	if !b.Take(40) || b.Left() != 0 || b.Max() != 100 || b.Why() != "why" {
		t.Fatalf("Take to zero: left %d", b.Left())
	}
	s := NewBudget(10, "")
	if !s.Spend(10) || s.Spend(1) || s.Spend(0) {
		t.Fatalf("Spend: left %d", s.Left())
	}
	s.Refund(11)
	if !s.Spend(10) {
		t.Fatalf("Spend after Refund: left %d", s.Left())
	}
}

// Concurrent Takes never charge more than the budget holds.
func TestBudgetConcurrent(t *testing.T) {
	b := NewBudget(1000, "")
	var wg sync.WaitGroup
	var mu sync.Mutex
	took := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				if b.Take(3) {
					mu.Lock()
					took += 3
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if took > 1000 || int64(took)+b.Left() != 1000 {
		t.Errorf("took %d, left %d", took, b.Left())
	}
}
