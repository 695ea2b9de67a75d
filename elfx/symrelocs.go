package elfx

import "debug/elf"

// SymbolRelocs is Relocs for callers that care only about relocations
// naming a symbol (and about every PLT relocation). Large libraries carry
// hundreds of thousands of RELATIVE relocations (8 MiB of them in
// libLLVM); the linker sorts them first and counts them in DT_RELACOUNT /
// DT_RELCOUNT, so they are skipped without being read, and the rest is
// decoded in bounded chunks rather than one buffer the size of the table.
// A PLT table that DT_RELASZ also covers is returned once, as PLT.
func (f *File) SymbolRelocs() ([]Reloc, error) {
	if f.Dynamic == nil {
		return nil, nil
	}
	t := f.Dynamic.Tags
	jmp, hasJmp := t[elf.DT_JMPREL]
	var out []Reloc
	for _, tb := range []struct {
		addr, size, count elf.DynTag
		rela              bool
	}{
		{elf.DT_RELA, elf.DT_RELASZ, elf.DT_RELACOUNT, true},
		{elf.DT_REL, elf.DT_RELSZ, elf.DT_RELCOUNT, false},
	} {
		addr, ok := t[tb.addr]
		if !ok {
			continue
		}
		size := t[tb.size]
		if hasJmp && jmp >= addr && jmp-addr < size {
			size = jmp - addr // the PLT part is read below
		}
		var err error
		out, err = f.appendSymRelocs(out, tb.addr, size, t[tb.count], tb.rela, false)
		if err != nil {
			return nil, err
		}
	}
	if hasJmp {
		rela := t[elf.DT_PLTREL] == uint64(elf.DT_RELA)
		if !f.Dynamic.Has(elf.DT_PLTREL) {
			rela = f.is64()
		}
		return f.appendSymRelocs(out, elf.DT_JMPREL, t[elf.DT_PLTRELSZ], 0, rela, true)
	}
	return out, nil
}

func (f *File) appendSymRelocs(out []Reloc, addrTag elf.DynTag, size, skip uint64, rela, plt bool) ([]Reloc, error) {
	off, ok, err := f.tableOffset(addrTag)
	if err != nil || !ok {
		return out, err
	}
	ent := uint64(8)
	if f.is64() {
		ent = 16
	}
	if rela {
		ent += ent / 2
	}
	if size > uint64(f.rd.size) || !f.rd.in(off, int64(size)) {
		return nil, formatErr(off, "%v table (%d bytes) past end of file", addrTag, size)
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
			if r.Sym != 0 || plt {
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// decodeReloc decodes one entry as relocTable does.
func (f *File) decodeReloc(e []byte, rela bool) Reloc {
	var r Reloc
	if f.is64() {
		r.Off = f.bo.Uint64(e)
		info := f.bo.Uint64(e[8:])
		r.Sym, r.Type = uint32(info>>32), uint32(info)
		if f.Machine == elf.EM_MIPS {
			r.Sym, r.Type = uint32(info), uint32(info>>56)
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
