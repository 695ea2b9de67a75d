package abiread

import (
	"debug/dwarf"
	"errors"
	"fmt"

	"github.com/abifloor/abifloor/internal/limits"
)

// The DWARF readers take names from string sections by offset, so
// entries can share one string: a 260 KB file (or a member of a 250 KB
// .tar.gz) whose .debug_str held one string of 250 MiB, named by every
// DIE, cost 2.8 GB and 19 s to dump, and scopes and qualified names
// (ns::T) copy their prefixes again. Every name a reader takes, and every
// name it composes, is charged to a nameBudget of namesRatio times the
// DWARF's own bytes, and at most namesReal times the bytes on disk it was
// read from (a member's artefact), plus namesSlack. Real files charge
// 0.19 to 0.28 times their DWARF (glibc's debug files) and 1.66 (a C++
// library of three units: qualified names); DWARF shrinks 2.6 to 4.2
// times on disk (zlib in the file, xz -9 of the same), so 32 times the
// bytes on disk is more than four times what the C++ library would need.
const (
	namesRatio = limits.NamesRatio
	namesReal  = limits.NamesReal
	namesSlack = limits.NamesSlack
)

// errManyNames is wrapped by the error of a budget that ran out.
var errManyNames = errors.New("names add up to too many bytes")

// nameBudget counts the bytes of the names the DWARF readers take. The
// first charge past the limit sets err, which every later charge
// returns: the readers stop there and typesOf reports it. A nil budget
// is unlimited (the compiler's DWARF of a header tree).
type nameBudget struct {
	left, limit int64
	why         string
	err         error
}

// newNameBudget returns the budget for DWARF of size bytes (its info
// and string sections) read from real bytes on disk (0: unknown).
func newNameBudget(size, real int64) *nameBudget {
	limit := namesRatio * size
	why := fmt.Sprintf("%d times the %d bytes of its info and string sections", namesRatio, size)
	if real > 0 && namesReal*real < limit {
		limit = namesReal * real
		why = fmt.Sprintf("%d times the %d bytes it was read from", namesReal, real)
	}
	limit += namesSlack
	return &nameBudget{left: limit, limit: limit, why: why}
}

// reset gives the budget back whole, for a second reading.
func (b *nameBudget) reset() {
	if b != nil {
		b.left, b.err = b.limit, nil
	}
}

// take charges n bytes and reports whether they fit.
func (b *nameBudget) take(n int) bool {
	if b == nil {
		return true
	}
	if b.err != nil {
		return false
	}
	if b.left -= int64(n); b.left < 0 {
		b.err = fmt.Errorf("%w: more than %d bytes, %s plus %d KiB (strings shared by many entries)",
			errManyNames, b.limit, b.why, namesSlack>>10)
		return false
	}
	return true
}

// takeEntry charges the strings of a debug/dwarf entry, which it has
// copied whether they are used or not.
func (b *nameBudget) takeEntry(e *dwarf.Entry) bool {
	if b == nil {
		return true
	}
	n := 0
	for _, f := range e.Field {
		if s, ok := f.Val.(string); ok {
			n += len(s)
		}
	}
	return b.take(n)
}

// failed is the error of a budget that ran out, nil otherwise.
func (b *nameBudget) failed() error {
	if b == nil {
		return nil
	}
	return b.err
}

// dwarfBytes is the size a nameBudget of s is proportional to.
func (s *sections) dwarfBytes() int64 {
	return int64(len(s.info) + len(s.str) + len(s.lineStr) + len(s.strOffsets))
}
