package elfx

import "debug/elf"

// HasUnversionedRefs reports whether the dynamic symbol table holds a
// strong (non-weak) undefined reference that names no version: what a
// link with --unresolved-symbols leaves, and what a normal link against a
// versioned libc never does. It reads the symbol and version tables but
// no name, so a check that needs names only for such files can skip the
// rest at a fraction of Symbols' cost.
func (f *File) HasUnversionedRefs() (bool, error) {
	off, ok, err := f.tableOffset(elf.DT_SYMTAB)
	if err != nil || !ok {
		return false, err
	}
	n, err := f.NumSymbols()
	if err != nil {
		return false, err
	}
	es := f.symEntsize()
	raw, err := f.rd.fresh(off, n*es)
	if err != nil {
		return false, formatErr(off, "dynamic symbol table (%d entries) past end of file", n)
	}
	versym, err := f.Versym()
	if err != nil {
		return false, err
	}
	var s Symbol
	for i := int64(1); i < n; i++ {
		name := f.decodeSym(raw[i*es:], &s)
		if name == 0 || !s.Undefined() || s.Bind == elf.STB_WEAK || s.Bind == elf.STB_LOCAL {
			continue
		}
		if versym == nil || versym[i]&^versymHidden <= 1 {
			return true, nil
		}
	}
	return false, nil
}
