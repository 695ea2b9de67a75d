package abi

import (
	"debug/elf"
	"fmt"
	"io"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/report"
)

// DefaultMaxDebugSize bounds what the compressed sections of one file (its
// debug info, above all) may expand to (Options.MaxDebugSize,
// --max-debug-size). The types of glibc or libstdc++ need a few tens of
// MB; a compressed section whose header claims gigabytes is refused before
// anything is decompressed.
const DefaultMaxDebugSize = 512 << 20

// ErrDebugTooLarge is wrapped by errors about compressed sections that
// would expand past the limit, or more than elfx.MaxRatio times their size.
var ErrDebugTooLarge = elfx.ErrTooLarge

// maxDebugSize is the limit opt asks for.
func (opt Options) maxDebugSize() int64 {
	if opt.MaxDebugSize > 0 {
		return opt.MaxDebugSize
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
	if err := checkELF(f, maxSize); err != nil {
		return nil, err
	}
	return f, nil
}

// checkELF reads the section headers of an untrusted file, and the
// compression header of each compressed section, with a bounded number
// of small reads. A 128 KB file can ask for gigabytes: it is refused when
// its compressed sections (SHF_COMPRESSED or GNU .zdebug) claim more than
// maxSize bytes together, or when its section name table is compressed
// (no tool writes that), so no later read of any of its sections can cost
// more than maxSize.
func checkELF(f *elfx.File, maxSize int64) error {
	secs, err := f.Sections()
	if err != nil {
		return err
	}
	if i := f.ShStrNdx(); i > 0 && i < len(secs) && secs[i].Flags&elf.SHF_COMPRESSED != 0 {
		return fmt.Errorf("the section name table is compressed")
	}
	return checkDebugSizes(f, maxSize)
}

// checkDebugSizes charges every compressed section of f (the debug
// sections and the relocations for them alike) to a budget of max bytes.
func checkDebugSizes(f *elfx.File, max int64) error {
	secs, err := f.Sections()
	if err != nil {
		return err
	}
	budget := elfx.NewBudget(max)
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
