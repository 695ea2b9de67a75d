package elfx

import (
	"bytes"
	"debug/elf"
)

// StaticSymbols returns the symbols of the .symtab section (the link-time
// symbol table of an object file or an executable), index 0 included, or
// nil when the file has none. They carry no versions. Every entry and its
// name must lie inside the file, and names that overlap past the bound of
// nameAmplification are an error, so the work is bounded by the file's
// size.
func (f *File) StaticSymbols() ([]Symbol, error) {
	secs, err := f.Sections()
	if err != nil {
		return nil, err
	}
	var tab *Section
	for i := range secs {
		if secs[i].Type == elf.SHT_SYMTAB {
			tab = &secs[i]
			break
		}
	}
	if tab == nil {
		return nil, nil
	}
	es := f.symEntsize()
	if tab.Entsize != 0 && int64(tab.Entsize) != es {
		return nil, formatErr(int64(tab.Off), ".symtab entry size %d, want %d", tab.Entsize, es)
	}
	if tab.Size > uint64(f.rd.size) || tab.Off > uint64(f.rd.size)-tab.Size {
		return nil, formatErr(int64(tab.Off), ".symtab (%d bytes) past end of file", tab.Size)
	}
	if int(tab.Link) >= len(secs) || secs[tab.Link].Type != elf.SHT_STRTAB {
		return nil, formatErr(int64(tab.Off), ".symtab links to section %d, not a string table", tab.Link)
	}
	st := secs[tab.Link]
	if st.Size > uint64(f.rd.size) || st.Off > uint64(f.rd.size)-st.Size {
		return nil, formatErr(int64(st.Off), "symbol string table (%d bytes) past end of file", st.Size)
	}
	strs, err := f.rd.fresh(int64(st.Off), int64(st.Size))
	if err != nil {
		return nil, formatErr(int64(st.Off), "symbol string table: %v", err)
	}
	n := int64(tab.Size) / es
	raw, err := f.rd.fresh(int64(tab.Off), n*es)
	if err != nil {
		return nil, formatErr(int64(tab.Off), ".symtab (%d entries) past end of file", n)
	}
	var used nameBudget
	syms := make([]Symbol, n)
	for i := range syms {
		e := raw[int64(i)*es:]
		s := &syms[i]
		name := f.decodeSym(e, s)
		if name == 0 {
			continue // no name (st_name 0), as in the dynamic table
		}
		if uint64(name) >= uint64(len(strs)) {
			return nil, formatErr(int64(tab.Off)+int64(i)*es, ".symtab symbol %d name offset %d outside the string table", i, name)
		}
		b := strs[name:]
		if j := bytes.IndexByte(b, 0); j >= 0 {
			b = b[:j]
		}
		s.Name = string(b)
		if err := used.take(s.Name, int64(len(strs)), int64(tab.Off)+int64(i)*es, ".symtab symbol"); err != nil {
			return nil, err
		}
	}
	return syms, nil
}

// Defined reports whether s, from .symtab, is a global definition a
// linker would bind another object's reference to: defined, not local,
// visible, a function or a variable. Unlike Exported it takes a value of 0
// (the first function of a relocatable object's .text).
func (s Symbol) Defined() bool { return s.visibleGlobal() && s.funcOrVar() }
