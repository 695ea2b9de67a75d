package abi

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"strings"

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
// would expand past the limit, or more than maxRatio times their size.
var ErrDebugTooLarge = errors.New("compressed section too large")

// maxDebugSize is the limit opt asks for.
func (opt Options) maxDebugSize() int64 {
	if opt.MaxDebugSize > 0 {
		return opt.MaxDebugSize
	}
	return DefaultMaxDebugSize
}

// compressedSize returns the size sec holds once decompressed and whether
// it is compressed at all: SHF_COMPRESSED (whose header debug/elf already
// read into Size) or a GNU .zdebug section ("ZLIB" and a big-endian size,
// which debug/elf reads only when the section is opened).
func compressedSize(sec *elf.Section) (uint64, bool) {
	if sec.Type == elf.SHT_NOBITS {
		return 0, false
	}
	if sec.Flags&elf.SHF_COMPRESSED != 0 {
		return sec.Size, true
	}
	if !strings.HasPrefix(sec.Name, ".zdebug") {
		return sec.Size, false
	}
	var h [12]byte
	if n, _ := sec.ReadAt(h[:], 0); n != 12 || string(h[:4]) != "ZLIB" {
		return sec.Size, false
	}
	var size uint64
	for _, c := range h[4:] {
		size = size<<8 | uint64(c)
	}
	return size, true
}

// debugBudget is what is left of the limit on uncompressed debug data
// while the sections of one file are read.
type debugBudget struct {
	max, left int64
}

func newDebugBudget(max int64) *debugBudget { return &debugBudget{max: max, left: max} }

// Compressed debug info shrinks 3 to 10 times, and zlib cannot shrink
// anything more than about 1032 times; zstd, with blocks that repeat one
// byte, 32768 times. A section that claims to expand more than maxRatio
// times its stored size (plus maxRatioSlack, for tiny sections) is a bomb,
// whatever the limit: so what a file costs stays proportional to its size.
const (
	maxRatio      = 1024
	maxRatioSlack = 1 << 20
)

// take charges size bytes of section name, stored in stored bytes, to the
// budget.
func (b *debugBudget) take(name string, size, stored uint64) error {
	if size > uint64(b.left) {
		return fmt.Errorf("section %s: %w: %d bytes uncompressed, over the limit of %d bytes",
			name, ErrDebugTooLarge, size, b.max)
	}
	if stored < 1<<40 && size > stored*maxRatio+maxRatioSlack {
		return fmt.Errorf("section %s: %w: %d bytes stored claim %d bytes uncompressed, more than %d times as many",
			name, ErrDebugTooLarge, stored, size, maxRatio)
	}
	b.left -= int64(size)
	return nil
}

// sectionData reads sec within the budget. Only compressed sections are
// charged: an uncompressed one is bounded by the file that holds it, and
// is read in chunks by debug/elf, so a size field larger than the file
// costs nothing. A compressed one is decompressed as a stream into a
// buffer of the size its header claims, which the stream cannot overflow:
// a header cannot claim little and deliver gigabytes either, and the
// buffer is not grown (and copied) as debug/elf grows it.
func sectionData(sec *elf.Section, budget *debugBudget) ([]byte, error) {
	size, compressed := compressedSize(sec)
	var b []byte
	var err error
	if compressed {
		if err := budget.take(sec.Name, size, sec.FileSize); err != nil {
			return nil, err
		}
		b = make([]byte, size)
		_, err = io.ReadFull(sec.Open(), b)
	} else {
		b, err = sec.Data()
	}
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("section %s: truncated (%d bytes claimed)", sec.Name, size)
		}
		return nil, fmt.Errorf("section %s: %w", sec.Name, err)
	}
	return b, nil
}

// checkDebugSizes charges every compressed section of f (the debug
// sections and the relocations for them alike) to a budget of max bytes,
// before (*elf.File).DWARF decompresses whichever it wants.
func checkDebugSizes(f *elf.File, max int64) error {
	budget := newDebugBudget(max)
	for _, s := range f.Sections {
		if size, compressed := compressedSize(s); compressed {
			if err := budget.take(s.Name, size, s.FileSize); err != nil {
				return err
			}
		}
	}
	return nil
}

// newELF is elf.NewFile for an untrusted file. elf.NewFile decompresses
// the section name table when its header says SHF_COMPRESSED, and later
// reads of symbols or DWARF decompress their sections whole: a 128 KB
// file can ask for gigabytes. The section headers are read first, and the
// file is refused when its compressed sections claim more than maxSize
// bytes together or when its name table is compressed (no tool does
// that), so no later read of any section can cost more than maxSize.
func newELF(r io.ReaderAt, maxSize int64) (*elf.File, error) {
	if err := checkCompressed(r, maxSize); err != nil {
		return nil, err
	}
	return elf.NewFile(r)
}

// checkCompressed reads the ELF and section headers of r, and the
// compression header of each SHF_COMPRESSED section, through elfx (the one
// package that decodes ELF headers), with a bounded number of small reads.
// A file elfx cannot read is left to elf.NewFile, which says why.
func checkCompressed(r io.ReaderAt, maxSize int64) error {
	size, ok := elfx.ReaderSize(r)
	if !ok {
		return fmt.Errorf("cannot tell the size of the file")
	}
	f, err := elfx.NewHeaders(r, size)
	if err != nil {
		return nil
	}
	secs, err := f.Sections()
	if err != nil {
		return err // headers debug/elf would read without the budget
	}
	if i := f.ShStrNdx(); i > 0 && i < len(secs) && secs[i].Flags&elf.SHF_COMPRESSED != 0 {
		return fmt.Errorf("the section name table is compressed")
	}
	budget := newDebugBudget(maxSize)
	for i, s := range secs {
		h, compressed, err := f.Chdr(s)
		if !compressed || err != nil {
			continue // elf.NewFile reports a header past the end
		}
		name := report.Clean(s.Name)
		if name == "" {
			name = fmt.Sprintf("#%d", i)
		}
		if err := budget.take(name, h.Size, s.Size); err != nil {
			return err
		}
	}
	return nil
}
