package elfx

import (
	"debug/elf"
	"encoding/binary"
)

// SymTab is the dynamic symbol table as read from the file: its entries
// are decoded when asked for (At), so a caller that looks at each symbol
// once, or at a few, builds no slice of them all. What it keeps is the
// table's bytes and the string table, which the garbage collector never
// scans.
type SymTab struct {
	bo     binary.ByteOrder
	is64   bool
	raw    []byte // n entries of ent bytes
	ent    int64
	n      int
	strs   string // the dynamic string table
	versym []uint16
	names  []verName // by version index
	far    map[uint16]verName
}

// SymTab returns the dynamic symbol table (nil when the file has none),
// read once per File and checked as Symbols checks it: every name inside
// the string table, and the names' total within nameAmplification.
func (f *File) SymTab() (*SymTab, error) {
	if f.symtabSet {
		return f.symtab, f.symtabErr
	}
	f.symtab, f.symtabErr = f.readSymTab()
	f.symtabSet = true
	return f.symtab, f.symtabErr
}

func (f *File) readSymTab() (*SymTab, error) {
	off, ok, err := f.tableOffset(elf.DT_SYMTAB)
	if err != nil || !ok {
		return nil, err
	}
	n, err := f.NumSymbols()
	if err != nil {
		return nil, err
	}
	if err := f.loadDynstr(); err != nil {
		return nil, err
	}
	es := f.symEntsize()
	raw, err := f.rd.fresh(off, n*es)
	if err != nil {
		return nil, formatErr(off, "dynamic symbol table (%d entries) past end of file", n)
	}
	t := &SymTab{bo: f.bo, is64: f.is64(), raw: raw, ent: es, n: int(n), strs: f.dynstr}
	if t.versym, err = f.Versym(); err != nil {
		return nil, err
	}
	var used nameBudget
	for i := int64(0); i < n; i++ {
		name := t.nameOff(int(i))
		if int(name) >= len(t.strs) {
			return nil, formatErr(off+i*es, "symbol %d name offset %d outside the string table", i, name)
		}
		if err := used.take(cstr(t.strs[name:]), int64(len(t.strs)), off+i*es, "symbol"); err != nil {
			return nil, err
		}
	}
	names, err := f.versionNames()
	if err != nil {
		return nil, err
	}
	// Indexed by version: a symbol's index has 15 bits, and the table is
	// kept only as long as the file's own version tables justify (a
	// hostile index of 32,767 would cost a megabyte per file).
	top := 0
	for i := range names {
		if i < versymHidden {
			top = max(top, int(i)+1)
		}
	}
	top = min(top, 4*len(names)+64)
	t.names = make([]verName, top)
	for i, v := range names {
		if int(i) < top {
			t.names[i] = v
		} else if t.far == nil {
			t.far = map[uint16]verName{i: v}
		} else {
			t.far[i] = v
		}
	}
	return t, nil
}

// Len is the number of symbols, the null symbol included.
func (t *SymTab) Len() int { return t.n }

func (t *SymTab) nameOff(i int) uint32 { return t.bo.Uint32(t.raw[int64(i)*t.ent:]) }

// name is the name of symbol i. A name offset of 0 is no name (the
// gABI's st_name), whatever byte a crafted string table starts with:
// HasUnversionedRefs, which reads no string table, skips such a symbol
// too.
func (t *SymTab) name(i int) string {
	if off := t.nameOff(i); off != 0 {
		return cstr(t.strs[off:])
	}
	return ""
}

// At decodes symbol i (0 <= i < Len()) as Symbols does.
func (t *SymTab) At(i int) Symbol {
	var s Symbol
	decodeSymEntry(t.bo, t.is64, t.raw[int64(i)*t.ent:], &s)
	s.Name = t.name(i)
	t.version(i, &s)
	return s
}

// Undefined reports whether symbol i is a reference (SHN_UNDEF).
func (t *SymTab) Undefined(i int) bool {
	e := t.raw[int64(i)*t.ent:]
	if t.is64 {
		return elf.SectionIndex(t.bo.Uint16(e[6:])) == elf.SHN_UNDEF
	}
	return elf.SectionIndex(t.bo.Uint16(e[14:])) == elf.SHN_UNDEF
}

// version sets the version of symbol i, decoded in s.
func (t *SymTab) version(i int, s *Symbol) {
	if t.versym == nil {
		return
	}
	v := t.versym[i]
	s.VersionIndex = v &^ versymHidden
	s.Default = v&versymHidden == 0 && s.VersionIndex >= 2 && !s.Undefined()
	if int(s.VersionIndex) < len(t.names) {
		s.Version, s.Library = t.names[s.VersionIndex].name, t.names[s.VersionIndex].lib
	} else if vn, ok := t.far[s.VersionIndex]; ok {
		s.Version, s.Library = vn.name, vn.lib
	}
}
