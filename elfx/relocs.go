package elfx

import "debug/elf"

// Reloc is one dynamic relocation.
type Reloc struct {
	Off    uint64 // address the relocation patches
	Type   uint32 // machine-specific type (elf.R_X86_64, elf.R_AARCH64, ...)
	Sym    uint32 // index into Symbols(); 0 for none
	Addend int64
	// PLT is true for entries of DT_JMPREL: the ones ld.so may bind lazily
	// at the first call, unless the file asks for BIND_NOW.
	PLT bool
}

// SymbolRelocs is Relocs for callers that care only about relocations
// naming a symbol (and about every PLT relocation). Large libraries carry
// hundreds of thousands of RELATIVE relocations (8 MiB of them in
// libLLVM); the linker sorts them first and counts them in DT_RELACOUNT /
// DT_RELCOUNT, so they are skipped without being read.
func (f *File) SymbolRelocs() ([]Reloc, error) { return f.relocs(true) }

func (f *File) relocs(symbolsOnly bool) ([]Reloc, error) {
	if f.Dynamic == nil {
		return nil, nil
	}
	t := func(tag elf.DynTag) uint64 { v, _ := f.Dynamic.Tag(tag); return v }
	jmp, hasJmp := f.Dynamic.Tag(elf.DT_JMPREL)
	var out []Reloc
	for _, tb := range []struct {
		addr, size, count elf.DynTag
		rela              bool
	}{
		{elf.DT_RELA, elf.DT_RELASZ, elf.DT_RELACOUNT, true},
		{elf.DT_REL, elf.DT_RELSZ, elf.DT_RELCOUNT, false},
	} {
		addr, ok := f.Dynamic.Tag(tb.addr)
		if !ok {
			continue
		}
		size := t(tb.size)
		// The declared size must fit before it is trimmed to the PLT.
		if _, err := f.tableBounds(tb.addr, size); err != nil {
			return nil, err
		}
		if hasJmp && jmp >= addr && jmp-addr < size {
			size = jmp - addr // the PLT part is read below
		}
		var skip uint64
		if symbolsOnly {
			skip = t(tb.count)
		}
		var err error
		if out, err = f.appendRelocs(out, tb.addr, size, skip, tb.rela, false, symbolsOnly); err != nil {
			return nil, err
		}
	}
	if !hasJmp {
		return out, nil
	}
	rela := t(elf.DT_PLTREL) == uint64(elf.DT_RELA)
	if !f.Dynamic.Has(elf.DT_PLTREL) {
		// Some linkers omit DT_PLTREL; the machine's usual kind is a
		// good guess (RELA on every 64-bit ABI, REL on i386 and arm).
		rela = f.is64()
	}
	return f.appendRelocs(out, elf.DT_JMPREL, t(elf.DT_PLTRELSZ), 0, rela, true, symbolsOnly)
}

// appendRelocs decodes the table at addrTag, size bytes, after its first
// skip entries, in bounded chunks rather than one buffer the size of the
// table. With symbolsOnly, non-PLT entries naming no symbol are dropped.
func (f *File) appendRelocs(out []Reloc, addrTag elf.DynTag, size, skip uint64, rela, plt, symbolsOnly bool) ([]Reloc, error) {
	off, err := f.tableBounds(addrTag, size)
	if err != nil || off < 0 {
		return out, err
	}
	ent := uint64(8)
	if f.is64() {
		ent = 16
	}
	if rela {
		ent += ent / 2
	}
	n := size / ent
	first := min(skip, n)
	const batch = 4096
	buf := make([]byte, min(n-first, batch)*ent)
	for i := first; i < n; i += batch {
		k := min(batch, n-i)
		b := buf[:k*ent]
		if err := f.rd.readFull(b, off+int64(i*ent)); err != nil {
			return nil, err
		}
		for j := uint64(0); j < k; j++ {
			r := f.decodeReloc(b[j*ent:], rela)
			r.PLT = plt
			if !symbolsOnly || r.Sym != 0 || plt {
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// tableBounds returns the file offset of the table at addrTag after
// checking that size bytes of it lie inside the file; -1 when the file
// has no such table.
func (f *File) tableBounds(addrTag elf.DynTag, size uint64) (int64, error) {
	off, ok, err := f.tableOffset(addrTag)
	if err != nil || !ok {
		return -1, err
	}
	if size > uint64(f.rd.size) || !f.rd.in(off, int64(size)) {
		return 0, formatErr(off, "%v table (%d bytes) past end of file", addrTag, size)
	}
	return off, nil
}

// decodeReloc decodes one REL or RELA entry.
func (f *File) decodeReloc(e []byte, rela bool) Reloc {
	var r Reloc
	if f.is64() {
		r.Off = f.bo.Uint64(e)
		info := f.bo.Uint64(e[8:])
		r.Sym, r.Type = uint32(info>>32), uint32(info)
		if f.Machine == elf.EM_MIPS {
			// MIPS64 splits r_info into a 32-bit symbol index, then
			// four type bytes, r_type last: read as one word, the
			// symbol is its low half on a little-endian file.
			r.Sym, r.Type = uint32(info>>32), uint32(info&0xff)
			if f.Data == elf.ELFDATA2LSB {
				r.Sym, r.Type = uint32(info), uint32(info>>56)
			}
		}
		if rela {
			r.Addend = int64(f.bo.Uint64(e[16:]))
		}
		return r
	}
	r.Off = uint64(f.bo.Uint32(e))
	info := f.bo.Uint32(e[4:])
	r.Sym, r.Type = info>>8, info&0xff
	if rela {
		r.Addend = int64(int32(f.bo.Uint32(e[8:])))
	}
	return r
}
