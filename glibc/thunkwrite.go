package glibc

import (
	"debug/elf"
	"fmt"
	"strings"
)

// thunkCode is a thunk's machine code and its relocations on one
// architecture: what the assembler makes of thunk()'s jump.
type thunkCode struct {
	code      []byte // .text, padded as the assembler pads it
	size      uint64 // the function's st_size: the jump without padding
	textAlign uint64
	dataAlign uint64 // of the empty .data and .bss the assembler writes
	relocs    []thunkReloc
	// secSyms: the assembler keeps section symbols (aarch64, s390x);
	// mapX: aarch64's $x mapping symbol, which says .text holds code.
	secSyms, mapX bool
}

type thunkReloc struct {
	off    uint64
	typ    uint32
	got    bool // against _GLOBAL_OFFSET_TABLE_ rather than the target
	addend int64
}

func thunkCodeOf(arch string) (thunkCode, error) {
	switch arch {
	case "x86_64":
		// jmp to@PLT: e9 rel32, the displacement from the next insn.
		return thunkCode{code: []byte{0xe9, 0, 0, 0, 0}, size: 5, textAlign: 1, dataAlign: 1,
			relocs: []thunkReloc{{off: 1, typ: uint32(elf.R_X86_64_PLT32), addend: -4}}}, nil
	case "aarch64":
		// b to: the 26-bit word offset is the relocation's.
		return thunkCode{code: []byte{0, 0, 0, 0x14}, size: 4, textAlign: 4, dataAlign: 1, secSyms: true, mapX: true,
			relocs: []thunkReloc{{off: 0, typ: uint32(elf.R_AARCH64_JUMP26)}}}, nil
	case "s390x":
		// jg to@PLT (brcl 15): halfwords from the insn, so addend 2;
		// the assembler pads .text to 4 bytes with a nopr (07 07).
		return thunkCode{code: []byte{0xc0, 0xf4, 0, 0, 0, 0, 0x07, 0x07}, size: 6, textAlign: 4, dataAlign: 4, secSyms: true,
			relocs: []thunkReloc{{off: 2, typ: uint32(elf.R_390_PLT32DBL), addend: 2}}}, nil
	case "i386":
		// call 1f; 1: popl %ecx; addl $_GLOBAL_OFFSET_TABLE_+[.-1b], %ecx;
		// jmp *to@GOT(%ecx). REL relocations: the addends are in the
		// code (3: the immediate is 3 bytes past the label).
		return thunkCode{code: []byte{0xe8, 0, 0, 0, 0, 0x59, 0x81, 0xc1, 3, 0, 0, 0, 0xff, 0xa1, 0, 0, 0, 0}, size: 18, textAlign: 1, dataAlign: 1,
			relocs: []thunkReloc{{off: 8, typ: uint32(elf.R_386_GOTPC), got: true}, {off: 14, typ: uint32(elf.R_386_GOT32X)}}}, nil
	}
	return thunkCode{}, fmt.Errorf("glibc: no thunk for architecture %q", arch)
}

// writeThunk returns the relocatable object the assembler makes of
// thunk(arch, from, to), byte for byte: a hidden global function from
// that jumps to to, and an empty .note.GNU-stack (no executable stack
// needed). Its sections are those of the assembler's output: .text, its
// relocations, the empty .data and .bss, the note, the symbol and string
// tables.
func writeThunk(arch, from, to string) ([]byte, error) {
	t, err := elfTargetOf(arch)
	if err != nil {
		return nil, err
	}
	c, err := thunkCodeOf(arch)
	if err != nil {
		return nil, err
	}
	if from == "" || to == "" || from == to {
		return nil, fmt.Errorf("glibc: thunk from %q to %q", from, to)
	}
	w := t.word()
	rela := t.is64() // i386 uses REL, the others RELA
	relName, relType, relEnt := ".rela.text", elf.SHT_RELA, 3*w
	if !rela {
		relName, relType, relEnt = ".rel.text", elf.SHT_REL, 2*w
	}
	// Section numbers as the assembler gives them.
	const (
		iText = iota + 1
		iRel
		iData
		iBss
		iNote
		iSymtab
		iStrtab
		iShstrtab
	)
	// .shstrtab in the assembler's order; .text is the tail of .rel(a).text.
	shstr := []byte("\x00.symtab\x00.strtab\x00.shstrtab\x00" + relName + "\x00.data\x00.bss\x00.note.GNU-stack\x00")
	nameOff := func(n string) uint32 {
		for i := 0; i+len(n) < len(shstr); i++ {
			if string(shstr[i:i+len(n)]) == n && shstr[i+len(n)] == 0 {
				return uint32(i)
			}
		}
		return 0
	}

	// Symbols: the null one, the locals, then from, then the undefined.
	names := []string{from}
	if c.mapX {
		names = []string{"$x", from}
	}
	for _, r := range c.relocs {
		if r.got {
			names = append(names, "_GLOBAL_OFFSET_TABLE_")
		}
	}
	names = append(names, to)
	str, strOffs := tailMerged(names)
	nameAt := func(n string) uint32 { return strOffs[n] }
	sym := &ewriter{t: t}
	sym.sym(0, 0, 0, 0, 0, 0)
	nsym := 1
	local := func(name uint32, typ elf.SymType, shndx int) {
		sym.sym(name, 0, 0, elf.ST_INFO(elf.STB_LOCAL, typ), 0, uint16(shndx))
		nsym++
	}
	if c.secSyms {
		local(0, elf.STT_SECTION, iText)
		local(0, elf.STT_SECTION, iData)
		local(0, elf.STT_SECTION, iBss)
		if c.mapX {
			local(nameAt("$x"), elf.STT_NOTYPE, iText)
		}
		local(0, elf.STT_SECTION, iNote)
	}
	firstGlobal := nsym
	sym.sym(nameAt(from), 0, c.size, elf.ST_INFO(elf.STB_GLOBAL, elf.STT_FUNC), uint8(elf.STV_HIDDEN), iText)
	nsym++
	gotSym := 0
	for _, r := range c.relocs {
		if r.got {
			gotSym = nsym
			sym.sym(nameAt("_GLOBAL_OFFSET_TABLE_"), 0, 0, elf.ST_INFO(elf.STB_GLOBAL, elf.STT_NOTYPE), 0, 0)
			nsym++
		}
	}
	toSym := nsym
	sym.sym(nameAt(to), 0, 0, elf.ST_INFO(elf.STB_GLOBAL, elf.STT_NOTYPE), 0, 0)
	nsym++

	rel := &ewriter{t: t}
	for _, r := range c.relocs {
		s := toSym
		if r.got {
			s = gotSym
		}
		if rela {
			rel.u64(r.off)
			rel.u64(uint64(s)<<32 | uint64(r.typ))
			rel.u64(uint64(r.addend))
		} else {
			rel.u32(uint32(r.off))
			rel.u32(uint32(s)<<8 | r.typ)
		}
	}

	// Layout, as the assembler's: .text after the header, the empty
	// sections at its end, the symbol and string tables, the
	// relocations, .shstrtab, the section headers.
	textOff := alignUp(t.ehsize(), c.textAlign)
	dataOff := alignUp(textOff+uint64(len(c.code)), c.dataAlign)
	symOff := alignUp(dataOff, w)
	strOff := symOff + uint64(len(sym.b))
	relOff := alignUp(strOff+uint64(len(str)), w)
	shstrOff := relOff + uint64(len(rel.b))
	shoff := alignUp(shstrOff+uint64(len(shstr)), w)
	secs := []section{
		{},
		{name: ".text", typ: elf.SHT_PROGBITS, flags: elf.SHF_ALLOC | elf.SHF_EXECINSTR, off: textOff, size: uint64(len(c.code)), align: c.textAlign},
		{name: relName, typ: relType, flags: elf.SHF_INFO_LINK, off: relOff, size: uint64(len(rel.b)), link: iSymtab, info: iText, align: w, entsize: relEnt},
		{name: ".data", typ: elf.SHT_PROGBITS, flags: elf.SHF_ALLOC | elf.SHF_WRITE, off: dataOff, align: c.dataAlign},
		{name: ".bss", typ: elf.SHT_NOBITS, flags: elf.SHF_ALLOC | elf.SHF_WRITE, off: dataOff, align: c.dataAlign},
		{name: ".note.GNU-stack", typ: elf.SHT_PROGBITS, off: dataOff, align: 1},
		{name: ".symtab", typ: elf.SHT_SYMTAB, off: symOff, size: uint64(len(sym.b)), link: iStrtab, info: uint32(firstGlobal), align: w, entsize: t.symsize()},
		{name: ".strtab", typ: elf.SHT_STRTAB, off: strOff, size: uint64(len(str)), align: 1},
		{name: ".shstrtab", typ: elf.SHT_STRTAB, off: shstrOff, size: uint64(len(shstr)), align: 1},
	}
	out := &ewriter{t: t, b: make([]byte, 0, shoff+uint64(len(secs))*t.shsize())}
	out.header(elf.ET_REL, 0, shoff, 0, len(secs), iShstrtab)
	out.to(textOff)
	out.b = append(out.b, c.code...)
	out.to(symOff)
	out.b = append(out.b, sym.b...)
	out.b = append(out.b, str...)
	out.to(relOff)
	out.b = append(out.b, rel.b...)
	out.b = append(out.b, shstr...)
	out.to(shoff)
	for i := range secs {
		if i > 0 {
			secs[i].nameOff = nameOff(secs[i].name)
		}
		out.shdr(&secs[i])
	}
	return out.b, nil
}

// tailMerged is the string table of names as the assembler writes it: a
// name that ends another is not written but points into that one
// (fscanf into __isoc23_fscanf), the others follow in order. It returns
// the table and each name's offset.
func tailMerged(names []string) ([]byte, map[string]uint32) {
	b := []byte{0}
	offs := map[string]uint32{}
	within := map[string]string{}
	for _, n := range names {
		// The longest such name: it ends no other.
		for _, m := range names {
			if len(m) > len(n) && strings.HasSuffix(m, n) && len(m) > len(within[n]) {
				within[n] = m
			}
		}
	}
	for _, n := range names {
		if _, ok := within[n]; ok {
			continue
		}
		if _, ok := offs[n]; !ok {
			offs[n] = uint32(len(b))
			b = append(append(b, n...), 0)
		}
	}
	for n, m := range within {
		offs[n] = offs[m] + uint32(len(m)-len(n))
	}
	return b, offs
}
