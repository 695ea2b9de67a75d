package elfx

import (
	"debug/elf"
	"encoding/binary"
	"strings"
)

// Symbol is one dynamic symbol with its version resolved.
type Symbol struct {
	Name       string
	Value      uint64
	Size       uint64
	Bind       elf.SymBind
	Type       elf.SymType
	Visibility elf.SymVis
	Section    elf.SectionIndex // elf.SHN_UNDEF for references
	// Version is the version name ("" when unversioned). For references it
	// comes from DT_VERNEED (and Library names the file that must provide
	// it); for definitions from DT_VERDEF.
	Version string
	Library string
	// VersionIndex is the raw versym index without the hidden bit:
	// 0 local, 1 global (unversioned), 2+ a version.
	VersionIndex uint16
	// Default is set on a versioned definition that is its name's default
	// version, written name@@VER: versym bit 15 (VERSYM_HIDDEN) is clear.
	// A definition of a non-default version (name@VER) is one only a
	// reference that names that version binds to. References and
	// unversioned symbols never have Default.
	Default bool
}

// Exported reports whether the dynamic loader would take s as a
// definition when it looks a name up (glibc's check_match): defined,
// visible, of global, weak or GNU-unique binding, of a type the loader
// binds to, and with a value, unless it is absolute or thread-local.
// Every package that asks what a library exports asks this.
func (s Symbol) Exported() bool {
	if !s.visibleGlobal() || s.Value == 0 && s.Section != elf.SHN_ABS && s.Type != elf.STT_TLS {
		return false
	}
	return s.Type == elf.STT_NOTYPE || s.funcOrVar()
}

// visibleGlobal: a named definition another object may bind to: defined,
// not hidden or internal, and global, weak or unique.
func (s Symbol) visibleGlobal() bool {
	if s.Undefined() || s.Name == "" || s.Visibility == elf.STV_HIDDEN || s.Visibility == elf.STV_INTERNAL {
		return false
	}
	switch s.Bind {
	case elf.STB_GLOBAL, elf.STB_WEAK, STB_GNU_UNIQUE:
		return true
	}
	return false
}

// funcOrVar: a function or a variable of some kind.
func (s Symbol) funcOrVar() bool {
	switch s.Type {
	case elf.STT_OBJECT, elf.STT_FUNC, elf.STT_COMMON, elf.STT_TLS, elf.STT_GNU_IFUNC:
		return true
	}
	return false
}

// VersionNode reports whether s is the absolute symbol the linker adds
// for a version definition's own name (GLIBC_2.34@@GLIBC_2.34 in libc):
// the loader can bind to it, but it names a version, not an interface.
func (s Symbol) VersionNode() bool {
	return s.Section == elf.SHN_ABS && s.Value == 0 && s.Version != "" && s.Name == s.Version
}

// versymHidden is the VERSYM_HIDDEN bit of a versym entry (and of a
// vna_other): the symbol is not its name's default version.
const versymHidden = 0x8000

// STB_GNU_UNIQUE is the GNU binding for a C++ symbol that must have one
// definition per process; debug/elf calls it only STB_LOOS.
const STB_GNU_UNIQUE = elf.STB_LOOS

// Undefined reports whether s is a reference to another object.
func (s Symbol) Undefined() bool { return s.Section == elf.SHN_UNDEF }

// String writes s as name@VER, name@@VER (default definition) or name.
// References (Library set, even when a copy relocation gave them a local
// address) and hidden definitions use a single @.
func (s Symbol) String() string {
	switch {
	case s.Version == "":
		return s.Name
	case s.Undefined() || s.Library != "" || !s.Default:
		return s.Name + "@" + s.Version
	default:
		return s.Name + "@@" + s.Version
	}
}

func (f *File) symEntsize() int64 {
	if f.is64() {
		return 24
	}
	return 16
}

// NumSymbols returns the number of dynamic symbols. The dynamic section
// does not state it; it is read from DT_HASH (nchain), from DT_GNU_HASH
// (by walking the highest bucket's chain), or from the .dynsym section
// header, in that order.
func (f *File) NumSymbols() (int64, error) {
	if f.nsyms > 0 {
		return f.nsyms, nil
	}
	n, err := f.numSymbols()
	if err != nil {
		return 0, err
	}
	// Every symbol needs an entry inside the file.
	if symoff, ok, _ := f.tableOffset(elf.DT_SYMTAB); ok {
		if n > (f.rd.size-symoff)/f.symEntsize() {
			return 0, formatErr(symoff, "%d dynamic symbols cannot fit in a %d-byte file", n, f.rd.size)
		}
	}
	f.nsyms = n
	return n, nil
}

func (f *File) numSymbols() (int64, error) {
	if off, ok, err := f.tableOffset(elf.DT_HASH); err != nil {
		return 0, err
	} else if ok {
		b, err := f.rd.at(off, 8)
		if err != nil {
			return 0, formatErr(off, "DT_HASH header past end of file")
		}
		return int64(f.bo.Uint32(b[4:])), nil
	}
	if off, ok, err := f.tableOffset(elf.DT_GNU_HASH); err != nil {
		return 0, err
	} else if ok {
		return f.gnuHashCount(off)
	}
	secs, err := f.Sections()
	if err != nil {
		return 0, err
	}
	for _, s := range secs {
		if s.Type == elf.SHT_DYNSYM && s.Entsize > 0 {
			return int64(s.Size / s.Entsize), nil
		}
	}
	return 0, formatErr(-1, "cannot tell the number of dynamic symbols: no DT_HASH, DT_GNU_HASH or .dynsym section")
}

// gnuHashCount finds the symbol count from a GNU hash table: symbols below
// symoffset are not hashed; the last hashed symbol is the end of the chain
// starting at the highest bucket (its low bit is set).
func (f *File) gnuHashCount(off int64) (int64, error) {
	h, err := f.rd.at(off, 16)
	if err != nil {
		return 0, formatErr(off, "DT_GNU_HASH header past end of file")
	}
	nbuckets, symoffset, bloomSize := int64(f.bo.Uint32(h)), int64(f.bo.Uint32(h[4:])), int64(f.bo.Uint32(h[8:]))
	word := int64(4)
	if f.is64() {
		word = 8
	}
	if nbuckets > f.rd.size/4 || bloomSize > f.rd.size/word {
		return 0, formatErr(off, "DT_GNU_HASH claims %d buckets and %d bloom words in a %d-byte file", nbuckets, bloomSize, f.rd.size)
	}
	boff := off + 16 + bloomSize*word
	buckets, err := f.rd.fresh(boff, nbuckets*4)
	if err != nil {
		return 0, formatErr(boff, "DT_GNU_HASH buckets past end of file")
	}
	var last int64
	for i := int64(0); i < nbuckets; i++ {
		last = max(last, int64(f.bo.Uint32(buckets[i*4:])))
	}
	if last < symoffset {
		return f.unhashedCount(symoffset), nil
	}
	coff := boff + nbuckets*4
	for i := last; ; i++ {
		b, err := f.rd.at(coff+(i-symoffset)*4, 4)
		if err != nil {
			return 0, formatErr(coff, "DT_GNU_HASH chain runs past end of file")
		}
		if f.bo.Uint32(b)&1 != 0 {
			return i + 1, nil
		}
	}
}

// Versym returns the DT_VERSYM table (one entry per dynamic symbol), or nil
// when the file has none.
func (f *File) Versym() ([]uint16, error) {
	off, ok, err := f.tableOffset(elf.DT_VERSYM)
	if err != nil || !ok {
		return nil, err
	}
	n, err := f.NumSymbols()
	if err != nil {
		return nil, err
	}
	b, err := f.rd.fresh(off, n*2)
	if err != nil {
		return nil, formatErr(off, "version symbol table (%d entries) past end of file", n)
	}
	vs := make([]uint16, n)
	for i := range vs {
		vs[i] = f.bo.Uint16(b[i*2:])
	}
	return vs, nil
}

// Symbols returns the dynamic symbol table, index 0 (the null symbol)
// included so relocation symbol indexes can be used directly.
func (f *File) Symbols() ([]Symbol, error) {
	t, err := f.SymTab()
	if err != nil || t == nil {
		return nil, err
	}
	syms := make([]Symbol, t.Len())
	for i := range syms {
		syms[i] = t.At(i)
	}
	return syms, nil
}

// cstr is s up to its first NUL (all of s when there is none).
func cstr(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// nameAmplification bounds the total length of the names one read takes
// from a string table (symbol, needed-library, version or section names)
// against the table's size, plus 1 MiB for small tables. Names may share
// bytes, so a hostile file can make their total quadratic in its size:
// every entry naming the start of one long string. Linkers share only
// suffixes and the names of several versions of one symbol, so real files
// stay under 2×.
const nameAmplification = 4

// nameBudget counts the bytes of the names one read has taken from a
// string table, against that bound.
type nameBudget int64

// take adds name, read for an entry at file offset off from a table-byte
// string table: a *FormatError once the names add up to more than the
// bound.
func (used *nameBudget) take(name string, table, off int64, what string) error {
	if *used += nameBudget(len(name)); int64(*used) > nameAmplification*table+1<<20 {
		return formatErr(off, "%s names overlap: they add up to more than %d× their %d-byte string table", what, nameAmplification, table)
	}
	return nil
}

type verName struct{ name, lib string }

// versionNames maps versym indexes to version names from both tables.
func (f *File) versionNames() (map[uint16]verName, error) {
	m := map[uint16]verName{}
	needs, err := f.VersionNeeds()
	if err != nil {
		return nil, err
	}
	for _, n := range needs {
		for _, v := range n.Versions {
			m[v.Index&^versymHidden] = verName{v.Name, n.File}
		}
	}
	defs, err := f.VersionDefs()
	if err != nil {
		return nil, err
	}
	for _, d := range defs {
		if !d.Base() {
			m[d.Index] = verName{d.Name, ""}
		}
	}
	return m, nil
}

// decodeSym fills s from the symbol table entry e (an Elf32_Sym or
// Elf64_Sym, e holding at least one) and returns its name's offset in the
// table's string table.
func (f *File) decodeSym(e []byte, s *Symbol) (name uint32) {
	return decodeSymEntry(f.bo, f.is64(), e, s)
}

func decodeSymEntry(bo binary.ByteOrder, is64 bool, e []byte, s *Symbol) (name uint32) {
	var info, other uint8
	if is64 {
		name, info, other = bo.Uint32(e), e[4], e[5]
		s.Section = elf.SectionIndex(bo.Uint16(e[6:]))
		s.Value, s.Size = bo.Uint64(e[8:]), bo.Uint64(e[16:])
	} else {
		name = bo.Uint32(e)
		s.Value, s.Size = uint64(bo.Uint32(e[4:])), uint64(bo.Uint32(e[8:]))
		info, other = e[12], e[13]
		s.Section = elf.SectionIndex(bo.Uint16(e[14:]))
	}
	s.Bind, s.Type, s.Visibility = elf.ST_BIND(info), elf.ST_TYPE(info), elf.ST_VISIBILITY(other)
	return name
}
