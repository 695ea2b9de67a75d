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

// Relocs returns the dynamic relocations: DT_RELA or DT_REL, then the PLT
// relocations of DT_JMPREL.
func (f *File) Relocs() ([]Reloc, error) {
	if f.Dynamic == nil {
		return nil, nil
	}
	var out []Reloc
	for _, t := range []struct {
		addr, size, ent elf.DynTag
		rela            bool
	}{
		{elf.DT_RELA, elf.DT_RELASZ, elf.DT_RELAENT, true},
		{elf.DT_REL, elf.DT_RELSZ, elf.DT_RELENT, false},
	} {
		rs, err := f.relocTable(t.addr, t.size, t.rela, false)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	rela := f.Dynamic.Tags[elf.DT_PLTREL] == uint64(elf.DT_RELA)
	if !f.Dynamic.Has(elf.DT_PLTREL) {
		// Some linkers omit DT_PLTREL; the machine's usual kind is a
		// good guess (RELA on every 64-bit ABI, REL on i386 and arm).
		rela = f.is64()
	}
	rs, err := f.relocTable(elf.DT_JMPREL, elf.DT_PLTRELSZ, rela, true)
	if err != nil {
		return nil, err
	}
	return append(out, rs...), nil
}

func (f *File) relocTable(addrTag, sizeTag elf.DynTag, rela, plt bool) ([]Reloc, error) {
	off, ok, err := f.tableOffset(addrTag)
	if err != nil || !ok {
		return nil, err
	}
	size := int64(f.Dynamic.Tags[sizeTag])
	ent := int64(8)
	if f.is64() {
		ent = 16
	}
	if rela {
		ent += ent / 2
	}
	if size < 0 || !f.rd.in(off, size) {
		return nil, formatErr(off, "%v table (%d bytes) past end of file", addrTag, size)
	}
	raw, err := f.rd.fresh(off, size-size%ent)
	if err != nil {
		return nil, err
	}
	rs := make([]Reloc, len(raw)/int(ent))
	for i := range rs {
		rs[i] = f.decodeReloc(raw[int64(i)*ent:], rela)
		rs[i].PLT = plt
	}
	return rs, nil
}
