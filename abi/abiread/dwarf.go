package abiread

import (
	"context"
	"debug/dwarf"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/internal/limits"
)

// maxDepth bounds the nesting of inline type nodes; deeper DWARF is
// malformed or hostile and is cut with an Unknown node.
const maxDepth = limits.DWARFDepth

// maxNamed bounds how deep named types nest while they are built: each is
// built where it is first used, its inline nodes counted from zero, so a
// chain of typedefs each naming the next recursed once per link, until
// the goroutine stack ran out (a fatal error). Real type graphs nest a few
// hundred deep.
const maxNamed = 1 << 14

// index is what one pass over the top-level DIEs of every unit finds: the
// external functions and variables by name and by address, and the first
// complete definition of each named type (to complete declarations).
type index struct {
	funcs, vars         map[string]dwarf.Offset // definitions by name
	funcDecls, varDecls map[string]dwarf.Offset // declarations by name: the last resort
	funcAddr, varAddr   map[uint64]dwarf.Offset
	defs                map[string]dwarf.Offset
	decls               map[string]dwarf.Offset // declared only, when names are wanted
	names               []string                // keys of all named types, for globs
	// qual holds the qualified name of each type declared in a C++
	// scope, by offset: the builder names the type with it.
	qual map[dwarf.Offset]string
	key  []byte // addDIE's scratch buffer
	// declName holds the qualified names of the type declarations of
	// C++ units, by offset, for specName.
	declName map[dwarf.Offset]string
	// units are the units scan read, in order, with their languages
	// (fastScan keeps them in its unit headers instead).
	units []unitLang
	// budget bounds the names read and composed (nil: unlimited).
	budget *nameBudget
}

// unitLang is where a unit starts and its DW_AT_language.
type unitLang struct {
	start dwarf.Offset
	lang  uint64
}

func newIndex() *index {
	return &index{
		funcs: map[string]dwarf.Offset{}, vars: map[string]dwarf.Offset{},
		funcDecls: map[string]dwarf.Offset{}, varDecls: map[string]dwarf.Offset{},
		funcAddr: map[uint64]dwarf.Offset{}, varAddr: map[uint64]dwarf.Offset{},
		defs: map[string]dwarf.Offset{}, decls: map[string]dwarf.Offset{},
		qual: map[dwarf.Offset]string{}, declName: map[dwarf.Offset]string{},
	}
}

// scan indexes d. It reads top-level entries only and skips their children
// (using DW_AT_sibling when the compiler wrote it), so the cost is a small
// part of the DWARF; member lists are read later, only for reachable types.
func scan(ctx context.Context, d *dwarf.Data, wantNames bool, names *nameBudget) (*index, error) {
	ix := newIndex()
	ix.budget = names
	seenName := map[string]bool{}
	r := &forward{r: d.Reader()}
	for {
		// One check per unit, as fastScan.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cu, err := r.Next()
		if err != nil {
			return nil, err
		}
		if cu == nil {
			break
		}
		if cu.Tag != dwarf.TagCompileUnit && cu.Tag != dwarf.TagPartialUnit {
			r.SkipChildren()
			continue
		}
		if !cu.Children {
			continue
		}
		sc := scopes{names: names}
		lang, _ := cu.Val(dwarf.AttrLanguage).(int64)
		sc.cpp = isCPlusPlus(uint64(lang))
		ix.units = append(ix.units, unitLang{start: cu.Offset, lang: uint64(lang)})
		for {
			e, err := r.Next()
			if err != nil {
				return nil, err
			}
			if e == nil {
				break
			}
			if e.Tag == 0 {
				if !sc.pop() {
					break
				}
				continue
			}
			if !names.takeEntry(e) {
				return nil, names.err
			}
			prefix := sc.prefix()
			d := dieOf(e)
			d.cpp = sc.cpp
			ix.specName(&d, sc.cpp)
			if e.Children && !sc.push(e.Tag, d.name) {
				r.SkipChildren()
			}
			ix.addScoped(&d, prefix, wantNames, seenName)
		}
		if err := names.failed(); err != nil {
			return nil, err
		}
	}
	return ix, nil
}

// forward is a Reader that fails instead of going back: a DW_AT_sibling
// that points backwards would otherwise make SkipChildren loop forever.
type forward struct {
	r       *dwarf.Reader
	last    dwarf.Offset
	started bool
	nulls   int // null entries in a row
}

// maxNulls bounds a run of null entries. debug/dwarf reads an unterminated
// LEB128 at the end of a unit as a null entry without moving on, so a
// hostile unit would yield null entries forever; real DWARF has one per
// level of nesting.
const maxNulls = 1 << 16

func (f *forward) Next() (*dwarf.Entry, error) {
	e, err := f.r.Next()
	if err == nil && e != nil && e.Tag == 0 {
		// debug/dwarf gives null entries offset 0.
		if f.nulls++; f.nulls > maxNulls {
			return nil, fmt.Errorf("after %#x: %d null entries in a row (an unterminated abbreviation code?)", f.last, f.nulls)
		}
		return e, nil
	}
	f.nulls = 0
	if err != nil || e == nil {
		return e, err
	}
	if f.started && e.Offset <= f.last {
		return nil, fmt.Errorf("entry at %#x after %#x: DW_AT_sibling points backwards", e.Offset, f.last)
	}
	f.last, f.started = e.Offset, true
	return e, nil
}

func (f *forward) SkipChildren() { f.r.SkipChildren() }

// dieOf is the part of e the index uses.
func dieOf(e *dwarf.Entry) die {
	d := die{off: uint64(e.Offset), tag: uint64(e.Tag)}
	if n, ok := e.Val(dwarf.AttrName).(string); ok {
		d.name = []byte(n)
	}
	if n, ok := e.Val(dwarf.AttrLinkageName).(string); ok {
		d.linkName = []byte(n)
	} else if n, ok := e.Val(attrMIPSLinkageName).(string); ok {
		d.linkName = []byte(n)
	}
	d.external, _ = e.Val(dwarf.AttrExternal).(bool)
	d.declaration, _ = e.Val(dwarf.AttrDeclaration).(bool)
	d.lowpc, d.hasLowpc = e.Val(dwarf.AttrLowpc).(uint64)
	d.location, _ = e.Val(dwarf.AttrLocation).([]byte)
	if o, ok := originOf(e); ok {
		d.origin, d.hasOrigin = uint64(o), true
	}
	return d
}

// specName names a C++ type definition that has no DW_AT_name but a
// DW_AT_specification (GCC 4.4 writes the class's declaration in its
// namespace and the definition, nameless, at the top of the unit) with
// the qualified name of its declaration. Unnamed, each such definition
// was written inline wherever it was used, recursively.
func (ix *index) specName(d *die, cpp bool) {
	if !cpp || namedKind(dwarf.Tag(d.tag)) == "" || d.declaration {
		return
	}
	if len(d.name) == 0 && d.hasOrigin {
		if n, ok := ix.declName[dwarf.Offset(d.origin)]; ok {
			d.name, d.specNamed = []byte(n), true
		}
	}
}

// addScoped indexes an entry found in the scope prefix ("std::"): a type
// is keyed by its qualified name, which the builder uses too.
func (ix *index) addScoped(e *die, prefix string, wantNames bool, seenName map[string]bool) {
	if e.specNamed {
		// Named by specName, with its declaration's qualified name.
		ix.qual[dwarf.Offset(e.off)] = string(e.name)
	} else if prefix != "" && len(e.name) > 0 && namedKind(dwarf.Tag(e.tag)) != "" {
		q := prefix + string(e.name)
		if !ix.budget.take(len(q)) {
			return
		}
		ix.qual[dwarf.Offset(e.off)] = q
		e.name = []byte(q)
	}
	if e.declaration && e.cpp && len(e.name) > 0 && namedKind(dwarf.Tag(e.tag)) != "" {
		ix.declName[dwarf.Offset(e.off)] = string(e.name)
	}
	ix.addDIE(e, wantNames, seenName)
}

// addDIE indexes one top-level entry.
func (ix *index) addDIE(e *die, wantNames bool, seenName map[string]bool) {
	switch dwarf.Tag(e.tag) {
	case dwarf.TagSubprogram, dwarf.TagVariable:
		// An out-of-line instance of an inline function, or a definition
		// completing a declaration, has its name and types on the
		// origin DIE, which is itself a top-level entry indexed by name.
		// By address it maps to the origin without reading it here.
		def := dwarf.Offset(e.off)
		if e.hasOrigin {
			def = dwarf.Offset(e.origin)
		}
		byName, byAddr := ix.funcs, ix.funcAddr
		if dwarf.Tag(e.tag) == dwarf.TagVariable {
			byName, byAddr = ix.vars, ix.varAddr
			if loc := e.location; len(loc) == 9 && loc[0] == 0x03 {
				addAddr(byAddr, binary.LittleEndian.Uint64(loc[1:]), def)
			} else if e.hasLocAddr {
				addAddr(byAddr, e.locAddr, def)
			}
		} else if e.hasLowpc {
			addAddr(byAddr, e.lowpc, def)
		}
		name := e.linkName
		if len(name) == 0 {
			name = e.name
		}
		if !e.external || len(name) == 0 {
			return
		}
		if e.declaration {
			// A declaration (often unprototyped, from a builtin) is
			// only used when neither a definition nor an address
			// describes the symbol.
			byName = ix.funcDecls
			if dwarf.Tag(e.tag) == dwarf.TagVariable {
				byName = ix.varDecls
			}
		}
		if _, ok := byName[string(name)]; !ok {
			byName[string(name)] = def
		}
	case dwarf.TagStructType, dwarf.TagClassType, dwarf.TagUnionType, dwarf.TagEnumerationType, dwarf.TagTypedef, dwarf.TagBaseType:
		if len(e.name) == 0 {
			return
		}
		if e.declaration && !wantNames {
			return
		}
		// The key is built in a scratch buffer: looking a []byte up
		// converted in place allocates nothing, and most keys (size_t,
		// struct _IO_FILE) are met again in every unit.
		k := tagKind(dwarf.Tag(e.tag))
		ix.key = ix.key[:0]
		if k == abi.Struct || k == abi.Union || k == abi.Enum {
			ix.key = append(append(ix.key, k...), ' ')
		}
		ix.key = append(ix.key, e.name...)
		if wantNames && !seenName[string(ix.key)] {
			key := string(ix.key)
			seenName[key] = true
			ix.names = append(ix.names, key)
		}
		m := ix.defs
		if e.declaration {
			m = ix.decls
		}
		if _, ok := m[string(ix.key)]; !ok {
			m[string(ix.key)] = dwarf.Offset(e.off)
		}
	}
}

func addAddr(m map[uint64]dwarf.Offset, addr uint64, off dwarf.Offset) {
	if _, dup := m[addr]; !dup && addr != 0 {
		m[addr] = off
	}
}

func tagKind(t dwarf.Tag) abi.Kind {
	switch t {
	case dwarf.TagStructType, dwarf.TagClassType:
		return abi.Struct
	case dwarf.TagUnionType:
		return abi.Union
	case dwarf.TagEnumerationType:
		return abi.Enum
	case dwarf.TagTypedef:
		return abi.Typedef
	}
	return abi.Base
}

func originOf(e *dwarf.Entry) (dwarf.Offset, bool) {
	if o, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset); ok {
		return o, true
	}
	o, ok := e.Val(dwarf.AttrSpecification).(dwarf.Offset)
	return o, ok
}

// builder converts DIEs into the model, writing each named type into the
// ABI's table once.
type builder struct {
	src    dieSource
	ix     *index
	a      *abi.ABI
	inline map[dwarf.Offset]*abi.Type
	sizes  map[*abi.Type]int // treeSize's memo
	// aliasSig is what each typedef key was built from (targetSig): a
	// typedef of the same name naming something else is not that type.
	aliasSig map[string]string
	// nodes bounds the work on hostile input (every node costs a few
	// bytes of DWARF, so this is proportional to the file).
	nodes, maxNodes int
	// named is how many named types are being built, one inside another.
	named int
	// bigEndian: DW_AT_bit_offset counts from the other end.
	bigEndian bool
	// lang: the DW_AT_language of the unit of the DIE being converted
	// (set at each read that starts a conversion).
	lang uint64
}

func newBuilder(src dieSource, ix *index, a *abi.ABI, limit int) *builder {
	return &builder{src: src, ix: ix, a: a, inline: map[dwarf.Offset]*abi.Type{}, sizes: map[*abi.Type]int{}, aliasSig: map[string]string{}, maxNodes: limit}
}

// typesOf attaches DWARF types to the exported symbols of a. With section
// bytes (s) it indexes and reads DIEs itself and builds a dwarf.Data only
// when it meets DWARF it does not decode; d is used for relocatable objects.
// rel says the symbols are an object file's, whose addresses are
// section-relative and so match no DWARF address.
func typesOf(ctx context.Context, a *abi.ABI, d *dwarf.Data, s *sections, order binary.ByteOrder, infoSize int, names *nameBudget, rel bool) error {
	var ix *index
	var src dieSource
	var err error
	if s != nil {
		s.names = names
		var units []scannedUnit
		ix, units, err = fastScan(ctx, s, false)
		if err == nil {
			bs := &byteSource{s: s, units: units}
			if s.alt != nil {
				bs.alt = &byteSource{s: s.alt.secs, units: s.alt.units}
				s.alt.merge(ix)
			}
			src = bs
		} else if err == errSlowPath {
			d, err = s.data()
			names.reset() // afresh: the fast scan stopped early
		}
		if err != nil {
			return err
		}
	}
	if src == nil {
		if ix, err = scan(ctx, d, false, names); err != nil {
			return err
		}
		src = dwarfSource{r: d.Reader(), units: ix.units, cur: new(uint64), names: names}
	}
	// Hostile DWARF can make unnamed types revisit each other until the
	// depth limit; bound the total by the size of the input.
	b := newBuilder(src, ix, a, min(limits.TypeNodes, 1024+infoSize/4))
	b.bigEndian = order == binary.BigEndian
	for i := range a.Symbols {
		// The types of a few symbols cost about what one unit's
		// scan does: check the context as often.
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		s := &a.Symbols[i]
		addr := symbolAddr(*s, a.SymbolTable, rel)
		switch s.Kind {
		case abi.SymFunc, abi.SymIFunc:
			// An ifunc's address is its resolver's: only its name
			// finds its real signature.
			if off, ok := ix.lookup(ix.funcs, ix.funcAddr, ix.funcDecls, s.Name, addr, s.Kind == abi.SymFunc); ok {
				s.Type = b.function(off)
			}
		case abi.SymObject, abi.SymTLS, abi.SymCommon:
			if off, ok := ix.lookup(ix.vars, ix.varAddr, ix.varDecls, s.Name, addr, true); ok {
				s.Type = b.variable(off)
			}
		}
		if ix.budget.failed() != nil {
			break
		}
	}
	if err := ix.budget.failed(); err != nil {
		return err
	}
	if s != nil && s.alt != nil {
		return s.alt.secs.names.failed()
	}
	return nil
}

// lookup finds the DIE describing a symbol: a definition of that name,
// else the definition at its address (an alias such as malloc for
// __libc_malloc has no DIE of its own), else a declaration of that name.
func (ix *index) lookup(defs map[string]dwarf.Offset, addrs map[uint64]dwarf.Offset, decls map[string]dwarf.Offset, name string, addr uint64, useAddr bool) (dwarf.Offset, bool) {
	if off, ok := defs[name]; ok {
		return off, true
	}
	if useAddr && addr != 0 {
		if off, ok := addrs[addr]; ok {
			return off, true
		}
	}
	off, ok := decls[name]
	return off, ok
}

// symbolAddr is the address a symbol is matched to DWARF by when names
// differ: its st_value (Place without the section index a .symtab symbol
// carries), 0 in an object file.
func symbolAddr(s abi.Symbol, table string, rel bool) uint64 {
	switch {
	case rel:
		return 0
	case table == ".symtab":
		return s.Place & (1<<abi.PlaceSection - 1)
	}
	return s.Place
}

// maxChain bounds the DW_AT_abstract_origin / DW_AT_specification chain
// followed from one subprogram (real chains have two links).
const maxChain = 8

// function reads the signature of the subprogram at off. A C++ member
// function defined out of line, or an inline function's out-of-line
// instance, has its return type and prototype on the DIE its
// DW_AT_specification or DW_AT_abstract_origin names (the declaration in
// the class): the chain is followed for what the first DIE lacks.
func (b *builder) function(off dwarf.Offset) *abi.Type {
	e, params := b.src.read(off, true)
	if e == nil || e.tag != dwarf.TagSubprogram {
		return nil
	}
	lang := b.src.lang()
	definition := !e.flag(dwarf.AttrDeclaration)
	merged := *e
	typed := func(ps []*entry) bool {
		for _, p := range ps {
			if _, ok := p.ref(dwarf.AttrType); ok || p.tag == dwarf.TagUnspecifiedParameters {
				return true
			}
		}
		return false
	}
	haveParams := typed(params)
	for range maxChain {
		o, ok := merged.ref(dwarf.AttrSpecification)
		if !ok {
			o, ok = merged.ref(dwarf.AttrAbstractOrigin)
		}
		if !ok || o == merged.off {
			break
		}
		d, ps := b.src.read(o, true)
		if d == nil || d.tag != dwarf.TagSubprogram {
			break
		}
		next := *d
		next.attrs = append([]attrVal(nil), d.attrs...)
		// What the nearer DIE says wins; the origin fills the gaps.
		for _, a := range merged.attrs {
			if a.at == dwarf.AttrSpecification || a.at == dwarf.AttrAbstractOrigin {
				continue
			}
			if v := next.get(a.at); v != nil {
				*v = a
			} else {
				next.attrs = append(next.attrs, a)
			}
		}
		if !haveParams && typed(ps) {
			params, haveParams = ps, true
		}
		merged = next
	}
	b.lang = lang
	return b.signature(&merged, params, definition, 0)
}

func (b *builder) variable(off dwarf.Offset) *abi.Type {
	e, _ := b.src.read(off, true)
	if e == nil {
		return nil
	}
	if _, ok := e.ref(dwarf.AttrType); !ok {
		return nil
	}
	return b.elem(e, 0)
}

// at converts the type whose DIE is at off. Types are read from their DIEs
// rather than with (*dwarf.Data).Type, which builds the whole graph below
// a type before returning it: every compilation unit has its own copy of
// struct _IO_FILE, and checking the name first reads each named type once
// per ABI instead of once per unit.
//
// An unnamed type used in many places is one shared node, but every walk
// of the model (JSON, fingerprints, spelling) sees it once per use: the
// budget counts it so, and DWARF whose types share parameter types level
// after level (a tree exponential in the file's size) is cut off when the
// tree outgrows the file.
func (b *builder) at(off dwarf.Offset, depth int) *abi.Type {
	if t, ok := b.inline[off]; ok {
		if b.nodes += b.treeSize(t); b.nodes > b.maxNodes {
			return &abi.Type{Kind: abi.Unknown, Name: "too large"}
		}
		return t
	}
	b.nodes++
	if depth > maxDepth {
		return &abi.Type{Kind: abi.Unknown, Name: "too deep"}
	}
	if b.nodes > b.maxNodes {
		return &abi.Type{Kind: abi.Unknown, Name: "too large"}
	}
	e, kids := b.src.read(off, false)
	if e == nil {
		return &abi.Type{Kind: abi.Unknown, Name: fmt.Sprintf("unreadable type at %#x", off)}
	}
	b.lang = b.src.lang()
	name := e.str(dwarf.AttrName)
	if q, ok := b.ix.qual[off]; ok {
		name = q
	} else if name == "" && namedKind(e.tag) != "" {
		name = b.specName(e)
	}
	if e.tag == dwarf.TagTypedef && name != "" {
		key := abi.Key(abi.Typedef, name)
		sig := b.targetSig(e)
		if old, ok := b.aliasSig[key]; ok && old != sig || templated(kids) {
			// An alias template's instance (template<class T> using
			// ptr = T*): GCC names every instance alike, so the name
			// is not one type's; this one is written in place.
			t := b.node(e, kids, depth+1)
			t.Name = name
			b.inline[off] = t
			return t
		} else if !ok {
			b.aliasSig[key] = sig
		}
	}
	if k := namedKind(e.tag); k != "" && name != "" {
		key := abi.Key(k, name)
		if _, done := b.a.Types[key]; done {
			return &abi.Type{Ref: key}
		}
		if e.flag(dwarf.AttrDeclaration) {
			if def, ok := b.ix.defs[key]; ok && def != off {
				if de, dk := b.src.read(def, false); de != nil {
					e, kids = de, dk
				}
			}
		}
		if b.named >= maxNamed {
			return &abi.Type{Kind: abi.Unknown, Name: "too deep"}
		}
		slot := &abi.Type{}
		b.a.Types[key] = slot // reserve first: recursive types refer back by name
		b.named++
		*slot = *b.node(e, kids, 0)
		b.named--
		slot.Name = name
		ref := &abi.Type{Ref: key}
		b.inline[off] = ref
		return ref
	}
	t := b.node(e, kids, depth+1)
	b.inline[off] = t
	return t
}

// specName is the name of the declaration a nameless type definition's
// DW_AT_specification names (the index names those whose declaration
// comes first); "" without one.
func (b *builder) specName(e *entry) string {
	o, ok := e.ref(dwarf.AttrSpecification)
	if !ok || o == e.off {
		return ""
	}
	if q, ok := b.ix.qual[o]; ok {
		return q
	}
	if d, _ := b.src.read(o, true); d != nil && namedKind(d.tag) == namedKind(e.tag) {
		return d.str(dwarf.AttrName)
	}
	return ""
}

// targetSig describes what the typedef e names, enough to tell two
// typedefs of one name apart: the tags and names down a few levels of
// pointers and qualifiers.
func (b *builder) targetSig(e *entry) string {
	var sig []byte
	for range 4 {
		o, ok := e.ref(dwarf.AttrType)
		if !ok {
			return string(append(sig, "void"...))
		}
		t, _ := b.src.read(o, true)
		if t == nil {
			return string(sig)
		}
		n := t.str(dwarf.AttrName)
		if q, ok := b.ix.qual[o]; ok {
			n = q
		}
		sig = append(sig, t.tag.String()...)
		sig = append(sig, ' ')
		sig = append(sig, n...)
		sig = append(sig, ';')
		if n != "" {
			break
		}
		e = t
	}
	return string(sig)
}

// templated reports whether kids hold template parameters.
func templated(kids []*entry) bool {
	for _, c := range kids {
		if c.tag == dwarf.TagTemplateTypeParameter || c.tag == dwarf.TagTemplateValueParameter {
			return true
		}
	}
	return false
}

// treeSize is the number of nodes of t written as a tree (references
// count one), memoised by node, saturating above the budget.
func (b *builder) treeSize(t *abi.Type) int {
	if t == nil {
		return 0
	}
	if n, ok := b.sizes[t]; ok {
		return n
	}
	n := 1 + b.treeSize(t.Elem)
	for _, m := range t.Members {
		n = min(n+b.treeSize(m.Type), b.maxNodes+1)
	}
	for _, m := range t.Statics {
		n = min(n+b.treeSize(m.Type), b.maxNodes+1)
	}
	for _, m := range t.Bases {
		n = min(n+b.treeSize(m.Type), b.maxNodes+1)
	}
	for _, p := range t.Params {
		n = min(n+b.treeSize(p), b.maxNodes+1)
	}
	n = min(n, b.maxNodes+1)
	b.sizes[t] = n
	return n
}

func namedKind(t dwarf.Tag) abi.Kind {
	switch t {
	case dwarf.TagStructType, dwarf.TagClassType, dwarf.TagUnionType, dwarf.TagEnumerationType, dwarf.TagTypedef, dwarf.TagBaseType:
		return tagKind(t)
	}
	return ""
}

// elem converts the type e refers to with DW_AT_type; none means void.
func (b *builder) elem(e *entry, depth int) *abi.Type {
	if o, ok := e.ref(dwarf.AttrType); ok {
		return b.at(o, depth)
	}
	return &abi.Type{Kind: abi.Void}
}

// node writes the entry e in full; the types it refers to go through at.
func (b *builder) node(e *entry, kids []*entry, depth int) *abi.Type {
	name := e.str(dwarf.AttrName)
	size, _ := e.num(dwarf.AttrByteSize)
	switch e.tag {
	case dwarf.TagStructType, dwarf.TagClassType, dwarf.TagUnionType:
		n := &abi.Type{Kind: abi.Struct, Name: name, Size: size, Class: e.tag == dwarf.TagClassType}
		if e.tag == dwarf.TagUnionType {
			n.Kind = abi.Union
		}
		if e.flag(dwarf.AttrDeclaration) {
			n.Incomplete, n.Size = true, 0
		}
		b.classKids(n, kids, depth)
		return n
	case dwarf.TagEnumerationType:
		n := &abi.Type{Kind: abi.Enum, Name: name, Size: size, EnumClass: e.flag(dwarf.AttrEnumClass)}
		for _, c := range kids {
			if c.tag == dwarf.TagEnumerator {
				v, _ := c.num(dwarf.AttrConstValue)
				n.Enumerators = append(n.Enumerators, abi.Enumerator{Name: c.str(dwarf.AttrName), Value: v})
			}
		}
		return n
	case dwarf.TagTypedef:
		return &abi.Type{Kind: abi.Typedef, Name: name, Elem: b.elem(e, depth)}
	case dwarf.TagBaseType:
		enc, _ := e.num(dwarf.AttrEncoding)
		return &abi.Type{Kind: abi.Base, Name: name, Size: size, Encoding: encodings[enc]}
	case dwarf.TagPointerType, dwarf.TagReferenceType, dwarf.TagRvalueReferenceType:
		if size == 0 {
			size = int64(b.src.addrSize())
		}
		k := map[dwarf.Tag]abi.Kind{dwarf.TagPointerType: abi.Pointer, dwarf.TagReferenceType: abi.Reference, dwarf.TagRvalueReferenceType: abi.RvalueReference}[e.tag]
		return &abi.Type{Kind: k, Size: size, Elem: b.elem(e, depth)}
	case dwarf.TagConstType:
		return &abi.Type{Kind: abi.Const, Elem: b.elem(e, depth)}
	case dwarf.TagVolatileType:
		return &abi.Type{Kind: abi.Volatile, Elem: b.elem(e, depth)}
	case dwarf.TagRestrictType:
		return &abi.Type{Kind: abi.Restrict, Elem: b.elem(e, depth)}
	case dwarf.TagArrayType:
		return b.array(e, kids, depth)
	case dwarf.TagSubroutineType:
		return b.signature(e, kids, false, depth)
	case dwarf.TagUnspecifiedType:
		return &abi.Type{Kind: abi.Unknown, Name: name}
	}
	return &abi.Type{Kind: abi.Unknown, Name: e.tag.String()}
}

// classKids reads the children of a struct, class or union: data members,
// C++ static data members (a member declared, not laid out: DWARF 4's
// external member, DWARF 5's variable), base classes and virtual member
// functions with their vtable slots.
func (b *builder) classKids(n *abi.Type, kids []*entry, depth int) {
	for _, c := range kids {
		switch c.tag {
		case dwarf.TagMember:
			if c.flag(dwarf.AttrExternal) || c.flag(dwarf.AttrDeclaration) {
				n.Statics = append(n.Statics, abi.Member{Name: c.str(dwarf.AttrName), Type: b.elem(c, depth)})
				continue
			}
			n.Members = append(n.Members, b.member(c, depth))
		case dwarf.TagVariable:
			n.Statics = append(n.Statics, abi.Member{Name: c.str(dwarf.AttrName), Type: b.elem(c, depth)})
		case dwarf.TagInheritance:
			m := b.member(c, depth)
			v, _ := c.num(dwarf.AttrVirtuality)
			n.Bases = append(n.Bases, abi.BaseClass{Type: m.Type, Offset: m.Offset, Virtual: v != 0})
		case dwarf.TagSubprogram:
			if v, _ := c.num(dwarf.AttrVirtuality); v == 0 {
				if n.Incomplete {
					name := c.linkageName()
					if name == "" {
						name = c.str(dwarf.AttrName)
					}
					if name != "" && !slices.Contains(n.Methods, name) {
						n.Methods = append(n.Methods, name)
					}
				}
				continue
			}
			slot := int64(-1)
			if loc := c.block(dwarf.AttrVtableElemLoc); len(loc) > 1 && loc[0] == 0x10 {
				// DW_OP_constu N.
				r := reader{b: loc, off: 1}
				slot = int64(r.uleb())
			} else if v, ok := c.num(dwarf.AttrVtableElemLoc); ok {
				slot = v
			}
			// Overloads share a short name: the mangled one tells
			// them apart.
			name := c.linkageName()
			if name == "" {
				name = c.str(dwarf.AttrName)
			}
			n.Virtuals = append(n.Virtuals, abi.Virtual{Name: name, Slot: slot})
		}
	}
	uniqueVirtuals(n.Virtuals)
	sort.SliceStable(n.Virtuals, func(i, j int) bool { return n.Virtuals[i].Slot < n.Virtuals[j].Slot })
}

// uniqueVirtuals renames the second and later of virtuals that share a
// name (overloads without a linkage name in their DWARF) "name#2", "name#3"
// in declaration order: the diff keys virtuals by name, and two under one
// key made a file differ from itself.
func uniqueVirtuals(vs []abi.Virtual) {
	if len(vs) < 2 {
		return
	}
	seen := make(map[string]int, len(vs))
	for i := range vs {
		n := vs[i].Name
		seen[n]++
		if k := seen[n]; k > 1 {
			vs[i].Name = n + "#" + strconv.Itoa(k)
		}
	}
}

var encodings = map[int64]string{
	0x1: "address", 0x2: "bool", 0x3: "complex", 0x4: "float", 0x5: "signed",
	0x6: "signed_char", 0x7: "unsigned", 0x8: "unsigned_char", 0x10: "utf",
}

func (b *builder) member(c *entry, depth int) abi.Member {
	m := abi.Member{Name: c.str(dwarf.AttrName), Type: b.elem(c, depth)}
	if loc, ok := c.num(dwarf.AttrDataMemberLoc); ok {
		m.Offset = loc
	} else if loc := c.block(dwarf.AttrDataMemberLoc); len(loc) > 1 && loc[0] == 0x23 {
		// DWARF 2: DW_OP_plus_uconst N.
		r := reader{b: loc, off: 1}
		m.Offset = int64(r.uleb())
	}
	bits, _ := c.num(dwarf.AttrBitSize)
	if bits <= 0 {
		return m
	}
	m.BitSize = bits
	if dbo, ok := c.num(dwarf.AttrDataBitOffset); ok {
		m.BitOffset = dbo
	} else if bo, ok := c.num(dwarf.AttrBitOffset); ok {
		// DWARF 2/3 count from the most significant bit of the storage
		// unit: on a big-endian target (s390x, ppc64) that is the bit at
		// the lowest address, on a little-endian one the highest.
		if b.bigEndian {
			m.BitOffset = m.Offset*8 + bo
		} else {
			unit, _ := c.num(dwarf.AttrByteSize)
			if unit == 0 {
				unit = b.sizeOf(m.Type)
			}
			m.BitOffset = m.Offset*8 + unit*8 - bo - bits
		}
	} else {
		m.BitOffset = m.Offset * 8
	}
	m.Offset = m.BitOffset / 8
	return m
}

// array builds nested arrays from the subranges of e, outermost first.
func (b *builder) array(e *entry, kids []*entry, depth int) *abi.Type {
	elem := b.elem(e, depth)
	var counts []int64
	for _, c := range kids {
		if c.tag != dwarf.TagSubrangeType && c.tag != dwarf.TagEnumerationType {
			continue
		}
		n := int64(-1)
		if v, ok := c.num(dwarf.AttrCount); ok {
			n = v
		} else if ub, ok := c.num(dwarf.AttrUpperBound); ok {
			lb, _ := c.num(dwarf.AttrLowerBound)
			n = ub - lb + 1
		}
		counts = append(counts, n)
	}
	if len(counts) == 0 {
		counts = []int64{-1}
	}
	t := elem
	for i := len(counts) - 1; i >= 0; i-- {
		t = &abi.Type{Kind: abi.Array, Count: counts[i], Elem: t}
		if es := b.sizeOf(t.Elem); counts[i] >= 0 && es >= 0 {
			t.Size = counts[i] * es
		}
	}
	return t
}

// sizeOf is the size of t in bytes, following references and typedefs;
// -1 when unknown.
func (b *builder) sizeOf(t *abi.Type) int64 {
	for range maxDepth {
		if t == nil {
			return -1
		}
		if t.Ref != "" {
			t = b.a.Types[t.Ref]
			continue
		}
		switch t.Kind {
		case abi.Typedef, abi.Const, abi.Volatile, abi.Restrict:
			t = t.Elem
			continue
		case abi.Array:
			if t.Count < 0 {
				return -1
			}
		}
		return t.Size
	}
	return -1
}

// signature builds a function type from a subprogram or subroutine type;
// definition: e is a function's definition (its code), not a declaration
// or a type.
func (b *builder) signature(e *entry, kids []*entry, definition bool, depth int) *abi.Type {
	// Its parameters are exactly those DWARF lists when it has a
	// prototype; in C++ and every language but C and assembly (Ada,
	// Fortran), whose DWARF has no DW_AT_prototyped; and for a C
	// function defined without a prototype (K&R C, void f() {...}),
	// whose definition lists the parameters it takes. Only a C
	// declaration or function type without a prototype, or what GNU as
	// describes, says nothing about them.
	prototyped := e.flag(dwarf.AttrPrototyped) || strings.HasPrefix(e.linkageName(), "_Z") ||
		b.lang != langMipsAssembler && (!isC(b.lang) || definition)
	fn := &abi.Type{Kind: abi.Func, Elem: b.elem(e, depth)}
	for _, c := range kids {
		switch c.tag {
		case dwarf.TagFormalParameter:
			// A parameter's own const or volatile is not part of the
			// function's type (f(const int) is f(int)); the definition
			// of a C++ member function writes this as T *const, its
			// declaration as T *.
			p := b.elem(c, depth)
			for p != nil && p.Ref == "" && (p.Kind == abi.Const || p.Kind == abi.Volatile) && p.Elem != nil {
				p = p.Elem
			}
			fn.Params = append(fn.Params, p)
		case dwarf.TagUnspecifiedParameters:
			fn.Variadic = true
		}
	}
	if !prototyped && len(fn.Params) == 0 {
		fn.Variadic = true
	}
	return fn
}
