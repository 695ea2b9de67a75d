package abiread

import (
	"debug/dwarf"
	"sort"
)

// entry is one DIE as the type builder reads it, decoded either by
// debug/dwarf (relocatable objects, and DWARF fastScan declines) or
// straight from the section bytes.
type entry struct {
	off      dwarf.Offset
	tag      dwarf.Tag
	children bool
	attrs    []attrVal
}

type attrVal struct {
	at  dwarf.Attr
	ref bool   // n is a .debug_info offset
	n   int64  // constants, flags, addresses, references
	s   string // strings
	b   []byte // blocks and expressions
}

func (e *entry) get(a dwarf.Attr) *attrVal {
	for i := range e.attrs {
		if e.attrs[i].at == a {
			return &e.attrs[i]
		}
	}
	return nil
}

func (e *entry) str(a dwarf.Attr) string {
	if v := e.get(a); v != nil {
		return v.s
	}
	return ""
}

// linkageName is the entry's mangled name: DW_AT_linkage_name, or
// DW_AT_MIPS_linkage_name, which GCC before 4.5 (and in DWARF 2 and 3)
// and older clang wrote instead; empty without either.
func (e *entry) linkageName() string {
	if n := e.str(dwarf.AttrLinkageName); n != "" {
		return n
	}
	return e.str(attrMIPSLinkageName)
}

func (e *entry) num(a dwarf.Attr) (int64, bool) {
	if v := e.get(a); v != nil && !v.ref && v.b == nil && v.s == "" {
		return v.n, true
	}
	return 0, false
}

func (e *entry) flag(a dwarf.Attr) bool {
	n, _ := e.num(a)
	return n != 0
}

func (e *entry) ref(a dwarf.Attr) (dwarf.Offset, bool) {
	if v := e.get(a); v != nil && v.ref {
		return dwarf.Offset(v.n), true
	}
	return 0, false
}

func (e *entry) block(a dwarf.Attr) []byte {
	if v := e.get(a); v != nil {
		return v.b
	}
	return nil
}

// fromDwarf converts a debug/dwarf Entry.
func fromDwarf(e *dwarf.Entry) *entry {
	out := &entry{off: e.Offset, tag: e.Tag, children: e.Children, attrs: make([]attrVal, 0, len(e.Field))}
	for _, f := range e.Field {
		v := attrVal{at: f.Attr}
		switch x := f.Val.(type) {
		case string:
			v.s = x
		case int64:
			v.n = x
		case uint64:
			v.n = int64(x)
		case bool:
			if x {
				v.n = 1
			}
		case dwarf.Offset:
			v.n, v.ref = int64(x), true
		case []byte:
			v.b = x
		default:
			continue
		}
		out.attrs = append(out.attrs, v)
	}
	return out
}

// dieSource reads entries for the builder.
type dieSource interface {
	// read returns the entry at off and its direct children; with
	// paramsOnly, only the leading parameters (a subprogram's locals,
	// blocks and call sites are most of its DWARF and not its type).
	read(off dwarf.Offset, paramsOnly bool) (*entry, []*entry)
	addrSize() int
	// lang is the DW_AT_language of the unit of the entry read last (0
	// when unknown): in C++ f() has no parameters rather than unknown
	// ones.
	lang() uint64
}

// dwarfSource reads with debug/dwarf.
type dwarfSource struct {
	r *dwarf.Reader
	// units are where the units start and their languages (scan's
	// index), cur the language of the unit read last; without them the
	// language is unknown (0), and a function's mangled name still says
	// C++ (builder.signature).
	units []unitLang
	cur   *uint64
	names *nameBudget // charged with each entry's strings
}

func (s dwarfSource) addrSize() int { return s.r.AddressSize() }

func (s dwarfSource) lang() uint64 {
	if s.cur == nil {
		return 0
	}
	return *s.cur
}

func isParam(t dwarf.Tag) bool {
	return t == dwarf.TagFormalParameter || t == dwarf.TagUnspecifiedParameters
}

func (s dwarfSource) read(off dwarf.Offset, paramsOnly bool) (*entry, []*entry) {
	s.r.Seek(off)
	if s.cur != nil {
		i := sort.Search(len(s.units), func(i int) bool { return s.units[i].start > off })
		*s.cur = 0
		if i > 0 {
			*s.cur = s.units[i-1].lang
		}
	}
	r := &forward{r: s.r}
	e, err := r.Next()
	if err != nil || e == nil || e.Offset != off || e.Tag == 0 || !s.names.takeEntry(e) {
		return nil, nil
	}
	var kids []*entry
	for e.Children {
		c, err := r.Next()
		if err != nil || c == nil || c.Tag == 0 || paramsOnly && !isParam(c.Tag) || !s.names.takeEntry(c) {
			break
		}
		kids = append(kids, fromDwarf(c))
		if c.Children {
			r.SkipChildren()
		}
	}
	return fromDwarf(e), kids
}

// byteSource reads from the section bytes with the units fastScan found.
type byteSource struct {
	s     *sections
	units []scannedUnit
	last  *unitHeader
	// alt reads the DIEs of the dwz alternate file (offsets from
	// altBase), nil without one; lastAlt: the last read was there.
	alt     *byteSource
	lastAlt bool
}

type scannedUnit struct {
	h   unitHeader
	tab abbrevTable
}

func (b *byteSource) addrSize() int {
	if b.last != nil {
		return b.last.addrSize
	}
	return 8
}

func (b *byteSource) lang() uint64 {
	if b.lastAlt {
		return b.alt.lang()
	}
	if b.last == nil {
		return 0
	}
	return b.last.lang
}

func (b *byteSource) read(off dwarf.Offset, paramsOnly bool) (*entry, []*entry) {
	b.lastAlt = false
	if b.alt != nil && uint64(off) >= altBase {
		b.lastAlt = true
		return b.alt.read(off, paramsOnly)
	}
	o := uint64(off) - b.s.base
	i := sort.Search(len(b.units), func(i int) bool { return b.units[i].h.end > o })
	if i == len(b.units) || o < b.units[i].h.data {
		return nil, nil
	}
	u := &b.units[i]
	b.last = &u.h
	r := reader{b: b.s.info[:u.h.end], off: o, order: b.s.order}
	e, ok := r.full(b.s, &u.h, u.tab)
	if !ok || e == nil {
		return nil, nil
	}
	var kids []*entry
	for e.children {
		c, ok := r.full(b.s, &u.h, u.tab)
		if !ok || c == nil || paramsOnly && !isParam(c.tag) {
			break
		}
		kids = append(kids, c)
		if c.children {
			if sib, ok := c.ref(dwarf.AttrSibling); ok && uint64(sib) > uint64(c.off) && uint64(sib)-b.s.base <= u.h.end {
				r.off = uint64(sib) - b.s.base
			} else if r.skipTree(b.s, &u.h, u.tab) != nil {
				break
			}
		}
	}
	return e, kids
}

// builderAttr reports whether the builder reads attribute at (entry.str,
// num, flag, ref, block): full keeps only those, so a DIE's file, line,
// column and location attributes cost no attrVal.
func builderAttr(at uint64) bool {
	switch dwarf.Attr(at) {
	case dwarf.AttrName, dwarf.AttrLinkageName, attrMIPSLinkageName, dwarf.AttrType,
		dwarf.AttrDeclaration, dwarf.AttrSpecification, dwarf.AttrAbstractOrigin, dwarf.AttrSibling,
		dwarf.AttrVirtuality, dwarf.AttrVtableElemLoc, dwarf.AttrByteSize, dwarf.AttrEncoding,
		dwarf.AttrUpperBound, dwarf.AttrLowerBound, dwarf.AttrCount, dwarf.AttrConstValue,
		dwarf.AttrDataMemberLoc, dwarf.AttrDataBitOffset, dwarf.AttrBitSize, dwarf.AttrBitOffset,
		dwarf.AttrPrototyped, dwarf.AttrExternal, dwarf.AttrEnumClass:
		return true
	}
	return false
}

// full decodes one DIE with the attributes the builder reads
// (builderAttr); nil for a null entry.
func (r *reader) full(s *sections, u *unitHeader, tab abbrevTable) (*entry, bool) {
	off := r.off
	a, err := r.abbrev(tab)
	if a == nil {
		return nil, err == nil
	}
	e := &entry{off: dwarf.Offset(s.base + off), tag: dwarf.Tag(a.tag), children: a.children, attrs: make([]attrVal, 0, a.used)}
	for _, at := range a.attrs {
		form, start, val, ok := r.attr(at, u)
		if !ok {
			return nil, false
		}
		if !builderAttr(uint64(at.attr)) {
			continue
		}
		v := attrVal{at: dwarf.Attr(at.attr), n: int64(val)}
		switch form {
		case formString:
			v.s = string(r.b[start : r.off-1])
		case formStrp:
			v.s = string(cstring(s.str, val))
		case formLineStrp:
			v.s = string(cstring(s.lineStr, val))
		case formRef1, formRef2, formRef4, formRef8, formRefUdata:
			v.n, v.ref = int64(s.base+u.start+val), true
		case formRefAddr:
			v.n, v.ref = int64(s.base+val), true
		case formGNURefAlt:
			if dwarf.Attr(at.attr) == dwarf.AttrSibling {
				continue
			}
			v.n, v.ref = int64(altBase+val), true
		case formGNUStrpAlt:
			v.s = string(s.altString(val))
		case formSdata:
			// skipForm returned the signed value's bits.
		case formImplicitConst:
			v.n = int64(at.implicit)
		case formExprloc, formBlock, formBlock1, formBlock2, formBlock4:
			v.b = r.b[r.off-val : r.off]
		case formData1, formData2, formData4, formData8, formUdata, formFlag, formFlagPresent, formAddr:
		case formStrx, formStrx1, formStrx2, formStrx3, formStrx4:
			b, ok := s.strx(u, val)
			if !ok {
				continue
			}
			v.s = string(b)
		case formAddrx, formAddrx1, formAddrx2, formAddrx3, formAddrx4:
			a, ok := s.addrx(u, val)
			if !ok {
				continue
			}
			v.n = int64(a)
		default:
			continue // strx, sec_offset, ...: not used by the builder
		}
		if v.s != "" && !s.names.take(len(v.s)) {
			return nil, false
		}
		e.attrs = append(e.attrs, v)
	}
	return e, true
}
