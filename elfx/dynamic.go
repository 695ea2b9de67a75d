package elfx

import (
	"debug/elf"
	"strings"
	"unsafe"
)

// Dynamic is the decoded dynamic section. Address-valued tags are kept as
// virtual addresses; the File maps them to offsets when a table is read.
type Dynamic struct {
	Needed  []string
	Soname  string
	Rpath   string // DT_RPATH, colon-separated, unexpanded
	Runpath string // DT_RUNPATH
	Flags   elf.DynFlag
	Flags1  elf.DynFlag1
	// BindNow is DT_BIND_NOW, DF_BIND_NOW or DF_1_NOW: every relocation,
	// PLT ones included, is resolved before the program starts.
	BindNow bool
	// HasRelr is true when the file uses DT_RELR relative relocations,
	// which only glibc 2.36 and later can apply.
	HasRelr bool
	// tags holds every entry's value by tag (the first one for repeated
	// tags other than DT_NEEDED), for callers needing more than the
	// above (Tag).
	tags dynTags

	offset int64 // file offset of the section, for error messages
}

// Has reports whether the dynamic section has tag t.
func (d *Dynamic) Has(t elf.DynTag) bool { _, ok := d.tags.get(t); return ok }

// Tag returns the value of the first entry of tag t (of a tag outside
// the generic, address and version ranges, among the first maxRestTags
// such tags only).
func (d *Dynamic) Tag(t elf.DynTag) (uint64, bool) { return d.tags.get(t) }

// dynTags is a dynamic section's tags by value, without a map: the
// generic tags up to DT_RELR, the address tags (DT_GNU_HASH among them)
// and the version tags (DT_VERSYM to DT_VERNEEDNUM) in arrays, which is
// every tag a file commonly has, and the few others in a list. A map cost
// a fifth of a floor scan's allocations.
type dynTags struct {
	low    [dtRelr + 1]uint64
	lowSet uint64
	hi     [2][16]uint64 // 0x6ffffef0 to 0x6ffffeff (DT_ADDRRNG), 0x6ffffff0 (DT_VERSYM) to 0x6fffffff
	hiSet  [2]uint16
	rest   []tagValue
}

type tagValue struct {
	tag elf.DynTag
	val uint64
}

// hiBase are the first tags of dynTags.hi's ranges.
var hiBase = [2]elf.DynTag{0x6ffffef0, 0x6ffffff0}

// slot finds tag's place in the arrays: the range (-1 for low, -2 for
// none) and the index.
func (t *dynTags) slot(tag elf.DynTag) (int, int) {
	if tag >= 0 && tag <= dtRelr {
		return -1, int(tag)
	}
	for r, b := range hiBase {
		if tag >= b && tag < b+16 {
			return r, int(tag - b)
		}
	}
	return -2, 0
}

func (t *dynTags) get(tag elf.DynTag) (uint64, bool) {
	switch r, i := t.slot(tag); r {
	case -1:
		return t.low[i], t.lowSet&(1<<i) != 0
	case -2:
		for _, tv := range t.rest {
			if tv.tag == tag {
				return tv.val, true
			}
		}
		return 0, false
	default:
		return t.hi[r][i], t.hiSet[r]&(1<<i) != 0
	}
}

// maxRestTags bounds the distinct tags kept outside the fixed slots: a
// real file has a handful (processor-specific ones), and each later entry
// is compared with all of them, so a crafted section of a million
// distinct tags must not cost a million squared.
const maxRestTags = 64

// add records val for tag unless tag was seen before (or is one more tag
// outside the slots than maxRestTags).
func (t *dynTags) add(tag elf.DynTag, val uint64) {
	if _, ok := t.get(tag); ok {
		return
	}
	switch r, i := t.slot(tag); r {
	case -1:
		t.low[i], t.lowSet = val, t.lowSet|1<<i
	case -2:
		if len(t.rest) < maxRestTags {
			t.rest = append(t.rest, tagValue{tag, val})
		}
	default:
		t.hi[r][i], t.hiSet[r] = val, t.hiSet[r]|1<<i
	}
}

func (f *File) readDynamic() error {
	var off, size int64
	if p := f.Prog(elf.PT_DYNAMIC); p != nil {
		off, size = int64(p.Off), int64(p.Filesz)
	} else if len(f.Progs) == 0 {
		// No program headers (a relocatable object, or a stripped-down
		// file): fall back to the SHT_DYNAMIC section.
		secs, err := f.Sections()
		if err != nil {
			return nil // a file without dynamic information is still a file
		}
		for _, s := range secs {
			if s.Type == elf.SHT_DYNAMIC {
				off, size = int64(s.Off), int64(s.Size)
				break
			}
		}
	}
	if size == 0 {
		return nil
	}
	entsz := int64(8)
	if f.is64() {
		entsz = 16
	}
	if !f.rd.in(off, size) {
		return formatErr(off, "dynamic section (%d bytes) past end of file", size)
	}
	// Decoded at once, before any other read: raw may alias the cache.
	raw, err := f.rd.exact(off, size-size%entsz)
	if err != nil {
		return err
	}
	var d *Dynamic
	if s := f.rd.scratch; s != nil {
		d = &s.dyn // a File made with s is not used after the next
		*d = Dynamic{tags: dynTags{rest: d.tags.rest[:0]}}
	} else {
		d = new(Dynamic)
	}
	d.offset = off
	var neededBuf [32]uint64
	needed := neededBuf[:0]
	var soname, rpath, runpath []uint64
	half := entsz / 2
	for i := int64(0); i+entsz <= int64(len(raw)); i += entsz {
		tag := elf.DynTag(int64(f.word(raw[i:])))
		if !f.is64() {
			tag = elf.DynTag(int32(f.bo.Uint32(raw[i:])))
		}
		val := f.word(raw[i+half:])
		if tag == elf.DT_NULL {
			break
		}
		switch tag {
		case elf.DT_NEEDED:
			needed = append(needed, val)
		case elf.DT_SONAME:
			soname = append(soname, val)
		case elf.DT_RPATH:
			rpath = append(rpath, val)
		case elf.DT_RUNPATH:
			runpath = append(runpath, val)
		case elf.DT_FLAGS:
			d.Flags = elf.DynFlag(val)
		case elf.DT_FLAGS_1:
			d.Flags1 = elf.DynFlag1(val)
		case elf.DT_BIND_NOW:
			d.BindNow = true
		case dtRelrsz, dtRelr:
			d.HasRelr = true
		}
		d.tags.add(tag, val)
	}
	if d.Flags&elf.DF_BIND_NOW != 0 || d.Flags1&elf.DF_1_NOW != 0 {
		d.BindNow = true
	}
	f.Dynamic = d
	f.prefetchTables(needed, soname, rpath, runpath)
	var used nameBudget
	d.Needed = make([]string, len(needed))
	f.rd.intern = true
	for i, v := range needed {
		if d.Needed[i], err = f.dynString(v, &used); err != nil {
			f.rd.intern = false
			return err
		}
	}
	f.rd.intern = false
	for _, p := range []struct {
		vals []uint64
		dst  *string
	}{{soname, &d.Soname}, {rpath, &d.Rpath}, {runpath, &d.Runpath}} {
		// Repeated entries are joined as the loader joins search
		// paths.
		for i, v := range p.vals {
			s, err := f.dynString(v, &used)
			if err != nil {
				return err
			}
			if i == 0 {
				*p.dst = s
			} else {
				*p.dst += ":" + s
			}
		}
	}
	return nil
}

// DT_RELR tags (generic ABI, 2022); debug/elf does not name them.
const (
	dtRelrsz elf.DynTag = 35
	dtRelr   elf.DynTag = 36
)

// prefetchTables reads, in one read, what a floor reads next when it
// lies close together: the names of the dynamic section (strs, offsets
// into the string table) and the version-need table with its names,
// unless the head already holds them. GNU ld and lld put the table right
// after the string table (the version-symbol table between), and the
// names a floor needs at the string table's end, by the library names:
// over this machine's files the read is a few hundred bytes where the
// whole string table is kilobytes. The read is a guess: what it does not
// cover is read chunk by chunk as before.
func (f *File) prefetchTables(strs ...[]uint64) {
	soff, ssize, err := f.strtab()
	if err != nil {
		return
	}
	lo, hi := int64(-1), int64(-1)
	for _, vals := range strs {
		for _, v := range vals {
			if v < uint64(ssize) {
				if lo < 0 || int64(v) < lo {
					lo = int64(v)
				}
				hi = max(hi, int64(v))
			}
		}
	}
	if lo >= 0 {
		// A name is rarely longer than this; a longer one costs a
		// read.
		lo, hi = soff+lo, min(soff+hi+256, soff+ssize)
	}
	if voff, ok, err := f.tableOffset(elf.DT_VERNEED); err == nil && ok {
		// A version-need entry and its aux entries take 16 bytes
		// each; a library is rarely needed at more than 16 versions.
		// Its names lie by the libraries' names, or a little before
		// (GNU ld puts a version's name before the library's at
		// times).
		n, _ := f.Dynamic.Tag(elf.DT_VERNEEDNUM)
		vhi := voff + int64(min(n, 64))*16*17
		if lo < 0 {
			lo, hi = voff, vhi
		} else {
			lo, hi = max(min(lo-256, voff), soff), max(hi, vhi)
		}
		if hi-lo > maxWindow {
			// Far apart (libLLVM's names are megabytes from its
			// table): the table alone, so that walking it does not
			// evict the chunks its names are read from.
			lo, hi = voff, vhi
		}
	}
	if lo < 0 {
		return
	}
	// What the head holds is not read again, but for a margin: a name
	// that crosses the head's end is then read whole from the window.
	if head := f.rd.chunks[0]; head.off == 0 && lo < int64(len(head.b)) && hi > int64(len(head.b)) {
		lo = max(lo, int64(len(head.b))-256)
	}
	f.rd.prefetch(lo, hi)
}

// strtab returns the file offset and size of the dynamic string table.
func (f *File) strtab() (int64, int64, error) {
	d := f.Dynamic
	if d == nil {
		return 0, 0, formatErr(-1, "no dynamic section")
	}
	addr, ok := d.Tag(elf.DT_STRTAB)
	if !ok {
		return 0, 0, formatErr(d.offset, "dynamic section has no DT_STRTAB")
	}
	off, ok := f.offset(addr)
	if !ok {
		return 0, 0, formatErr(d.offset, "DT_STRTAB address %#x is not in any loaded segment", addr)
	}
	strsz, _ := d.Tag(elf.DT_STRSZ)
	size := int64(strsz)
	if size <= 0 || !f.rd.in(off, size) {
		return 0, 0, formatErr(off, "dynamic string table (DT_STRSZ %d) past end of file", strsz)
	}
	return off, size, nil
}

// DynString returns the string at offset i of the dynamic string table.
func (f *File) DynString(i uint64) (string, error) {
	off, size, err := f.strtab()
	if err != nil {
		return "", err
	}
	if i >= uint64(size) {
		return "", formatErr(off, "string offset %d outside the %d-byte dynamic string table", i, size)
	}
	if f.dynstrSet {
		rest := f.dynstr[i:]
		if j := strings.IndexByte(rest[:min(len(rest), maxCString+1)], 0); j >= 0 {
			return f.dynstr[i : i+uint64(j)], nil
		}
		if len(rest) > maxCString {
			return "", errLongString(off + int64(i))
		}
		return "", formatErr(off+int64(i), "string not terminated inside its table")
	}
	return f.rd.cstring(off+int64(i), off+size)
}

// dynString is DynString for a read that takes many names from the
// table: they are counted in *used, and bounded by the table's size.
func (f *File) dynString(i uint64, used *nameBudget) (string, error) {
	s, err := f.DynString(i)
	if err != nil {
		return "", err
	}
	off, size, _ := f.strtab() // DynString has checked it
	return s, used.take(s, size, off+int64(i), "dynamic string")
}

// loadDynstr reads the whole dynamic string table once, for callers that
// look up thousands of names (symbols).
func (f *File) loadDynstr() error {
	if f.dynstrSet {
		return nil
	}
	off, size, err := f.strtab()
	if err != nil {
		return err
	}
	b, err := f.rd.fresh(off, size)
	if err != nil {
		return err
	}
	// b is fresh and never written again: the string may share it.
	f.dynstr, f.dynstrSet = unsafe.String(unsafe.SliceData(b), len(b)), true
	return nil
}
