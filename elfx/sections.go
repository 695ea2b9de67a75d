package elfx

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"io"
	"strings"
)

// NewHeaders reads only the ELF header of the size-byte file r, for a
// reader that wants its section headers (Sections) and the compression
// headers of its sections (Chdr), not its dynamic segment: a separate
// debug file or an object file, whose program headers may be empty or
// describe bytes the file does not hold.
func NewHeaders(r io.ReaderAt, size int64) (*File, error) {
	return newHeader(r, size, nil, nil)
}

// ShStrNdx is the index of the section name table (0 when there is none).
func (f *File) ShStrNdx() int { return int(f.shstrndx()) }

// Chdr is the compression header at the start of an SHF_COMPRESSED
// section (Elf32_Chdr, Elf64_Chdr).
type Chdr struct {
	Type      elf.CompressionType
	Size      uint64 // the section's size once decompressed
	Addralign uint64
}

// Chdr reads the compression header of section s. ok is false when s is
// not SHF_COMPRESSED (or is SHT_NOBITS); a header past the end of the file
// is an error.
func (f *File) Chdr(s Section) (h Chdr, ok bool, err error) {
	if s.Flags&elf.SHF_COMPRESSED == 0 || s.Type == elf.SHT_NOBITS {
		return h, false, nil
	}
	n := int64(12) // type, size, addralign
	if f.is64() {
		n = 24 // type, reserved, size, addralign
	}
	if s.Off > uint64(f.rd.size) || uint64(n) > uint64(f.rd.size)-s.Off {
		return h, true, formatErr(int64(min(s.Off, 1<<62)), "section %s: compression header past end of file", s.Name)
	}
	b, err := f.rd.at(int64(s.Off), n)
	if err != nil {
		return h, true, formatErr(int64(s.Off), "section %s: compression header past end of file", s.Name)
	}
	h.Type = elf.CompressionType(f.bo.Uint32(b))
	if f.is64() {
		h.Size, h.Addralign = f.bo.Uint64(b[8:]), f.bo.Uint64(b[16:])
	} else {
		h.Size, h.Addralign = uint64(f.bo.Uint32(b[4:])), uint64(f.bo.Uint32(b[8:]))
	}
	return h, true, nil
}

// UncompressedSize is what section s holds once decompressed, and
// whether it is compressed at all: by its compression header
// (SHF_COMPRESSED), or for a GNU .zdebug section by its "ZLIB" header and
// big-endian size. A compressed section whose header is past the end of
// the file is an error.
func (f *File) UncompressedSize(s Section) (uint64, bool, error) {
	if s.Type == elf.SHT_NOBITS {
		return 0, false, nil
	}
	if h, ok, err := f.Chdr(s); ok {
		return h.Size, true, err
	}
	if !strings.HasPrefix(s.Name, ".zdebug") || s.Size < 12 || s.Off > uint64(f.rd.size) || 12 > uint64(f.rd.size)-s.Off {
		return s.Size, false, nil
	}
	b, err := f.rd.at(int64(s.Off), 12)
	if err != nil || string(b[:4]) != "ZLIB" {
		return s.Size, false, nil
	}
	return binary.BigEndian.Uint64(b[4:]), true, nil
}

// SectionTable is where the section header table lies: its offset and
// size in bytes, as the ELF header claims them (0, 0 when there is none).
func (f *File) SectionTable() (off, size int64) {
	if f.shoff == 0 || f.shnum == 0 {
		return 0, 0
	}
	return f.shoff, f.shnum * f.shentsz
}

// HeadLayout reads the program headers of an ELF file from its first
// bytes, head, for a reader that has not got the rest (a member of a
// stream that decides what of it to keep): the File has the ELF header,
// Progs and SectionTable, nothing more. It is an error when head does not
// hold the program header table.
func HeadLayout(head []byte) (*File, error) {
	f, err := NewHeaders(bytes.NewReader(head), int64(len(head)))
	if err != nil {
		return nil, err
	}
	if err := f.readProgs(); err != nil {
		return nil, err
	}
	return f, nil
}
