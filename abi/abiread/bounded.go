package abiread

import (
	"debug/elf"
	"fmt"
	"io"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/limits"
	"github.com/abifloor/abifloor/report"
)

// DefaultMaxDebugSize bounds what the compressed sections of one file (its
// debug info, above all) may expand to (Options.MaxDebugSize,
// --max-debug-size). The types of glibc or libstdc++ need a few tens of
// MB; a compressed section whose header claims gigabytes is refused before
// anything is decompressed.
const DefaultMaxDebugSize = limits.DebugSize

// ErrDebugTooLarge is wrapped by errors about compressed sections that
// would expand past the limit, or more than elfx.MaxRatio times their size.
var ErrDebugTooLarge = elfx.ErrTooLarge

// Debug info compressed in its file shrinks 3 to 4 times (zlib or zstd,
// glibc's and a C++ library's alike), yet zlib can shrink one section a
// thousand times and zstd thirty thousand: a 260 KB file whose .debug_str
// held 250 MiB of one string cost 2.8 GB and 19 s to dump. The compressed
// sections of a file may claim, together, at most debugRatio times the
// file's size plus debugSlack, whatever --max-debug-size allows, so what
// a file costs stays proportional to its size.
const (
	debugRatio = limits.DebugRatio
	debugSlack = limits.DebugSlack
)

// maxDebugSize is the limit opt asks for: 0 for the default, which
// debugLimit bounds by each file's size too.
func (opt Options) maxDebugSize() int64 { return max(opt.MaxDebugSize, 0) }

// orDefault is the budget a limit of maxDebug bytes gives one file's
// reads: DefaultMaxDebugSize for the default (0). checkELF has bounded
// what the file claims by its size already.
func orDefault(maxDebug int64) int64 {
	if maxDebug > 0 {
		return maxDebug
	}
	return DefaultMaxDebugSize
}

// openELF reads the ELF and section headers of the size-byte file r
// through elfx, for its debug sections (a separate debug file, a dwz
// alternate file), and checks them as checkELF does.
func openELF(r io.ReaderAt, size, maxSize int64) (*elfx.File, error) {
	f, err := elfx.NewHeaders(r, size)
	if err != nil {
		return nil, err
	}
	if err := checkELF(f, size, maxSize); err != nil {
		return nil, err
	}
	return f, nil
}

// checkELF reads the section headers of an untrusted size-byte file, and
// the compression header of each compressed section, with a bounded
// number of small reads. A 128 KB file can ask for gigabytes: it is
// refused when its compressed sections (SHF_COMPRESSED or GNU .zdebug)
// claim more than maxSize bytes together (by default, 0: debugRatio times
// size plus debugSlack, at most DefaultMaxDebugSize), or when its section
// name table is compressed (no tool writes that), so no later read of any
// of its sections can cost more than that.
func checkELF(f *elfx.File, size, maxSize int64) error {
	secs, err := f.Sections()
	if err != nil {
		return err
	}
	if i := f.ShStrNdx(); i > 0 && i < len(secs) && secs[i].Flags&elf.SHF_COMPRESSED != 0 {
		return fmt.Errorf("the section name table is compressed")
	}
	if maxSize > 0 {
		return checkDebugSizes(f, elfx.NewBudget(maxSize))
	}
	limit := debugRatio*size + debugSlack
	if limit >= DefaultMaxDebugSize {
		return checkDebugSizes(f, elfx.NewBudget(DefaultMaxDebugSize))
	}
	return checkDebugSizes(f, elfx.NewBudget(limit).Because(fmt.Sprintf("%d times the file's %d bytes, plus %d MiB", debugRatio, size, debugSlack>>20)))
}

// checkDebugSizes charges every compressed section of f (the debug
// sections and the relocations for them alike) to budget.
func checkDebugSizes(f *elfx.File, budget *elfx.Budget) error {
	secs, err := f.Sections()
	if err != nil {
		return err
	}
	for i := range secs {
		s := &secs[i]
		size, compressed, err := f.UncompressedSize(*s)
		if err != nil {
			return err
		}
		if !compressed {
			continue
		}
		name := report.Clean(s.Name)
		if name == "" {
			name = fmt.Sprintf("#%d", i)
		}
		if err := budget.Take(name, size, s.Size); err != nil {
			return err
		}
	}
	return nil
}
