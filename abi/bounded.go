package abi

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

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
		return fmt.Errorf("section %s: %w: %d bytes uncompressed, over the limit of %d bytes (--max-debug-size)",
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

// checkCompressed reads the ELF and section headers of r, and the compression
// header of each SHF_COMPRESSED section, with a bounded number of small reads.
func checkCompressed(r io.ReaderAt, maxSize int64) error {
	var ident [64]byte
	if n, _ := r.ReadAt(ident[:], 0); n < 52 {
		return nil // too short for an ELF header: elf.NewFile says why
	}
	if string(ident[:4]) != elf.ELFMAG {
		return nil
	}
	var bo binary.ByteOrder
	switch elf.Data(ident[elf.EI_DATA]) {
	case elf.ELFDATA2LSB:
		bo = binary.LittleEndian
	case elf.ELFDATA2MSB:
		bo = binary.BigEndian
	default:
		return nil
	}
	is64 := elf.Class(ident[elf.EI_CLASS]) == elf.ELFCLASS64
	var shoff uint64
	var shentsize, shnum, shstrndx uint16
	if is64 {
		shoff = bo.Uint64(ident[40:])
		shentsize, shnum, shstrndx = bo.Uint16(ident[58:]), bo.Uint16(ident[60:]), bo.Uint16(ident[62:])
	} else {
		shoff = uint64(bo.Uint32(ident[32:]))
		shentsize, shnum, shstrndx = bo.Uint16(ident[46:]), bo.Uint16(ident[48:]), bo.Uint16(ident[50:])
	}
	want := uint16(40)
	if is64 {
		want = 64
	}
	if shoff == 0 || shnum == 0 || shentsize != want || shoff > 1<<62 {
		return nil // no sections, or headers elf.NewFile refuses itself
	}
	parse := func(h []byte) shdr {
		if is64 {
			return shdr{bo.Uint32(h[0:]), bo.Uint64(h[8:]), bo.Uint64(h[24:]), bo.Uint64(h[32:])}
		}
		return shdr{bo.Uint32(h[0:]), uint64(bo.Uint32(h[8:])), uint64(bo.Uint32(h[16:])), uint64(bo.Uint32(h[20:]))}
	}
	// Names, for the error only: from an uncompressed table of sane size.
	var names []byte
	var strtab shdr
	if shstrndx < shnum {
		h := make([]byte, shentsize)
		if n, _ := r.ReadAt(h, int64(shoff)+int64(shstrndx)*int64(shentsize)); n == len(h) {
			strtab = parse(h)
			if strtab.flags&uint64(elf.SHF_COMPRESSED) != 0 {
				return fmt.Errorf("the section name table is compressed")
			}
			if strtab.size <= 1<<20 && strtab.off < 1<<62 {
				names = make([]byte, strtab.size)
				if n, _ := r.ReadAt(names, int64(strtab.off)); n < len(names) {
					names = nil
				}
			}
		}
	}
	name := func(s shdr, i int) string {
		if off := s.name; uint64(off) < uint64(len(names)) {
			if n := bytes.IndexByte(names[off:], 0); n >= 0 {
				return report.Clean(string(names[off : int(off)+n]))
			}
		}
		return fmt.Sprintf("#%d", i)
	}
	budget := newDebugBudget(maxSize)
	// The table is read 64 headers at a time, so a header that claims
	// 65535 sections costs nothing in a file that does not hold them.
	chunk := make([]byte, 64*int(shentsize))
	for first := 0; first < int(shnum); first += 64 {
		k := min(64, int(shnum)-first)
		b := chunk[:k*int(shentsize)]
		if n, _ := r.ReadAt(b, int64(shoff)+int64(first)*int64(shentsize)); n < len(b) {
			return nil // elf.NewFile reports the truncated table
		}
		for j := range k {
			if err := checkChdr(r, parse(b[j*int(shentsize):]), first+j, is64, bo, budget, name); err != nil {
				return err
			}
		}
	}
	return nil
}

// shdr is what checkCompressed needs of a section header.
type shdr struct {
	name       uint32
	flags, off uint64
	size       uint64
}

// checkChdr charges section i (header s) to the budget when it is
// compressed, by the size its compression header claims.
func checkChdr(r io.ReaderAt, s shdr, i int, is64 bool, bo binary.ByteOrder, budget *debugBudget, name func(shdr, int) string) error {
	if s.flags&uint64(elf.SHF_COMPRESSED) == 0 || s.off > 1<<62 {
		return nil
	}
	var ch [24]byte
	n := 12 // Elf32_Chdr: type, size, addralign
	if is64 {
		n = 24 // Elf64_Chdr: type, reserved, size, addralign
	}
	if k, _ := r.ReadAt(ch[:n], int64(s.off)); k < n {
		return nil // elf.NewFile reports it
	}
	claim := uint64(bo.Uint32(ch[4:]))
	if is64 {
		claim = bo.Uint64(ch[8:])
	}
	return budget.take(name(s, i), claim, s.size)
}
