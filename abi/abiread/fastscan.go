package abiread

import (
	"bytes"
	"context"
	"debug/dwarf"
	"encoding/binary"
	"errors"
)

// fastScan builds the same index as scan straight from the section bytes,
// without debug/dwarf's Entry values: it decodes only the attributes the
// index needs and skips the rest by form. Most of the time spent reading a
// libc's DWARF was in building Entries nobody looked at. Anything it does
// not expect (a unit type, a form, a string form that needs a base) makes
// it return errSlowPath, and the caller falls back to scan.
func fastScan(ctx context.Context, s *sections, wantNames bool) (*index, []scannedUnit, error) {
	if s.names == nil {
		s.names = newNameBudget(s.dwarfBytes(), 0)
	}
	ix := newIndex()
	ix.budget = s.names
	var units []scannedUnit
	seenName := map[string]bool{}
	abbrevs := map[uint64]abbrevTable{}
	// Attribute specs take at least two bytes each, abbreviations four.
	slab := &abbrevSlab{
		abbrevs: make([]abbrev, 0, len(s.abbrev)/16),
		attrs:   make([]abbrevAttr, 0, len(s.abbrev)/3),
	}
	info := s.info
	for off := uint64(0); off < uint64(len(info)); {
		// One check per unit: a large library stops soon after
		// its reader is told to.
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		u, err := readUnitHeader(info, off, s.order)
		if err != nil {
			return nil, nil, err
		}
		next := u.end
		if u.kind == unitCompile {
			tab, ok := abbrevs[u.abbrevOff]
			if !ok {
				if tab, err = slab.parse(s.abbrev, u.abbrevOff); err != nil {
					return nil, nil, err
				}
				abbrevs[u.abbrevOff] = tab
			}
			if err := ix.scanUnit(s, &u, tab, wantNames, seenName); err != nil {
				return nil, nil, err
			}
			units = append(units, scannedUnit{h: u, tab: tab})
		}
		off = next
	}
	return ix, units, nil
}

var errSlowPath = errors.New("DWARF needs the general reader")

// sections are the DWARF sections of a linked file, decompressed.
type sections struct {
	info, abbrev, str, lineStr []byte
	strOffsets, addr           []byte
	rnglists                   []byte
	order                      binary.ByteOrder
	// base is added to every DIE offset and reference read from these
	// sections: 0 for a file's own DWARF, altBase for a dwz alternate
	// file's, so both live in one offset space.
	base uint64
	// alt is the dwz alternate file (.gnu_debugaltlink) that
	// DW_FORM_GNU_ref_alt and DW_FORM_GNU_strp_alt point into, if found.
	alt *altDWARF
	// names bounds the names read from these sections (fastScan sets
	// it).
	names *nameBudget
}

const (
	unitCompile = iota
	unitOther
)

type unitHeader struct {
	start, data, end uint64 // unit start, first DIE, end
	version          uint16
	dwarf64          bool
	addrSize         int
	abbrevOff        uint64
	kind             int
	lang             uint64 // its DW_AT_language, set by scanUnit
	// DW_AT_str_offsets_base and DW_AT_addr_base of the unit DIE
	// (DWARF 5: strx and addrx forms index from them), set by scanUnit.
	strBase, addrBase       uint64
	hasStrBase, hasAddrBase bool
}

func readUnitHeader(b []byte, off uint64, order binary.ByteOrder) (unitHeader, error) {
	u := unitHeader{start: off}
	r := reader{b: b, off: off, order: order}
	n := uint64(r.u32())
	if n == 0xffffffff {
		u.dwarf64 = true
		n = r.u64()
	} else if n >= 0xfffffff0 {
		return u, errSlowPath
	}
	if r.err || n > uint64(len(b))-r.off {
		return u, errSlowPath
	}
	u.end = r.off + n
	u.version = r.u16()
	switch {
	case u.version >= 2 && u.version <= 4:
		u.abbrevOff = r.offset(u.dwarf64)
		u.addrSize = int(r.u8())
	case u.version == 5:
		ut := r.u8()
		u.addrSize = int(r.u8())
		u.abbrevOff = r.offset(u.dwarf64)
		if ut != 1 && ut != 3 { // DW_UT_compile, DW_UT_partial
			u.kind = unitOther
		}
	default:
		return u, errSlowPath
	}
	if r.err || r.off > u.end || (u.addrSize != 4 && u.addrSize != 8) {
		return u, errSlowPath
	}
	u.data = r.off
	return u, nil
}

type abbrevAttr struct {
	attr, form uint16
	// implicit is a DW_FORM_implicit_const's value; 32 bits keep the
	// spec 8 bytes (a libc has hundreds of thousands), and compilers
	// write file and line numbers there.
	implicit int32
}

type abbrev struct {
	tag      uint16
	children bool
	used     uint16       // how many of attrs the builder reads (builderAttr)
	attrs    []abbrevAttr // nil for a code the table does not define
}

// abbrevTable is indexed by abbreviation code; compilers number them
// densely from 1.
type abbrevTable []abbrev

func (t abbrevTable) get(code uint64) *abbrev {
	if code < uint64(len(t)) && t[code].attrs != nil {
		return &t[code]
	}
	return nil
}

// abbrevSlab holds the tables of one file: a libc has thousands of units,
// each with its own small table, and one backing array per kind keeps that
// from being thousands of growing slices.
type abbrevSlab struct {
	abbrevs []abbrev
	attrs   []abbrevAttr
}

// parse parses the table at off.
func (sl *abbrevSlab) parse(b []byte, off uint64) (abbrevTable, error) {
	base := len(sl.abbrevs)
	sl.abbrevs = append(sl.abbrevs, abbrev{}) // code 0
	r := reader{b: b, off: off}
	for {
		code := r.uleb()
		if r.err {
			return nil, errSlowPath
		}
		if code == 0 {
			t := sl.abbrevs[base:len(sl.abbrevs):len(sl.abbrevs)]
			return t, nil
		}
		if code > uint64(len(b)) || code > 1<<16 || code < uint64(len(sl.abbrevs)-base) {
			return nil, errSlowPath // sparse or out of order: not what compilers write
		}
		// Codes that skip numbers leave unused entries: all tables
		// together lay out no more entries than the section has bytes
		// (each real one takes several), or tables of a few bytes
		// with codes in the thousands would cost (section bytes)².
		if uint64(base)+code >= uint64(len(b)) {
			return nil, errSlowPath
		}
		tag := r.uleb()
		a := abbrev{tag: uint16(tag), children: r.u8() == 1}
		if tag > 0xffff {
			return nil, errSlowPath
		}
		first := len(sl.attrs)
		for {
			at, form := r.uleb(), r.uleb()
			if r.err {
				return nil, errSlowPath
			}
			if at == 0 && form == 0 {
				break
			}
			if at > 0xffff || form > 0xffff {
				return nil, errSlowPath
			}
			aa := abbrevAttr{attr: uint16(at), form: uint16(form)}
			if form == formImplicitConst {
				v := r.sleb()
				if v != int64(int32(v)) {
					return nil, errSlowPath
				}
				aa.implicit = int32(v)
			}
			sl.attrs = append(sl.attrs, aa)
			if builderAttr(at) {
				a.used++
			}
		}
		// Non-nil even when empty: nil marks an unused code.
		a.attrs = sl.attrs[first:len(sl.attrs):len(sl.attrs)]
		for uint64(len(sl.abbrevs)-base) < code {
			sl.abbrevs = append(sl.abbrevs, abbrev{})
		}
		sl.abbrevs = append(sl.abbrevs, a)
	}
}

// attrMIPSLinkageName is DW_AT_MIPS_linkage_name, which older GCCs wrote.
const attrMIPSLinkageName dwarf.Attr = 0x2007

// DWARF constants used here (debug/dwarf does not export forms).
const (
	formAddr          = 0x01
	formBlock2        = 0x03
	formBlock4        = 0x04
	formData2         = 0x05
	formData4         = 0x06
	formData8         = 0x07
	formString        = 0x08
	formBlock         = 0x09
	formBlock1        = 0x0a
	formData1         = 0x0b
	formFlag          = 0x0c
	formSdata         = 0x0d
	formStrp          = 0x0e
	formUdata         = 0x0f
	formRefAddr       = 0x10
	formRef1          = 0x11
	formRef2          = 0x12
	formRef4          = 0x13
	formRef8          = 0x14
	formRefUdata      = 0x15
	formIndirect      = 0x16
	formSecOffset     = 0x17
	formExprloc       = 0x18
	formFlagPresent   = 0x19
	formStrx          = 0x1a
	formAddrx         = 0x1b
	formRefSup4       = 0x1c
	formStrpSup       = 0x1d
	formData16        = 0x1e
	formLineStrp      = 0x1f
	formRefSig8       = 0x20
	formImplicitConst = 0x21
	formLoclistx      = 0x22
	formRnglistx      = 0x23
	formRefSup8       = 0x24
	formStrx1         = 0x25
	formStrx2         = 0x26
	formStrx3         = 0x27
	formStrx4         = 0x28
	formAddrx1        = 0x29
	formAddrx2        = 0x2a
	formAddrx3        = 0x2b
	formAddrx4        = 0x2c
)

// die is the part of a top-level entry the index uses.
type die struct {
	off                   uint64
	tag                   uint64
	name, linkName        []byte
	external, declaration bool
	lowpc                 uint64
	hasLowpc              bool
	location              []byte
	origin, sibling       uint64
	hasOrigin, hasSibling bool
	lang                  uint64 // DW_AT_language of a unit
	locAddr               uint64 // a DW_OP_addrx location's address
	hasLocAddr            bool
	cpp                   bool // in a C++ unit
	specNamed             bool // name is its specification's (specName)
}

func (ix *index) scanUnit(s *sections, u *unitHeader, tab abbrevTable, wantNames bool, seenName map[string]bool) error {
	r := reader{b: s.info[:u.end], off: u.data, order: s.order}
	// The unit DIE's own attributes may use the bases it gives.
	r.unitBases(tab, u)
	// The unit DIE itself.
	var d die
	a, err := r.entry(s, u, tab, &d)
	if err != nil || a == nil || !a.children {
		return err
	}
	if dwarf.Tag(a.tag) != dwarf.TagCompileUnit && dwarf.Tag(a.tag) != dwarf.TagPartialUnit {
		return nil
	}
	sc := scopes{names: ix.budget}
	sc.cpp = isCPlusPlus(d.lang)
	u.lang = d.lang
	for r.off < u.end {
		d = die{off: r.off}
		a, err := r.entry(s, u, tab, &d)
		if err != nil {
			return err
		}
		if a == nil {
			if !sc.pop() {
				break // end of the unit's children
			}
			continue
		}
		prefix := sc.prefix()
		d.cpp = sc.cpp
		ix.specName(&d, sc.cpp)
		if a.children && !sc.push(dwarf.Tag(a.tag), d.name) {
			if d.hasSibling && d.sibling > d.off && d.sibling <= u.end {
				r.off = d.sibling
			} else if err := r.skipTree(s, u, tab); err != nil {
				return err
			}
		}
		ix.addScoped(&d, prefix, wantNames, seenName)
	}
	return ix.budget.failed()
}

// scopes is the stack of C++ scopes (namespaces, classes) the scan is in:
// the types declared there are named with them (std::string,
// std::basic_string<char>::_Alloc_hider).
type scopes struct {
	stack []string // the prefix inside each open scope: "std::"
	cpp   bool
	names *nameBudget // charged with each prefix
}

// maxScopes bounds the nesting of scopes followed; deeper ones are
// skipped whole.
const maxScopes = 64

// enter opens a scope whose names start with prefix, charged to the
// budget; past it the scope is skipped (the reader reports the error).
func (sc *scopes) enter(prefix string) bool {
	if !sc.names.take(len(prefix)) {
		return false
	}
	sc.stack = append(sc.stack, prefix)
	return true
}

func (sc *scopes) prefix() string {
	if len(sc.stack) == 0 {
		return ""
	}
	return sc.stack[len(sc.stack)-1]
}

// push enters the children of an entry with tag and name, when they are a
// scope to read: a namespace, or in C++ a named class, struct or union.
// It reports whether it did; the caller skips the children otherwise.
func (sc *scopes) push(tag dwarf.Tag, name []byte) bool {
	if len(sc.stack) >= maxScopes {
		return false
	}
	switch tag {
	case dwarf.TagNamespace:
		n := string(name)
		if n == "" {
			n = "(anonymous namespace)"
		}
		return sc.enter(sc.prefix() + n + "::")
	case dwarf.TagStructType, dwarf.TagClassType, dwarf.TagUnionType:
		if !sc.cpp || len(name) == 0 {
			return false
		}
		return sc.enter(sc.prefix() + string(name) + "::")
	}
	return false
}

// pop leaves a scope at a null entry; false at the end of the unit.
func (sc *scopes) pop() bool {
	if len(sc.stack) == 0 {
		return false
	}
	sc.stack = sc.stack[:len(sc.stack)-1]
	return true
}

// langMipsAssembler is the DW_AT_language GNU as writes.
const langMipsAssembler = 0x8001

// isC reports whether a DW_AT_language is a C dialect (or unknown: 0),
// where a function may have no prototype.
func isC(lang uint64) bool {
	switch lang {
	case 0, 0x1, 0x2, 0xc, 0x1d, 0x2c: // C89, C, C99, C11, C17
		return true
	}
	return false
}

// isCPlusPlus reports whether a DW_AT_language is a C++ dialect.
func isCPlusPlus(lang uint64) bool {
	switch lang {
	case 0x4, 0x19, 0x1a, 0x21: // C_plus_plus, _03, _11, _14
		return true
	}
	return false
}

// Attributes of a unit DIE (DWARF 5).
const (
	attrStrOffsetsBase dwarf.Attr = 0x72
	attrAddrBase       dwarf.Attr = 0x73
)

// unitBases records the unit DIE's DW_AT_str_offsets_base and
// DW_AT_addr_base in u, reading a copy of r (r does not move).
func (r reader) unitBases(tab abbrevTable, u *unitHeader) {
	a, _ := r.abbrev(tab)
	if a == nil {
		return
	}
	for _, at := range a.attrs {
		form, _, val, ok := r.attr(at, u)
		if !ok {
			return
		}
		if form != formSecOffset {
			continue
		}
		switch dwarf.Attr(at.attr) {
		case attrStrOffsetsBase:
			u.strBase, u.hasStrBase = val, true
		case attrAddrBase:
			u.addrBase, u.hasAddrBase = val, true
		}
	}
}

// strx is the string a DW_FORM_strx* index names: an offset into
// .debug_str from the unit's slice of .debug_str_offsets.
func (s *sections) strx(u *unitHeader, idx uint64) ([]byte, bool) {
	w := uint64(4)
	if u.dwarf64 {
		w = 8
	}
	n := uint64(len(s.strOffsets))
	if !u.hasStrBase || u.strBase > n || idx >= (n-u.strBase)/w {
		return nil, false
	}
	r := reader{b: s.strOffsets, off: u.strBase + idx*w, order: s.order}
	off := r.offset(u.dwarf64)
	if r.err || off >= uint64(len(s.str)) {
		return nil, false
	}
	return cstring(s.str, off), true
}

// addrx is the address a DW_FORM_addrx* index (or DW_OP_addrx) names in
// the unit's slice of .debug_addr.
func (s *sections) addrx(u *unitHeader, idx uint64) (uint64, bool) {
	w := uint64(u.addrSize)
	n := uint64(len(s.addr))
	if !u.hasAddrBase || u.addrBase > n || idx >= (n-u.addrBase)/w {
		return 0, false
	}
	r := reader{b: s.addr, off: u.addrBase + idx*w, order: s.order}
	if w == 4 {
		return uint64(r.u32()), !r.err
	}
	return r.u64(), !r.err
}

// isStrx and isAddrx report the index forms of DWARF 5.
func isStrx(form uint64) bool {
	return form == formStrx || form >= formStrx1 && form <= formStrx4
}

func isAddrx(form uint64) bool {
	return form == formAddrx || form >= formAddrx1 && form <= formAddrx4
}

// skipTree skips the children of the entry just read.
func (r *reader) skipTree(s *sections, u *unitHeader, tab abbrevTable) error {
	depth := 1
	var d die
	for depth > 0 {
		if r.off >= uint64(len(r.b)) {
			return errSlowPath
		}
		a, err := r.entry(s, u, tab, &d)
		if err != nil {
			return err
		}
		if a == nil {
			depth--
		} else if a.children {
			depth++
		}
	}
	return nil
}

// entry reads one DIE into d (only the attributes the index uses); nil
// abbrev means a null entry.
func (r *reader) entry(s *sections, u *unitHeader, tab abbrevTable, d *die) (*abbrev, error) {
	a, err := r.abbrev(tab)
	if a == nil {
		return nil, err
	}
	d.tag = uint64(a.tag)
	for _, at := range a.attrs {
		form, start, val, ok := r.attr(at, u)
		if !ok {
			return nil, errSlowPath
		}
		switch dwarf.Attr(at.attr) {
		case dwarf.AttrName, dwarf.AttrLinkageName, attrMIPSLinkageName:
			var str []byte
			switch form {
			case formString:
				str = r.b[start : r.off-1]
			case formStrp:
				str = cstring(s.str, val)
			case formLineStrp:
				str = cstring(s.lineStr, val)
			case formGNUStrpAlt:
				str = s.altString(val)
			default:
				var ok bool
				if str, ok = s.strx(u, val); !ok || !isStrx(form) {
					return nil, errSlowPath
				}
			}
			if !s.names.take(len(str)) {
				return nil, s.names.err
			}
			if dwarf.Attr(at.attr) == dwarf.AttrName {
				d.name = str
			} else {
				d.linkName = str
			}
		case dwarf.AttrLanguage:
			d.lang = val
		case dwarf.AttrExternal:
			d.external = val != 0 || form == formFlagPresent
		case dwarf.AttrDeclaration:
			d.declaration = val != 0 || form == formFlagPresent
		case dwarf.AttrLowpc:
			if isAddrx(form) {
				var ok bool
				if val, ok = s.addrx(u, val); !ok {
					return nil, errSlowPath
				}
			} else if form != formAddr {
				return nil, errSlowPath
			}
			d.lowpc, d.hasLowpc = val, true
		case dwarf.AttrLocation:
			if form == formExprloc || form == formBlock1 || form == formBlock {
				d.location = r.b[r.off-val : r.off]
				// DWARF 5: DW_OP_addrx N, the variable's address
				// in .debug_addr.
				if loc := d.location; len(loc) > 1 && loc[0] == 0xa1 {
					lr := reader{b: loc, off: 1}
					if i := lr.uleb(); !lr.err && lr.off == uint64(len(loc)) {
						d.locAddr, d.hasLocAddr = s.addrx(u, i)
					}
				}
			}
		case dwarf.AttrAbstractOrigin, dwarf.AttrSpecification, dwarf.AttrSibling:
			var ref uint64
			switch form {
			case formRef1, formRef2, formRef4, formRef8, formRefUdata:
				ref = u.start + val
			case formRefAddr:
				ref = val
			case formGNURefAlt:
				if dwarf.Attr(at.attr) == dwarf.AttrSibling {
					return nil, errSlowPath
				}
				d.origin, d.hasOrigin = altBase+val, true
				continue
			default:
				return nil, errSlowPath
			}
			if dwarf.Attr(at.attr) == dwarf.AttrSibling {
				// Siblings stay in the unit's own offsets: the scan
				// jumps to them.
				d.sibling, d.hasSibling = ref, true
			} else {
				d.origin, d.hasOrigin = s.base+ref, true
			}
		}
	}
	return a, nil
}

// abbrev reads an entry's abbreviation code: nil, nil for a null entry.
func (r *reader) abbrev(tab abbrevTable) (*abbrev, error) {
	code := r.uleb()
	if r.err {
		return nil, errSlowPath
	}
	if code == 0 {
		return nil, nil
	}
	if a := tab.get(code); a != nil {
		return a, nil
	}
	return nil, errSlowPath
}

// attr reads one attribute value: its form (indirect resolved), where it
// starts, and its number (see skipForm).
func (r *reader) attr(at abbrevAttr, u *unitHeader) (form, start, val uint64, ok bool) {
	form = uint64(at.form)
	if form == formIndirect {
		form = r.uleb()
	}
	start = r.off
	val, ok = r.skipForm(form, u)
	return form, start, val, ok && !r.err
}

// skipForm reads past one attribute value and returns it when it is a
// number (or a block's length; the block ends at r.off).
func (r *reader) skipForm(form uint64, u *unitHeader) (uint64, bool) {
	switch form {
	case formAddr:
		if u.addrSize == 4 {
			return uint64(r.u32()), true
		}
		return r.u64(), true
	case formData1, formRef1, formFlag, formStrx1, formAddrx1:
		return uint64(r.u8()), true
	case formData2, formRef2, formStrx2, formAddrx2:
		return uint64(r.u16()), true
	case formStrx3, formAddrx3:
		p := r.take(3)
		if p == nil {
			return 0, false
		}
		if r.order == binary.BigEndian {
			return uint64(p[0])<<16 | uint64(p[1])<<8 | uint64(p[2]), true
		}
		return uint64(p[0]) | uint64(p[1])<<8 | uint64(p[2])<<16, true
	case formData4, formRef4, formRefSup4, formStrx4, formAddrx4:
		return uint64(r.u32()), true
	case formData8, formRef8, formRefSig8, formRefSup8:
		return r.u64(), true
	case formData16:
		r.skip(16)
		return 0, true
	case formSdata:
		return uint64(r.sleb()), true
	case formUdata, formRefUdata, formStrx, formAddrx, formLoclistx, formRnglistx:
		return r.uleb(), true
	case formStrp, formLineStrp, formSecOffset, formStrpSup, formGNURefAlt, formGNUStrpAlt:
		return r.offset(u.dwarf64), true
	case formRefAddr:
		if u.version == 2 {
			if u.addrSize == 4 {
				return uint64(r.u32()), true
			}
			return r.u64(), true
		}
		return r.offset(u.dwarf64), true
	case formString:
		i := bytes.IndexByte(r.b[min(r.off, uint64(len(r.b))):], 0)
		if i < 0 {
			return 0, false
		}
		r.off += uint64(i) + 1
		return 0, true
	case formBlock1:
		n := uint64(r.u8())
		r.skip(n)
		return n, true
	case formBlock2:
		n := uint64(r.u16())
		r.skip(n)
		return n, true
	case formBlock4:
		n := uint64(r.u32())
		r.skip(n)
		return n, true
	case formBlock, formExprloc:
		n := r.uleb()
		r.skip(n)
		return n, true
	case formFlagPresent, formImplicitConst:
		return 1, true
	}
	return 0, false
}

func cstring(b []byte, off uint64) []byte {
	if off >= uint64(len(b)) {
		return nil
	}
	b = b[off:]
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

// reader decodes DWARF numbers; any read past the end sets err and
// returns zero, so callers check once per entry.
type reader struct {
	b     []byte
	off   uint64
	order binary.ByteOrder
	err   bool
}

func (r *reader) take(n uint64) []byte {
	if r.err || n > uint64(len(r.b)) || r.off > uint64(len(r.b))-n {
		r.err = true
		return nil
	}
	p := r.b[r.off : r.off+n]
	r.off += n
	return p
}

func (r *reader) skip(n uint64) { r.take(n) }

func (r *reader) u8() uint8 {
	if p := r.take(1); p != nil {
		return p[0]
	}
	return 0
}

func (r *reader) u16() uint16 {
	if p := r.take(2); p != nil {
		return r.order.Uint16(p)
	}
	return 0
}

func (r *reader) u32() uint32 {
	if p := r.take(4); p != nil {
		return r.order.Uint32(p)
	}
	return 0
}

func (r *reader) u64() uint64 {
	if p := r.take(8); p != nil {
		return r.order.Uint64(p)
	}
	return 0
}

func (r *reader) offset(dwarf64 bool) uint64 {
	if dwarf64 {
		return r.u64()
	}
	return uint64(r.u32())
}

// leb reads a LEB128 number: its low 64 bits, how many bits it had and
// its last byte (for the sign).
func (r *reader) leb() (v uint64, bits uint, last byte) {
	for {
		if r.err || r.off >= uint64(len(r.b)) {
			r.err = true
			return 0, 0, 0
		}
		c := r.b[r.off]
		r.off++
		if bits < 64 {
			v |= uint64(c&0x7f) << bits
		}
		bits += 7
		if c&0x80 == 0 {
			return v, bits, c
		}
	}
}

func (r *reader) uleb() uint64 {
	// Most numbers (abbreviation codes, forms, attribute names) are one
	// byte.
	if r.off < uint64(len(r.b)) && !r.err {
		if c := r.b[r.off]; c < 0x80 {
			r.off++
			return uint64(c)
		}
	}
	v, _, _ := r.leb()
	return v
}

func (r *reader) sleb() int64 {
	v, bits, last := r.leb()
	if bits < 64 && last&0x40 != 0 {
		v |= ^uint64(0) << bits
	}
	return int64(v)
}
