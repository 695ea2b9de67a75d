package elfx

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/abifloor/abifloor/internal/limits"
	"github.com/klauspost/compress/zlib"

	"github.com/klauspost/compress/zstd"
)

// ErrTooLarge is wrapped by errors about compressed sections that would
// expand past a Budget, or more than MaxRatio times their stored size.
var ErrTooLarge = errors.New("compressed section too large")

// ErrHoldLimit is wrapped by errors about tables (symbols, strings,
// versions, hashes) that add up to more than File.LimitTables allows.
var ErrHoldLimit = errors.New("tables too large for the input")

// LimitTables bounds the bytes of the tables f reads whole, together, to
// n (why says where n comes from, in errors). A member of an artefact is
// read from far fewer bytes than its size: a 245 KB .tar.gz held a
// library whose one symbol name was 240 MiB, and fit took 258 MB. Its
// tables are held to what the artefact could hold of real ones.
func (f *File) LimitTables(n int64, why string) {
	f.rd.hold, f.rd.why = n, why
}

// Compressed debug info shrinks 3 to 10 times, and zlib cannot shrink
// anything more than about 1032 times; zstd, with blocks that repeat one
// byte, 32768 times. A section that claims to expand more than MaxRatio
// times its stored size (plus ratioSlack, for tiny sections) is a bomb,
// whatever the budget: so what a file costs stays proportional to its
// size.
const (
	MaxRatio   = limits.SectionRatio
	ratioSlack = limits.SectionSlack
)

// Budget bounds what the compressed sections read through it may expand
// to, together: a limits.Budget, which counts every allowance of bytes
// abifloor gives (artefact.Budget is one too), with the errors of a
// section that does not fit.
type Budget struct{ b *limits.Budget }

// NewBudget returns a budget of max bytes of decompressed data.
func NewBudget(max int64) *Budget { return &Budget{limits.NewBudget(max, "")} }

// Because names where the budget's limit comes from in its errors
// ("16 times the file's size").
func (b *Budget) Because(why string) *Budget {
	b.b.SetWhy(why)
	return b
}

// Take charges size bytes of section name, stored in stored bytes, to the
// budget: an error wrapping ErrTooLarge when they do not fit or when they
// claim more than MaxRatio times stored.
func (b *Budget) Take(name string, size, stored uint64) error {
	over := func() error {
		why := ""
		if w := b.b.Why(); w != "" {
			why = " (" + w + ")"
		}
		return fmt.Errorf("section %s: %w: %d bytes uncompressed, over the limit of %d bytes%s",
			name, ErrTooLarge, size, b.b.Max(), why)
	}
	if size > uint64(max(b.b.Left(), 0)) {
		return over()
	}
	if stored < 1<<40 && size > stored*MaxRatio+ratioSlack {
		return fmt.Errorf("section %s: %w: %d bytes stored claim %d bytes uncompressed, more than %d times as many",
			name, ErrTooLarge, stored, size, MaxRatio)
	}
	// Readers that share the budget may have taken some of it since the
	// test above: the charge itself decides.
	if !b.b.Take(size) {
		return over()
	}
	return nil
}

// Section returns the first section named name, or nil when there is
// none or the section headers cannot be read (Sections says why).
func (f *File) Section(name string) *Section {
	secs, _ := f.Sections()
	for i := range secs {
		if secs[i].Name == name {
			return &secs[i]
		}
	}
	return nil
}

// SectionData returns the contents of section s as a reader of them sees
// them: an SHF_COMPRESSED section (zlib or zstd) or a GNU .zdebug section
// ("ZLIB" and a big-endian size) decompressed, an SHT_NOBITS one empty.
// A compressed section is charged to budget at the size its header claims
// before anything is decompressed, and is decompressed as a stream into a
// buffer of that size, which the stream cannot overflow; a stream shorter
// than its claim is an error ("truncated"). An uncompressed section must
// lie inside the file and costs its stored size.
func (f *File) SectionData(s *Section, budget *Budget) ([]byte, error) {
	if s.Type == elf.SHT_NOBITS {
		return nil, nil
	}
	size, compressed, err := f.UncompressedSize(*s)
	if err != nil {
		return nil, err
	}
	if !compressed {
		if !f.rd.in(int64(min(s.Off, 1<<62)), int64(min(s.Size, 1<<62))) {
			return nil, formatErr(int64(min(s.Off, 1<<62)), "section %s (%d bytes) past end of file", s.Name, s.Size)
		}
		return f.rd.fresh(int64(s.Off), int64(s.Size))
	}
	if s.Flags&elf.SHF_COMPRESSED != 0 && s.Flags&elf.SHF_ALLOC != 0 {
		return nil, formatErr(int64(s.Off), "section %s: SHF_COMPRESSED applies only to non-allocable sections", s.Name)
	}
	// The compressed stream, clipped to the file: a stream that runs past
	// its end is truncated.
	hdr, ct := uint64(12), elf.COMPRESS_ZLIB // .zdebug: "ZLIB" and the size
	if s.Flags&elf.SHF_COMPRESSED != 0 {
		h, _, _ := f.Chdr(*s)
		ct = h.Type
		hdr = 12
		if f.is64() {
			hdr = 24
		}
	}
	stored := min(s.Size, uint64(f.rd.size)-s.Off) // Chdr checked s.Off
	if budget == nil {
		budget = NewBudget(1 << 62)
	}
	if err := budget.Take(printable(s.Name), size, s.Size); err != nil {
		return nil, err
	}
	var src io.Reader = io.NewSectionReader(f.rd.r, int64(s.Off+min(hdr, stored)), int64(stored-min(hdr, stored)))
	switch ct {
	case elf.COMPRESS_ZLIB:
		z, err := zlib.NewReader(src)
		if err != nil {
			return nil, f.streamErr(s, size, err)
		}
		defer z.Close()
		src = z
	case elf.COMPRESS_ZSTD:
		// The window a frame may ask for is bounded by what the section
		// claims (already charged), not by the decoder's default.
		z, err := zstd.NewReader(src, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(min(max(size, zstd.MinWindowSize), zstd.MaxWindowSize)))
		if err != nil {
			return nil, f.streamErr(s, size, err)
		}
		defer z.Close()
		src = z
	default:
		return nil, formatErr(int64(s.Off), "section %s: unknown compression type %d", s.Name, uint32(ct))
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(src, b); err != nil {
		return nil, f.streamErr(s, size, err)
	}
	return b, nil
}

// streamErr is the error of a compressed section whose stream failed.
func (f *File) streamErr(s *Section, size uint64, err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return formatErr(int64(s.Off), "section %s: truncated (%d bytes claimed)", s.Name, size)
	}
	return formatErr(int64(s.Off), "section %s: %v", s.Name, err)
}

// DWARFName is the name debug/dwarf knows section s by: ".debug_info"
// for .debug_info and for GNU .zdebug_info, "" for a section that is not
// debug info.
func DWARFName(s *Section) string {
	switch {
	case strings.HasPrefix(s.Name, ".debug_"):
		return s.Name
	case strings.HasPrefix(s.Name, ".zdebug_"):
		return ".debug_" + s.Name[len(".zdebug_"):]
	}
	return ""
}

// DebugData is SectionData of section i, a debug section, with the
// relocations a relocatable object (ET_REL) keeps for it applied: those
// of every SHT_REL or SHT_RELA section whose sh_info names it, against
// the symbols of the first SHT_SYMTAB. Only the absolute relocations
// debug info uses are applied (symbol plus addend, 4 or 8 bytes, as
// debug/elf applies them); the rest are left as they are. A linked file's
// sections are returned as stored. Relocation sections are charged to
// budget too when compressed.
func (f *File) DebugData(i int, budget *Budget) ([]byte, error) {
	secs, err := f.Sections()
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= len(secs) {
		return nil, fmt.Errorf("no section %d", i)
	}
	b, err := f.SectionData(&secs[i], budget)
	if err != nil || f.Type != elf.ET_REL {
		return b, err
	}
	relocs, err := f.relocSections()
	if err != nil {
		return nil, err
	}
	for _, j := range relocs[i] {
		if err := f.applyRelocs(b, &secs[j], budget); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// relocSections maps a section's index to the relocation sections for it,
// once. Relocation sections may not overlap: together (as stored) they
// must fit in the file, so applying each once costs at most its size.
func (f *File) relocSections() (map[int][]int, error) {
	if f.relocFor != nil || f.relocForErr != nil {
		return f.relocFor, f.relocForErr
	}
	secs, _ := f.Sections()
	m := map[int][]int{}
	var total uint64
	for j := range secs {
		r := &secs[j]
		if r.Type != elf.SHT_REL && r.Type != elf.SHT_RELA {
			continue
		}
		if r.Flags&elf.SHF_COMPRESSED == 0 {
			total += min(r.Size, uint64(f.rd.size)+1)
			if total > uint64(f.rd.size) {
				f.relocForErr = formatErr(int64(min(r.Off, 1<<62)), "relocation sections hold more bytes than the file: they overlap")
				return nil, f.relocForErr
			}
		}
		m[int(r.Info)] = append(m[int(r.Info)], j)
	}
	f.relocFor = m
	return m, nil
}

// absRelocs are the relocation types of a machine that store a symbol's
// value plus an addend in 4 or 8 bytes.
type absRelocs struct {
	class      elf.Class
	mask       uint32 // of the type field
	r64, r32   []uint32
	anySection bool // applied to symbols of any section (REL machines in debug/elf)
}

var machineRelocs = map[elf.Machine]absRelocs{
	elf.EM_X86_64:    {class: elf.ELFCLASS64, mask: 0xffff, r64: []uint32{uint32(elf.R_X86_64_64)}, r32: []uint32{uint32(elf.R_X86_64_32)}},
	elf.EM_386:       {class: elf.ELFCLASS32, mask: 0xff, r32: []uint32{uint32(elf.R_386_32)}, anySection: true},
	elf.EM_ARM:       {class: elf.ELFCLASS32, mask: 0xff, r32: []uint32{uint32(elf.R_ARM_ABS32)}, anySection: true},
	elf.EM_AARCH64:   {class: elf.ELFCLASS64, mask: 0xffff, r64: []uint32{uint32(elf.R_AARCH64_ABS64)}, r32: []uint32{uint32(elf.R_AARCH64_ABS32)}},
	elf.EM_PPC:       {class: elf.ELFCLASS32, mask: 0xff, r32: []uint32{uint32(elf.R_PPC_ADDR32)}},
	elf.EM_PPC64:     {class: elf.ELFCLASS64, mask: 0xffff, r64: []uint32{uint32(elf.R_PPC64_ADDR64)}, r32: []uint32{uint32(elf.R_PPC64_ADDR32)}},
	elf.EM_LOONGARCH: {class: elf.ELFCLASS64, mask: 0xffff, r64: []uint32{uint32(elf.R_LARCH_64)}, r32: []uint32{uint32(elf.R_LARCH_32)}},
	elf.EM_RISCV:     {class: elf.ELFCLASS64, mask: 0xffff, r64: []uint32{uint32(elf.R_RISCV_64)}, r32: []uint32{uint32(elf.R_RISCV_32)}},
	elf.EM_S390:      {class: elf.ELFCLASS64, mask: 0xffff, r64: []uint32{uint32(elf.R_390_64)}, r32: []uint32{uint32(elf.R_390_32)}},
	elf.EM_SPARCV9: {class: elf.ELFCLASS64, mask: 0xff, r64: []uint32{uint32(elf.R_SPARC_64), uint32(elf.R_SPARC_UA64)},
		r32: []uint32{uint32(elf.R_SPARC_32), uint32(elf.R_SPARC_UA32)}},
}

// relocsFor is the table of f's machine; MIPS has one per class.
func (f *File) relocsFor() (absRelocs, bool) {
	if f.Machine == elf.EM_MIPS {
		if f.is64() {
			return absRelocs{class: elf.ELFCLASS64, mask: 0xff, r64: []uint32{uint32(elf.R_MIPS_64)}, r32: []uint32{uint32(elf.R_MIPS_32)}}, true
		}
		return absRelocs{class: elf.ELFCLASS32, mask: 0xff, r32: []uint32{uint32(elf.R_MIPS_32)}, anySection: true}, true
	}
	m, ok := machineRelocs[f.Machine]
	return m, ok && m.class == f.Class
}

// relocSym is what a relocation needs of a symbol.
type relocSym struct {
	value   uint64
	section elf.SectionIndex
}

// relocSymbols reads the value and section of each symbol of the first
// SHT_SYMTAB (index 0 included), once.
func (f *File) relocSymbols(budget *Budget) ([]relocSym, error) {
	if f.relSyms != nil || f.relSymsErr != nil {
		return f.relSyms, f.relSymsErr
	}
	f.relSyms, f.relSymsErr = f.readRelocSymbols(budget)
	return f.relSyms, f.relSymsErr
}

func (f *File) readRelocSymbols(budget *Budget) ([]relocSym, error) {
	secs, _ := f.Sections()
	for i := range secs {
		if secs[i].Type != elf.SHT_SYMTAB {
			continue
		}
		b, err := f.SectionData(&secs[i], budget)
		if err != nil {
			return nil, err
		}
		es := f.symEntsize()
		if int64(len(b))%es != 0 {
			return nil, formatErr(int64(secs[i].Off), "%s: %d bytes, not a multiple of the entry size %d", secs[i].Name, len(b), es)
		}
		syms := make([]relocSym, int64(len(b))/es)
		var s Symbol
		for k := range syms {
			f.decodeSym(b[int64(k)*es:], &s)
			syms[k] = relocSym{value: s.Value, section: s.Section}
		}
		return syms, nil
	}
	return nil, formatErr(-1, "relocations for debug info without a symbol table")
}

// applyRelocs applies the relocation section r to dst.
func (f *File) applyRelocs(dst []byte, r *Section, budget *Budget) error {
	m, ok := f.relocsFor()
	if !ok {
		return formatErr(int64(r.Off), "section %s: relocations of %v %v are not supported", r.Name, f.Class, f.Machine)
	}
	rela := r.Type == elf.SHT_RELA
	ent := int64(8)
	if f.is64() {
		ent = 16
	}
	if rela {
		ent += ent / 2
	}
	b, err := f.SectionData(r, budget)
	if err != nil {
		return err
	}
	if int64(len(b))%ent != 0 {
		return formatErr(int64(r.Off), "section %s: %d bytes, not a multiple of the entry size %d", r.Name, len(b), ent)
	}
	syms, err := f.relocSymbols(budget)
	if err != nil {
		return err
	}
	for k := int64(0); k < int64(len(b)); k += ent {
		rel := f.decodeReloc(b[k:], rela)
		if rel.Sym == 0 || uint64(rel.Sym) >= uint64(len(syms)) {
			continue
		}
		sym := syms[rel.Sym]
		if !m.anySection && (sym.section == elf.SHN_UNDEF || sym.section >= elf.SHN_LORESERVE) {
			continue
		}
		t := rel.Type & m.mask
		switch {
		case contains(m.r64, t):
			putReloc(f, dst, rel, 8, sym.value, !rela)
		case contains(m.r32, t):
			putReloc(f, dst, rel, 4, sym.value, !rela)
		}
	}
	return nil
}

func contains(ts []uint32, t uint32) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

// putReloc stores value plus the addend in n bytes at rel.Off of dst; for
// a REL entry the addend is what the bytes hold. A location outside dst,
// or a negative addend, is left alone (as debug/elf leaves it).
func putReloc(f *File, dst []byte, rel Reloc, n, value uint64, implicit bool) {
	if rel.Off > uint64(len(dst)) || n > uint64(len(dst))-rel.Off || rel.Addend < 0 {
		return
	}
	s := dst[rel.Off : rel.Off+n]
	if n == 4 {
		a := uint32(rel.Addend)
		if implicit {
			a += f.bo.Uint32(s)
		}
		f.bo.PutUint32(s, uint32(value)+a)
		return
	}
	a := uint64(rel.Addend)
	if implicit {
		a += f.bo.Uint64(s)
	}
	f.bo.PutUint64(s, value+a)
}

// printable is name with bytes that are not printable ASCII as '?', for
// messages: a section name is whatever the file holds.
func printable(name string) string {
	for i := 0; i < len(name); i++ {
		if name[i] < 0x20 || name[i] >= 0x7f {
			b := []byte(name)
			for j := i; j < len(b); j++ {
				if b[j] < 0x20 || b[j] >= 0x7f {
					b[j] = '?'
				}
			}
			return string(b)
		}
	}
	return name
}
