package glibc

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/symver"
)

// The stub libraries, the redirect thunks and the compat archive are
// written here rather than by the C compiler, the assembler and ar: a
// cold build then runs the compiler only for the polyfills' C and the
// init object. What is written is what the link editors (GNU ld, gold,
// lld) read of a shared library: the dynamic symbols, their versions,
// sections and sizes. See docs/stubs.md.

// byteOrder is binary.LittleEndian or binary.BigEndian.
type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

// elfTarget is how one architecture's files are laid out.
type elfTarget struct {
	class   elf.Class
	order   byteOrder
	machine elf.Machine
	// page is the link editor's maximum page size: a shared library's
	// segments are congruent to it.
	page uint64
}

func elfTargetOf(arch string) (elfTarget, error) {
	switch arch {
	case "x86_64":
		return elfTarget{elf.ELFCLASS64, binary.LittleEndian, elf.EM_X86_64, 0x1000}, nil
	case "i386":
		return elfTarget{elf.ELFCLASS32, binary.LittleEndian, elf.EM_386, 0x1000}, nil
	case "aarch64":
		return elfTarget{elf.ELFCLASS64, binary.LittleEndian, elf.EM_AARCH64, 0x10000}, nil
	case "s390x":
		return elfTarget{elf.ELFCLASS64, binary.BigEndian, elf.EM_S390, 0x1000}, nil
	}
	return elfTarget{}, fmt.Errorf("glibc: no ELF writer for architecture %q", arch)
}

func (t elfTarget) is64() bool { return t.class == elf.ELFCLASS64 }

// word is the size of an address, an offset and a bloom filter word.
func (t elfTarget) word() uint64 {
	if t.is64() {
		return 8
	}
	return 4
}

func (t elfTarget) ehsize() uint64 { return 40 + 3*t.word() }
func (t elfTarget) phsize() uint64 { return 8 + 6*t.word() }
func (t elfTarget) shsize() uint64 { return 16 + 6*t.word() }

func (t elfTarget) symsize() uint64 {
	if t.is64() {
		return 24
	}
	return 16
}

// ewriter appends to an ELF file in the target's byte order and class.
type ewriter struct {
	t elfTarget
	b []byte
}

func (w *ewriter) u8(v uint8)   { w.b = append(w.b, v) }
func (w *ewriter) u16(v uint16) { w.b = w.t.order.AppendUint16(w.b, v) }
func (w *ewriter) u32(v uint32) { w.b = w.t.order.AppendUint32(w.b, v) }
func (w *ewriter) u64(v uint64) { w.b = w.t.order.AppendUint64(w.b, v) }

// word writes addresses, offsets or sizes: 4 bytes each in ELFCLASS32.
func (w *ewriter) word(vs ...uint64) {
	for _, v := range vs {
		if w.t.is64() {
			w.u64(v)
		} else {
			w.u32(uint32(v))
		}
	}
}

// to pads with zeros up to file offset off.
func (w *ewriter) to(off uint64) {
	for uint64(len(w.b)) < off {
		w.b = append(w.b, 0)
	}
}

func (w *ewriter) header(typ elf.Type, phoff, shoff uint64, phnum, shnum, shstrndx int) {
	w.b = append(w.b, 0x7f, 'E', 'L', 'F', byte(w.t.class), byte(dataOf(w.t.order)), byte(elf.EV_CURRENT), byte(elf.ELFOSABI_NONE))
	w.to(16)
	w.u16(uint16(typ))
	w.u16(uint16(w.t.machine))
	w.u32(uint32(elf.EV_CURRENT))
	w.word(0) // e_entry
	w.word(phoff)
	w.word(shoff)
	w.u32(0) // e_flags: gcc's and as's output has none on these four
	w.u16(uint16(w.t.ehsize()))
	if phnum > 0 {
		w.u16(uint16(w.t.phsize()))
	} else {
		w.u16(0)
	}
	w.u16(uint16(phnum))
	w.u16(uint16(w.t.shsize()))
	w.u16(uint16(shnum))
	w.u16(uint16(shstrndx))
}

func dataOf(o byteOrder) elf.Data {
	if o == byteOrder(binary.BigEndian) {
		return elf.ELFDATA2MSB
	}
	return elf.ELFDATA2LSB
}

// section is one section header and, unless NOBITS, its contents.
type section struct {
	name            string
	typ             elf.SectionType
	flags           elf.SectionFlag
	addr, off, size uint64
	link, info      uint32
	align, entsize  uint64
	data            []byte
	nameOff         uint32
}

func (w *ewriter) shdr(s *section) {
	w.u32(s.nameOff)
	w.u32(uint32(s.typ))
	w.word(uint64(s.flags), s.addr, s.off, s.size)
	w.u32(s.link)
	w.u32(s.info)
	w.word(s.align, s.entsize)
}

type segment struct {
	typ                      elf.ProgType
	flags                    elf.ProgFlag
	off, addr, filesz, memsz uint64
	align                    uint64
}

func (w *ewriter) phdr(p segment) {
	w.u32(uint32(p.typ))
	if w.t.is64() {
		w.u32(uint32(p.flags))
	}
	w.word(p.off, p.addr, p.addr, p.filesz, p.memsz) // p_paddr is p_vaddr
	if !w.t.is64() {
		w.u32(uint32(p.flags))
	}
	w.word(p.align)
}

// sym writes one symbol table entry (Elf32_Sym and Elf64_Sym order their
// fields differently).
func (w *ewriter) sym(name uint32, value, size uint64, info, other uint8, shndx uint16) {
	w.u32(name)
	if w.t.is64() {
		w.u8(info)
		w.u8(other)
		w.u16(shndx)
		w.u64(value)
		w.u64(size)
		return
	}
	w.u32(uint32(value))
	w.u32(uint32(size))
	w.u8(info)
	w.u8(other)
	w.u16(shndx)
}

// strtab is a string table; equal strings share one entry.
type strtab struct {
	b   []byte
	off map[string]uint32
}

func newStrtab() *strtab { return &strtab{b: []byte{0}, off: map[string]uint32{"": 0}} }

func (s *strtab) add(v string) uint32 {
	if o, ok := s.off[v]; ok {
		return o
	}
	o := uint32(len(s.b))
	s.b = append(append(s.b, v...), 0)
	s.off[v] = o
	return o
}

func alignUp(v, a uint64) uint64 {
	if a <= 1 {
		return v
	}
	return (v + a - 1) &^ (a - 1)
}

// elfHash is the System V ABI's hash of a name, which a version
// definition's vd_hash holds (the loader compares it before the name).
func elfHash(name string) uint32 {
	var h uint32
	for i := 0; i < len(name); i++ {
		h = h<<4 + uint32(name[i])
		g := h & 0xf0000000
		if g != 0 {
			h ^= g >> 24
		}
		h &^= g
	}
	return h
}

// log2Up is the base-2 logarithm of n rounded up, as GNU ld sizes the
// GNU hash table's bloom filter with it.
func log2Up(n uint64) uint {
	var l uint
	for uint64(1)<<l < n {
		l++
	}
	return l
}

// gnuHashBuckets is GNU ld's bucket count for n hashed symbols (its table
// of primes, without -O): one bucket per one to two symbols.
func gnuHashBuckets(n int) uint32 {
	primes := []uint32{1, 3, 17, 37, 67, 97, 131, 197, 263, 521, 1031, 2053, 4099, 8209, 16411, 32771}
	best := primes[0]
	for i, p := range primes {
		best = p
		if i+1 == len(primes) || uint32(n) < primes[i+1] {
			break
		}
	}
	return best
}

// maxStubSyms bounds a stub's symbols (libc has about 2,300): the GNU
// hash table's and the version table's indexes are 32 and 15 bits.
const maxStubSyms = 1 << 20

// dynsym is one dynamic symbol of a stub library.
type dynsym struct {
	name        string
	value, size uint64
	info        uint8
	shndx       uint16
	versym      uint16
	hash        uint32
}

// writeStubLib returns the stub shared library of s for arch: each
// symbol version of s defined (functions a byte each in .text, objects
// with their size in .data, thread-local ones in .tbss), the version
// definitions, and no code or relocations. It is what
// `cc -shared -nostdlib` made of builder.lib's assembly and version
// script, in what the link editors and the loader read: data symbols of
// one Alias group share their storage (a copy relocation must find one
// copy), objects lie 16-aligned as `.balign 16` put them (the link
// editor aligns a copy by the symbol's section and value), and name@VER
// is a hidden version (versym bit 0x8000), name@@VER the default.
func writeStubLib(arch string, s *StubLib) ([]byte, error) {
	t, err := elfTargetOf(arch)
	if err != nil {
		return nil, err
	}
	if s.Soname == "" {
		return nil, fmt.Errorf("glibc: stub library without a soname")
	}
	if len(s.Syms) > maxStubSyms || len(s.Versions) > math.MaxInt16-2 {
		return nil, fmt.Errorf("glibc: stub %s: %d symbols and %d versions are more than a stub holds", s.Soname, len(s.Syms), len(s.Versions))
	}
	versions := sortedVersions(s.Versions)
	vidx := map[string]uint16{}
	for i, v := range versions {
		if v == "" {
			return nil, fmt.Errorf("glibc: stub %s: an empty version name", s.Soname)
		}
		if _, dup := vidx[v]; dup {
			return nil, fmt.Errorf("glibc: stub %s: version %s listed twice", s.Soname, v)
		}
		vidx[v] = uint16(i + 2) // 1 is the base definition, the soname
	}

	// Where each symbol lies, section-relative: functions in .text, a
	// byte each; objects and TLS 16-aligned, an Alias group's once.
	const (
		secText = iota + 1
		secData
		secTbss
	)
	type place struct {
		sec int
		off uint64
	}
	places := make([]place, len(s.Syms))
	var textSize, dataSize, tbssSize uint64
	placed := map[string]uint64{}
	// A group's storage holds its largest member (sys_sigabbrev's
	// aliases have two sizes), so that every copy lies inside .data.
	groupSize := map[string]uint64{}
	for _, sym := range s.Syms {
		if sym.Kind != Func && sym.Alias != "" {
			k := string(sym.Kind) + sym.Alias
			groupSize[k] = max(groupSize[k], sym.Size)
		}
	}
	for i, sym := range s.Syms {
		if sym.Name == "" {
			return nil, fmt.Errorf("glibc: stub %s: symbol %d has no name", s.Soname, i)
		}
		if _, ok := vidx[sym.Version]; !ok {
			return nil, fmt.Errorf("glibc: stub %s: %s's version %q is not among its versions", s.Soname, sym.Name, sym.Version)
		}
		if sym.Size > 1<<30 {
			return nil, fmt.Errorf("glibc: stub %s: %s's size %d is implausible", s.Soname, sym.Name, sym.Size)
		}
		var size *uint64
		switch sym.Kind {
		case Func:
			places[i] = place{secText, textSize}
			textSize++
			continue
		case Object:
			places[i].sec, size = secData, &dataSize
		case TLS:
			places[i].sec, size = secTbss, &tbssSize
		default:
			return nil, fmt.Errorf("glibc: stub %s: %s has kind %q", s.Soname, sym.Name, sym.Kind)
		}
		key := string(sym.Kind) + sym.Alias
		if off, ok := placed[key]; ok && sym.Alias != "" {
			places[i].off = off
			continue
		}
		off := alignUp(*size, 16)
		places[i].off = off
		*size = off + max(sym.Size, groupSize[key], 1)
		if sym.Alias != "" {
			placed[key] = off
		}
	}

	// Each size is bounded above; so is their sum, which a malformed
	// host libgcc_s.so.1 could make as large as its symbol count allows.
	if dataSize > 1<<31 || tbssSize > 1<<31 {
		return nil, fmt.Errorf("glibc: stub %s: %d bytes of data and %d of thread-local storage are more than a stub holds", s.Soname, dataSize, tbssSize)
	}

	dynstr := newStrtab()
	soname := dynstr.add(s.Soname)

	// The symbols: each version node's own (absolute, as GNU ld writes
	// them), then the library's.
	syms := make([]dynsym, 0, len(versions)+len(s.Syms))
	for _, v := range versions {
		syms = append(syms, dynsym{name: v, info: elf.ST_INFO(elf.STB_GLOBAL, elf.STT_OBJECT), shndx: uint16(elf.SHN_ABS), versym: vidx[v]})
	}
	for i, sym := range s.Syms {
		bind, typ := elf.STB_GLOBAL, elf.STT_FUNC
		if sym.Weak {
			bind = elf.STB_WEAK
		}
		d := dynsym{name: sym.Name, versym: vidx[sym.Version], value: places[i].off}
		switch sym.Kind {
		case Object:
			typ, d.size = elf.STT_OBJECT, sym.Size
		case TLS:
			typ, d.size = elf.STT_TLS, sym.Size
		}
		if !sym.Default {
			d.versym |= 0x8000 // hidden: name@VER binds only when asked by version
		}
		d.info = elf.ST_INFO(bind, typ)
		d.shndx = uint16(places[i].sec) // fixed below, once the sections are numbered
		syms = append(syms, d)
	}
	for i := range syms {
		dynstr.add(syms[i].name)
		syms[i].hash = elfx.GNUHashOf(syms[i].name)
	}
	for _, v := range versions {
		dynstr.add(v)
	}
	// The GNU hash table needs the symbols ordered by bucket.
	nbuckets := gnuHashBuckets(len(syms))
	sort.SliceStable(syms, func(i, j int) bool { return syms[i].hash%nbuckets < syms[j].hash%nbuckets })

	// Sections, in file order.
	var secs []*section
	add := func(s *section) int { secs = append(secs, s); return len(secs) }
	w := t.word()
	gnuhash := &section{name: ".gnu.hash", typ: elf.SHT_GNU_HASH, flags: elf.SHF_ALLOC, align: w}
	dynsymSec := &section{name: ".dynsym", typ: elf.SHT_DYNSYM, flags: elf.SHF_ALLOC, info: 1, align: w, entsize: t.symsize()}
	dynstrSec := &section{name: ".dynstr", typ: elf.SHT_STRTAB, flags: elf.SHF_ALLOC, align: 1}
	versym := &section{name: ".gnu.version", typ: elf.SHT_GNU_VERSYM, flags: elf.SHF_ALLOC, align: 2, entsize: 2}
	verdef := &section{name: ".gnu.version_d", typ: elf.SHT_GNU_VERDEF, flags: elf.SHF_ALLOC, info: uint32(len(versions) + 1), align: w}
	text := &section{name: ".text", typ: elf.SHT_PROGBITS, flags: elf.SHF_ALLOC | elf.SHF_EXECINSTR, align: 1, size: textSize, data: make([]byte, textSize)}
	tbss := &section{name: ".tbss", typ: elf.SHT_NOBITS, flags: elf.SHF_ALLOC | elf.SHF_WRITE | elf.SHF_TLS, align: 16, size: tbssSize}
	dynamic := &section{name: ".dynamic", typ: elf.SHT_DYNAMIC, flags: elf.SHF_ALLOC | elf.SHF_WRITE, align: w, entsize: 2 * w}
	data := &section{name: ".data", typ: elf.SHT_PROGBITS, flags: elf.SHF_ALLOC | elf.SHF_WRITE, align: 16, size: dataSize, data: make([]byte, dataSize)}
	shstrtab := &section{name: ".shstrtab", typ: elf.SHT_STRTAB, align: 1}
	if !t.is64() {
		gnuhash.entsize = 4 // as GNU ld writes it for ELFCLASS32
	}
	if arch == "s390x" {
		text.align = 4 // the s390x assembler's least
	}
	add(gnuhash)
	iDynsym := add(dynsymSec)
	iDynstr := add(dynstrSec)
	add(versym)
	add(verdef)
	iText := add(text)
	iTbss := 0
	if tbssSize > 0 {
		iTbss = add(tbss)
	}
	add(dynamic)
	iData := 0
	if dataSize > 0 {
		iData = add(data)
	}
	iShstrtab := add(shstrtab)
	gnuhash.link, dynsymSec.link, versym.link, verdef.link, dynamic.link = uint32(iDynsym), uint32(iDynstr), uint32(iDynsym), uint32(iDynstr), uint32(iDynstr)
	secOf := map[uint16]int{secText: iText, secData: iData, secTbss: iTbss}
	for i := range syms {
		if syms[i].shndx != uint16(elf.SHN_ABS) {
			syms[i].shndx = uint16(secOf[syms[i].shndx])
		}
	}

	// The contents that do not depend on addresses.
	{
		b := &ewriter{t: t}
		// GNU ld's bloom filter size: about two bits per symbol.
		n := uint64(len(syms))
		maskbits := log2Up(n) + 1
		switch {
		case maskbits < 3:
			maskbits = 5
		case (uint64(1)<<(maskbits-2))&n != 0:
			maskbits += 3
		default:
			maskbits += 2
		}
		shift1 := uint(5)
		if t.is64() {
			if maskbits == 5 {
				maskbits = 6
			}
			shift1 = 6
		}
		maskwords := uint32(1) << (maskbits - shift1)
		c := uint32(w * 8)
		bloom := make([]uint64, maskwords)
		buckets := make([]uint32, nbuckets)
		chain := make([]uint32, len(syms))
		for i, d := range syms {
			h := d.hash
			bloom[(h/c)%maskwords] |= 1<<(h%c) | 1<<((h>>maskbits)%c)
			bk := h % nbuckets
			if buckets[bk] == 0 {
				buckets[bk] = uint32(i + 1)
			}
			chain[i] = h &^ 1
			if i+1 == len(syms) || syms[i+1].hash%nbuckets != bk {
				chain[i] |= 1 // the last of its bucket
			}
		}
		b.u32(nbuckets)
		b.u32(1) // symoffset: all but the null symbol are hashed
		b.u32(maskwords)
		b.u32(uint32(maskbits))
		for _, m := range bloom {
			b.word(m)
		}
		for _, v := range buckets {
			b.u32(v)
		}
		for _, v := range chain {
			b.u32(v)
		}
		gnuhash.data = b.b
	}
	{
		b := &ewriter{t: t}
		b.u16(0)
		for _, d := range syms {
			b.u16(d.versym)
		}
		versym.data = b.b
	}
	{
		// Version definitions: the base one (the soname), then one per
		// version with no parent (the version script names none).
		b := &ewriter{t: t}
		names := append([]string{s.Soname}, versions...)
		for i, v := range names {
			flags := uint16(0)
			if i == 0 {
				flags = uint16(elf.VER_FLG_BASE)
			}
			next := uint32(28)
			if i+1 == len(names) {
				next = 0
			}
			b.u16(1) // VER_DEF_CURRENT
			b.u16(flags)
			b.u16(uint16(i + 1))
			b.u16(1) // one aux: the name
			b.u32(elfHash(v))
			b.u32(20) // the aux follows
			b.u32(next)
			b.u32(dynstr.add(v))
			b.u32(0)
		}
		verdef.data = b.b
	}
	dynstrSec.data = dynstr.b
	shstr := newStrtab()
	for _, sec := range secs {
		sec.nameOff = shstr.add(sec.name)
	}
	shstrtab.data = shstr.b
	for _, sec := range secs {
		if sec.typ != elf.SHT_NOBITS && sec.data != nil {
			sec.size = uint64(len(sec.data))
		}
	}
	dynsymSec.size = uint64(len(syms)+1) * t.symsize()
	ndyn := uint64(10)
	dynamic.size = ndyn * 2 * w

	// Layout: the read-only tables after the headers, .text on the next
	// page, then .dynamic and .data (and .tbss, which takes no room in
	// the file) on the next; each segment's addresses congruent to its
	// offsets modulo the page, as the loader maps them.
	hasTLS := tbssSize > 0
	nph := 5
	if hasTLS {
		nph++
	}
	off := t.ehsize() + uint64(nph)*t.phsize()
	for _, sec := range []*section{gnuhash, dynsymSec, dynstrSec, versym, verdef} {
		off = alignUp(off, sec.align)
		sec.off, sec.addr = off, off
		off += sec.size
	}
	roEnd := off
	off = alignUp(off, 16)
	text.off = off
	text.addr = alignUp(roEnd, t.page) + off%t.page
	textEnd := text.addr + text.size
	off = alignUp(off+text.size, 16)
	rwAddr := alignUp(textEnd, t.page) + off%t.page
	tbss.off, tbss.addr = off, rwAddr
	dynamic.off, dynamic.addr = off, rwAddr
	off += dynamic.size
	data.off = alignUp(off, 16)
	data.addr = rwAddr + (data.off - dynamic.off)
	rwEnd := dynamic.off + dynamic.size
	if dataSize > 0 {
		rwEnd = data.off + data.size
		off = rwEnd
	}
	shstrtab.off = off
	off += shstrtab.size
	shoff := alignUp(off, w)

	// Symbol values are addresses, TLS ones offsets in the TLS segment.
	addrOf := map[uint16]uint64{uint16(iText): text.addr, uint16(iData): data.addr, uint16(iTbss): 0}
	{
		b := &ewriter{t: t}
		b.sym(0, 0, 0, 0, 0, 0)
		for _, d := range syms {
			v := d.value
			if d.shndx != uint16(elf.SHN_ABS) {
				v += addrOf[d.shndx]
			}
			b.sym(dynstr.off[d.name], v, d.size, d.info, 0, d.shndx)
		}
		dynsymSec.data = b.b
	}
	{
		b := &ewriter{t: t}
		for _, e := range [][2]uint64{
			{uint64(elf.DT_SONAME), uint64(soname)},
			{uint64(elf.DT_GNU_HASH), gnuhash.addr},
			{uint64(elf.DT_STRTAB), dynstrSec.addr},
			{uint64(elf.DT_SYMTAB), dynsymSec.addr},
			{uint64(elf.DT_STRSZ), dynstrSec.size},
			{uint64(elf.DT_SYMENT), t.symsize()},
			{uint64(elf.DT_VERDEF), verdef.addr},
			{uint64(elf.DT_VERDEFNUM), uint64(len(versions) + 1)},
			{uint64(elf.DT_VERSYM), versym.addr},
			{uint64(elf.DT_NULL), 0},
		} {
			b.word(e[0])
			b.word(e[1])
		}
		dynamic.data = b.b
	}

	phdrs := []segment{
		{typ: elf.PT_LOAD, flags: elf.PF_R, off: 0, addr: 0, filesz: roEnd, memsz: roEnd, align: t.page},
		{typ: elf.PT_LOAD, flags: elf.PF_R | elf.PF_X, off: text.off, addr: text.addr, filesz: text.size, memsz: text.size, align: t.page},
		{typ: elf.PT_LOAD, flags: elf.PF_R | elf.PF_W, off: dynamic.off, addr: rwAddr, filesz: rwEnd - dynamic.off, memsz: rwEnd - dynamic.off, align: t.page},
		{typ: elf.PT_DYNAMIC, flags: elf.PF_R | elf.PF_W, off: dynamic.off, addr: dynamic.addr, filesz: dynamic.size, memsz: dynamic.size, align: w},
	}
	if hasTLS {
		phdrs = append(phdrs, segment{typ: elf.PT_TLS, flags: elf.PF_R, off: tbss.off, addr: tbss.addr, memsz: tbss.size, align: 16})
	}
	// No executable stack for a program linked with it.
	phdrs = append(phdrs, segment{typ: elf.PT_GNU_STACK, flags: elf.PF_R | elf.PF_W, align: 16})

	out := &ewriter{t: t, b: make([]byte, 0, shoff+uint64(len(secs)+1)*t.shsize())}
	out.header(elf.ET_DYN, t.ehsize(), shoff, len(phdrs), len(secs)+1, iShstrtab)
	for _, p := range phdrs {
		out.phdr(p)
	}
	for _, sec := range secs {
		if sec.typ == elf.SHT_NOBITS {
			continue
		}
		out.to(sec.off)
		out.b = append(out.b, sec.data...)
	}
	out.to(shoff)
	out.shdr(&section{})
	for _, sec := range secs {
		out.shdr(sec)
	}
	return out.b, nil
}

// sortedVersions is versions in ascending order, as the version script
// lists them and the version definitions follow it.
func sortedVersions(vs []string) []string {
	versions := append([]string(nil), vs...)
	sort.Slice(versions, func(i, j int) bool { return symver.Compare(versions[i], versions[j]) < 0 })
	return versions
}
