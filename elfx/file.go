package elfx

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"io"

	"github.com/abifloor/abifloor/internal/input"
)

// File is an ELF file opened for lazy reading. It is not safe for
// concurrent use; open one File per goroutine.
type File struct {
	Class   elf.Class
	Data    elf.Data
	OSABI   elf.OSABI
	Type    elf.Type
	Machine elf.Machine
	Entry   uint64
	// Progs are the program headers, in file order.
	Progs []Prog
	// Interp is the PT_INTERP path ("" when absent).
	Interp string
	// Dynamic is the decoded dynamic section, or nil for a static file.
	Dynamic *Dynamic

	rd       reader
	bo       binary.ByteOrder
	phoff    int64
	phentsz  int64
	phnum    int64
	shoff    int64
	shentsz  int64
	shnum    int64
	sections []Section // read on first need
	secErr   error
	closer   io.Closer

	// cached tables
	needs    []VerNeed
	needsErr error
	needsOK  bool
	defs     []VerDef
	defsErr  error
	defsOK   bool
	nsyms    int64
	// dynstr is the whole dynamic string table once symbols are read;
	// every name is a substring of it, so names cost no copies.
	dynstr    string
	dynstrSet bool
	// symtab is the dynamic symbol table once read (SymTab).
	symtab    *SymTab
	symtabErr error
	symtabSet bool
	// relSyms are the values and sections of .symtab's symbols, for
	// relocating debug sections (DebugData).
	relSyms    []relocSym
	relSymsErr error
	// relocFor maps a section to the relocation sections for it.
	relocFor    map[int][]int
	relocForErr error
}

// Prog is one program header.
type Prog struct {
	Type   elf.ProgType
	Flags  elf.ProgFlag
	Off    uint64
	Vaddr  uint64
	Filesz uint64
	Memsz  uint64
}

// Section is one section header (read only when program headers do not
// give what is needed).
type Section struct {
	Name    string
	Type    elf.SectionType
	Flags   elf.SectionFlag
	Addr    uint64
	Off     uint64
	Size    uint64
	Link    uint32
	Info    uint32
	Entsize uint64
}

// IsELF reports whether b starts with the ELF magic.
func IsELF(b []byte) bool { return len(b) >= 4 && bytes.Equal(b[:4], []byte(elf.ELFMAG)) }

// Open opens the named file. It refuses anything but a regular file, so a
// FIFO or device named on the command line is never read.
func Open(path string) (*File, error) {
	in, err := input.Open(path, nil, make([]byte, chunkSize))
	if err != nil {
		return nil, err
	}
	f, err := NewFileHead(in.FD, in.Size, in.Head)
	if err != nil {
		in.Close()
		return nil, err
	}
	f.closer = in
	return f, nil
}

// Close closes the underlying file when the File was made by Open.
func (f *File) Close() error {
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}

// NewFile reads the ELF header, program headers, PT_INTERP and the dynamic
// section of the size-byte file r.
func NewFile(r io.ReaderAt, size int64) (*File, error) {
	return NewFileHead(r, size, nil)
}

// newHeader reads the ELF header of a file of size bytes, from head when
// the caller has read the file's first bytes, else from the first chunk.
func newHeader(r io.ReaderAt, size int64, head []byte, s *Scratch) (*File, error) {
	var f *File
	if s != nil {
		f = &s.file // a File made with s is not used after the next
		*f = File{}
	} else {
		f = new(File)
	}
	f.rd = reader{r: r, size: size, scratch: s}
	if len(head) > 0 {
		f.rd.chunks[0] = chunk{off: 0, b: head[:min(int64(len(head)), size)]}
	} else {
		n := min(size, chunkSize)
		b, err := f.rd.fresh(0, n)
		if err != nil && n >= 4 {
			return nil, err
		}
		f.rd.chunks[0] = chunk{off: 0, b: b}
	}
	if err := f.readHeader(); err != nil {
		return nil, err
	}
	return f, nil
}

// NewFileHead is NewFile for a caller that has already read the first bytes
// of the file (to check the magic); head saves re-reading them.
func NewFileHead(r io.ReaderAt, size int64, head []byte) (*File, error) {
	return NewFileScratch(r, size, head, nil)
}

// NewFileScratch is NewFileHead reading through s's buffers (nil: its
// own). The File must not be used once another is made with s: a scan
// worker makes one per file and drops it before the next.
func NewFileScratch(r io.ReaderAt, size int64, head []byte, s *Scratch) (*File, error) {
	f, err := newHeader(r, size, head, s)
	if err != nil {
		return nil, err
	}
	if err := f.readProgs(); err != nil {
		return nil, err
	}
	if err := f.readInterp(); err != nil {
		return nil, err
	}
	if err := f.readDynamic(); err != nil {
		return nil, err
	}
	return f, nil
}

// Size is the file size in bytes.
func (f *File) Size() int64 { return f.rd.size }

// ByteOrder is the file's byte order.
func (f *File) ByteOrder() binary.ByteOrder { return f.bo }

func (f *File) is64() bool { return f.Class == elf.ELFCLASS64 }

// word reads a class-sized word (4 or 8 bytes).
func (f *File) word(b []byte) uint64 {
	if f.is64() {
		return f.bo.Uint64(b)
	}
	return uint64(f.bo.Uint32(b))
}

func (f *File) readHeader() error {
	ident, err := f.rd.at(0, elf.EI_NIDENT)
	if err != nil || !IsELF(ident) {
		if f.rd.size >= 4 {
			if b, e := f.rd.at(0, 4); e == nil && IsELF(b) {
				return formatErr(0, "truncated ELF identification (file is %d bytes)", f.rd.size)
			}
		}
		return ErrNotELF
	}
	f.Class = elf.Class(ident[elf.EI_CLASS])
	f.Data = elf.Data(ident[elf.EI_DATA])
	f.OSABI = elf.OSABI(ident[elf.EI_OSABI])
	switch f.Data {
	case elf.ELFDATA2LSB:
		f.bo = binary.LittleEndian
	case elf.ELFDATA2MSB:
		f.bo = binary.BigEndian
	default:
		return formatErr(elf.EI_DATA, "unknown data encoding %d", ident[elf.EI_DATA])
	}
	var hsize int64
	switch f.Class {
	case elf.ELFCLASS64:
		hsize = 64
	case elf.ELFCLASS32:
		hsize = 52
	default:
		return formatErr(elf.EI_CLASS, "unknown class %d", ident[elf.EI_CLASS])
	}
	h, err := f.rd.at(0, hsize)
	if err != nil {
		return formatErr(0, "truncated ELF header (file is %d bytes, header needs %d)", f.rd.size, hsize)
	}
	f.Type = elf.Type(f.bo.Uint16(h[16:]))
	f.Machine = elf.Machine(f.bo.Uint16(h[18:]))
	var phentsz, phnum, shentsz, shnum uint16
	if f.is64() {
		f.Entry = f.bo.Uint64(h[24:])
		f.phoff = int64(f.bo.Uint64(h[32:]))
		f.shoff = int64(f.bo.Uint64(h[40:]))
		phentsz, phnum = f.bo.Uint16(h[54:]), f.bo.Uint16(h[56:])
		shentsz, shnum = f.bo.Uint16(h[58:]), f.bo.Uint16(h[60:])
	} else {
		f.Entry = uint64(f.bo.Uint32(h[24:]))
		f.phoff = int64(f.bo.Uint32(h[28:]))
		f.shoff = int64(f.bo.Uint32(h[32:]))
		phentsz, phnum = f.bo.Uint16(h[42:]), f.bo.Uint16(h[44:])
		shentsz, shnum = f.bo.Uint16(h[46:]), f.bo.Uint16(h[48:])
	}
	f.phentsz, f.phnum = int64(phentsz), int64(phnum)
	f.shentsz, f.shnum = int64(shentsz), int64(shnum)
	if f.phoff < 0 || f.shoff < 0 {
		return formatErr(0, "header offsets out of range")
	}
	// Extended numbering: counts that do not fit live in section 0.
	if (phnum == 0xffff || (shnum == 0 && f.shoff != 0)) && f.shoff != 0 {
		s0, _, err := f.readSectionHeader(0)
		if err != nil {
			return err
		}
		if phnum == 0xffff {
			f.phnum = int64(s0.Info)
		}
		if shnum == 0 {
			f.shnum = int64(s0.Size)
		}
	}
	return nil
}

func (f *File) readProgs() error {
	if f.phnum == 0 || f.phoff == 0 {
		return nil
	}
	want := int64(32)
	if f.is64() {
		want = 56
	}
	if f.phentsz < want {
		return formatErr(f.phoff, "program header entry size %d, want at least %d", f.phentsz, want)
	}
	if f.phnum > f.rd.size/f.phentsz {
		return formatErr(f.phoff, "%d program headers cannot fit in a %d-byte file", f.phnum, f.rd.size)
	}
	b, err := f.rd.at(f.phoff, f.phnum*f.phentsz)
	if err != nil {
		return formatErr(f.phoff, "program headers (%d of %d bytes) past end of file", f.phnum, f.phentsz)
	}
	// b aliases the cache: it is decoded here, before any other read.
	if s := f.rd.scratch; s != nil {
		if int64(cap(s.progs)) < f.phnum {
			s.progs = make([]Prog, f.phnum)
		}
		f.Progs = s.progs[:f.phnum]
	} else {
		f.Progs = make([]Prog, f.phnum)
	}
	for i := range f.Progs {
		e := b[int64(i)*f.phentsz:]
		p := &f.Progs[i]
		p.Type = elf.ProgType(f.bo.Uint32(e))
		if f.is64() {
			p.Flags = elf.ProgFlag(f.bo.Uint32(e[4:]))
			p.Off, p.Vaddr = f.bo.Uint64(e[8:]), f.bo.Uint64(e[16:])
			p.Filesz, p.Memsz = f.bo.Uint64(e[32:]), f.bo.Uint64(e[40:])
		} else {
			p.Off, p.Vaddr = uint64(f.bo.Uint32(e[4:])), uint64(f.bo.Uint32(e[8:]))
			p.Filesz, p.Memsz = uint64(f.bo.Uint32(e[16:])), uint64(f.bo.Uint32(e[20:]))
			p.Flags = elf.ProgFlag(f.bo.Uint32(e[24:]))
		}
	}
	return nil
}

// readInterp reads the PT_INTERP path.
func (f *File) readInterp() error {
	for _, p := range f.Progs {
		// Separate debug files keep PT_INTERP with no bytes behind it.
		if p.Type != elf.PT_INTERP || p.Filesz == 0 {
			continue
		}
		if p.Off > uint64(f.rd.size) || p.Filesz > uint64(f.rd.size)-p.Off {
			return formatErr(int64(p.Off), "PT_INTERP (%d bytes) past end of file", p.Filesz)
		}
		s, err := f.rd.cstring(int64(p.Off), int64(p.Off+p.Filesz))
		if err != nil {
			return err
		}
		f.Interp = s
	}
	return nil
}

// Prog returns the first program header of type t, or nil.
func (f *File) Prog(t elf.ProgType) *Prog {
	for i := range f.Progs {
		if f.Progs[i].Type == t {
			return &f.Progs[i]
		}
	}
	return nil
}

// Sections reads the section headers (once) and their names.
func (f *File) Sections() ([]Section, error) {
	if f.sections != nil || f.secErr != nil {
		return f.sections, f.secErr
	}
	f.sections, f.secErr = f.readSections()
	return f.sections, f.secErr
}

func (f *File) readSectionHeader(i int64) (s Section, nameOff uint32, err error) {
	want := int64(40)
	if f.is64() {
		want = 64
	}
	if f.shentsz < want {
		return s, 0, formatErr(f.shoff, "section header entry size %d, want at least %d", f.shentsz, want)
	}
	off := f.shoff + i*f.shentsz
	e, err := f.rd.at(off, want)
	if err != nil {
		return s, 0, formatErr(off, "section header %d past end of file", i)
	}
	s.Type = elf.SectionType(f.bo.Uint32(e[4:]))
	if f.is64() {
		s.Flags = elf.SectionFlag(f.bo.Uint64(e[8:]))
		s.Addr, s.Off, s.Size = f.bo.Uint64(e[16:]), f.bo.Uint64(e[24:]), f.bo.Uint64(e[32:])
		s.Link, s.Info = f.bo.Uint32(e[40:]), f.bo.Uint32(e[44:])
		s.Entsize = f.bo.Uint64(e[56:])
	} else {
		s.Flags = elf.SectionFlag(f.bo.Uint32(e[8:]))
		s.Addr, s.Off, s.Size = uint64(f.bo.Uint32(e[12:])), uint64(f.bo.Uint32(e[16:])), uint64(f.bo.Uint32(e[20:]))
		s.Link, s.Info = f.bo.Uint32(e[24:]), f.bo.Uint32(e[28:])
		s.Entsize = uint64(f.bo.Uint32(e[36:]))
	}
	return s, f.bo.Uint32(e), nil
}

func (f *File) readSections() ([]Section, error) {
	if f.shoff == 0 || f.shnum == 0 {
		return []Section{}, nil
	}
	if f.shentsz == 0 || f.shnum < 0 || f.shnum > f.rd.size/f.shentsz { // shnum from section 0 may be any uint64
		return nil, formatErr(f.shoff, "%d section headers cannot fit in a %d-byte file", f.shnum, f.rd.size)
	}
	secs := make([]Section, f.shnum)
	nameOff := make([]uint32, f.shnum)
	// The table is read in one go where it fits a read window (an
	// object file's hundreds of headers, read one by one, cost a read
	// each as the names in between evicted them).
	f.rd.prefetch(f.shoff, f.shoff+f.shnum*f.shentsz)
	for i := range secs {
		s, name, err := f.readSectionHeader(int64(i))
		if err != nil {
			return nil, err
		}
		nameOff[i] = name
		secs[i] = s
	}
	// Names are best effort: a broken .shstrtab leaves them empty. Names
	// that overlap past the bound of nameAmplification are an error.
	shstrndx := f.shstrndx()
	f.rd.intern = true
	defer func() { f.rd.intern = false }()
	if shstrndx > 0 && shstrndx < int64(len(secs)) {
		st := secs[shstrndx]
		if st.Off <= uint64(f.rd.size) && st.Size <= uint64(f.rd.size)-st.Off {
			f.rd.prefetch(int64(st.Off), int64(st.Off+st.Size))
		}
		var used nameBudget
		for i := range secs {
			if uint64(nameOff[i]) < st.Size {
				// A name that cannot be read (too long, or not ended
				// inside its table) is left empty; it cost a scan, and
				// no copy.
				if n, err := f.rd.cstring(int64(st.Off)+int64(nameOff[i]), int64(st.Off+st.Size)); err == nil {
					if err := used.take(n, int64(min(st.Size, uint64(f.rd.size))), f.shoff+int64(i)*f.shentsz, "section"); err != nil {
						return nil, err
					}
					secs[i].Name = n
				}
			}
		}
	}
	return secs, nil
}

func (f *File) shstrndx() int64 {
	h, err := f.rd.at(0, 64)
	if err != nil {
		return 0
	}
	var n uint16
	if f.is64() {
		n = f.bo.Uint16(h[62:])
	} else {
		n = f.bo.Uint16(h[50:])
	}
	if n == uint16(elf.SHN_XINDEX) {
		if s0, _, err := f.readSectionHeader(0); err == nil {
			return int64(s0.Link)
		}
	}
	return int64(n)
}

// offset maps a virtual address to a file offset through PT_LOAD segments,
// or, for files without them, through allocated sections.
func (f *File) offset(addr uint64) (int64, bool) {
	loads := false
	for _, p := range f.Progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		loads = true
		if addr >= p.Vaddr && addr-p.Vaddr < p.Filesz {
			return int64(p.Off + (addr - p.Vaddr)), true
		}
	}
	if loads {
		return 0, false
	}
	secs, _ := f.Sections()
	for _, s := range secs {
		if s.Flags&elf.SHF_ALLOC != 0 && s.Type != elf.SHT_NOBITS && addr >= s.Addr && addr-s.Addr < s.Size {
			return int64(s.Off + (addr - s.Addr)), true
		}
	}
	return 0, false
}
