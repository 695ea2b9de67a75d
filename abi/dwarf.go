package abi

import (
	"debug/dwarf"
	"encoding/binary"
	"fmt"
)

// maxDepth bounds the nesting of inline type nodes; deeper DWARF is
// malformed or hostile and is cut with an Unknown node.
const maxDepth = 256

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
}

// scan indexes d. It reads top-level entries only and skips their children
// (using DW_AT_sibling when the compiler wrote it), so the cost is a small
// part of the DWARF; member lists are read later, only for reachable types.
func scan(d *dwarf.Data, wantNames bool) (*index, error) {
	ix := &index{
		funcs: map[string]dwarf.Offset{}, vars: map[string]dwarf.Offset{},
		funcDecls: map[string]dwarf.Offset{}, varDecls: map[string]dwarf.Offset{},
		funcAddr: map[uint64]dwarf.Offset{}, varAddr: map[uint64]dwarf.Offset{},
		defs: map[string]dwarf.Offset{}, decls: map[string]dwarf.Offset{},
	}
	seenName := map[string]bool{}
	r := &forward{r: d.Reader()}
	for {
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
		for {
			e, err := r.Next()
			if err != nil {
				return nil, err
			}
			if e == nil || e.Tag == 0 {
				break
			}
			if e.Children {
				r.SkipChildren()
			}
			ix.add(e, wantNames, seenName)
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
}

func (f *forward) Next() (*dwarf.Entry, error) {
	e, err := f.r.Next()
	if err != nil || e == nil || e.Tag == 0 {
		// debug/dwarf gives null entries offset 0.
		return e, err
	}
	if f.started && e.Offset <= f.last {
		return nil, fmt.Errorf("entry at %#x after %#x: DW_AT_sibling points backwards", e.Offset, f.last)
	}
	f.last, f.started = e.Offset, true
	return e, nil
}

func (f *forward) SkipChildren() { f.r.SkipChildren() }

func (ix *index) add(e *dwarf.Entry, wantNames bool, seenName map[string]bool) {
	switch e.Tag {
	case dwarf.TagSubprogram, dwarf.TagVariable:
		// An out-of-line instance of an inline function, or a definition
		// completing a declaration, has its name and types on the
		// origin DIE, which is itself a top-level entry indexed by name.
		// By address it maps to the origin without reading it here.
		def, hasOrigin := originOf(e)
		if !hasOrigin {
			def = e.Offset
		}
		_, decl := e.Val(dwarf.AttrDeclaration).(bool)
		ext, _ := e.Val(dwarf.AttrExternal).(bool)
		name := linkName(e)
		byName, byAddr := ix.funcs, ix.funcAddr
		if e.Tag == dwarf.TagVariable {
			byName, byAddr = ix.vars, ix.varAddr
			if loc, ok := e.Val(dwarf.AttrLocation).([]byte); ok && len(loc) == 9 && loc[0] == 0x03 {
				addAddr(byAddr, binary.LittleEndian.Uint64(loc[1:]), def)
			}
		} else if pc, ok := e.Val(dwarf.AttrLowpc).(uint64); ok {
			addAddr(byAddr, pc, def)
		}
		if !ext || name == "" {
			return
		}
		if decl {
			// A declaration (often unprototyped, from a builtin) is
			// only used when neither a definition nor an address
			// describes the symbol.
			byName = ix.funcDecls
			if e.Tag == dwarf.TagVariable {
				byName = ix.varDecls
			}
		}
		if _, ok := byName[name]; !ok {
			byName[name] = def
		}
		return
	case dwarf.TagStructType, dwarf.TagUnionType, dwarf.TagEnumerationType, dwarf.TagTypedef, dwarf.TagBaseType:
		name, _ := e.Val(dwarf.AttrName).(string)
		if name == "" {
			return
		}
		key := Key(tagKind(e.Tag), name)
		if wantNames && !seenName[key] {
			seenName[key] = true
			ix.names = append(ix.names, key)
		}
		if _, decl := e.Val(dwarf.AttrDeclaration).(bool); decl {
			if _, ok := ix.decls[key]; !ok && wantNames {
				ix.decls[key] = e.Offset
			}
			return
		}
		if _, ok := ix.defs[key]; !ok {
			ix.defs[key] = e.Offset
		}
	}
}

func addAddr(m map[uint64]dwarf.Offset, addr uint64, off dwarf.Offset) {
	if _, dup := m[addr]; !dup && addr != 0 {
		m[addr] = off
	}
}

func tagKind(t dwarf.Tag) Kind {
	switch t {
	case dwarf.TagStructType, dwarf.TagClassType:
		return Struct
	case dwarf.TagUnionType:
		return Union
	case dwarf.TagEnumerationType:
		return Enum
	case dwarf.TagTypedef:
		return Typedef
	}
	return Base
}

func originOf(e *dwarf.Entry) (dwarf.Offset, bool) {
	if o, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset); ok {
		return o, true
	}
	o, ok := e.Val(dwarf.AttrSpecification).(dwarf.Offset)
	return o, ok
}

func linkName(e *dwarf.Entry) string {
	if n, ok := e.Val(dwarf.AttrLinkageName).(string); ok && n != "" {
		return n
	}
	n, _ := e.Val(dwarf.AttrName).(string)
	return n
}

// builder converts dwarf.Types into the model, writing each named type into
// the ABI's table once.
type builder struct {
	d      *dwarf.Data
	ix     *index
	a      *ABI
	r      *dwarf.Reader // reused: a Reader per lookup costs more than the lookup
	inline map[dwarf.Type]*Type
	// nodes bounds the work on hostile input (every node costs a few
	// bytes of DWARF, so this is proportional to the file).
	nodes, maxNodes int
}

func newBuilder(d *dwarf.Data, ix *index, a *ABI, limit int) *builder {
	return &builder{d: d, r: d.Reader(), ix: ix, a: a, inline: map[dwarf.Type]*Type{}, maxNodes: limit}
}

// typesOf attaches DWARF types to the exported symbols of a.
func typesOf(a *ABI, d *dwarf.Data, _ binary.ByteOrder) error {
	ix, err := scan(d, false)
	if err != nil {
		return err
	}
	b := newBuilder(d, ix, a, 1<<22)
	for i := range a.Symbols {
		s := &a.Symbols[i]
		switch s.Kind {
		case "func", "ifunc":
			// An ifunc's address is its resolver's: only its name
			// finds its real signature.
			if off, ok := ix.lookup(ix.funcs, ix.funcAddr, ix.funcDecls, s.Name, s.addr, s.Kind == "func"); ok {
				s.Type = b.function(off)
			}
		case "object", "tls", "common":
			if off, ok := ix.lookup(ix.vars, ix.varAddr, ix.varDecls, s.Name, s.addr, true); ok {
				s.Type = b.variable(off)
			}
		}
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

// function reads the signature of the subprogram at off.
func (b *builder) function(off dwarf.Offset) *Type {
	b.r.Seek(off)
	r := &forward{r: b.r}
	e, err := r.Next()
	if err != nil || e == nil || e.Tag != dwarf.TagSubprogram {
		return nil
	}
	fn := &Type{Kind: Func}
	if o, ok := e.Val(dwarf.AttrType).(dwarf.Offset); ok {
		fn.Elem = b.at(o, 0)
	} else {
		fn.Elem = &Type{Kind: Void}
	}
	if !e.Children {
		if p, _ := e.Val(dwarf.AttrPrototyped).(bool); !p {
			fn.Variadic = true
		}
		return fn
	}
	for {
		c, err := r.Next()
		if err != nil || c == nil || c.Tag == 0 {
			break
		}
		switch c.Tag {
		case dwarf.TagFormalParameter:
			if o, ok := c.Val(dwarf.AttrType).(dwarf.Offset); ok {
				fn.Params = append(fn.Params, b.at(o, 0))
			}
		case dwarf.TagUnspecifiedParameters:
			fn.Variadic = true
		}
		if c.Children {
			r.SkipChildren()
		}
	}
	return fn
}

func (b *builder) variable(off dwarf.Offset) *Type {
	b.r.Seek(off)
	e, err := b.r.Next()
	if err != nil || e == nil {
		return nil
	}
	o, ok := e.Val(dwarf.AttrType).(dwarf.Offset)
	if !ok {
		return nil
	}
	return b.at(o, 0)
}

// at converts the type at off.
func (b *builder) at(off dwarf.Offset, depth int) *Type {
	t, err := b.d.Type(off)
	if err != nil {
		return &Type{Kind: Unknown, Name: fmt.Sprintf("unreadable type at %#x", off)}
	}
	return b.conv(t, depth)
}

func (b *builder) conv(t dwarf.Type, depth int) *Type {
	if t == nil {
		return &Type{Kind: Void}
	}
	b.nodes++
	if depth > maxDepth || b.nodes > b.maxNodes {
		return &Type{Kind: Unknown, Name: "too deep"}
	}
	if n := b.named(t); n != "" {
		if _, done := b.a.Types[n]; !done {
			slot := &Type{}
			b.a.Types[n] = slot // reserve first: recursive types refer back by name
			*slot = *b.node(b.complete(t), 0)
		}
		return &Type{Ref: n}
	}
	if c, ok := b.inline[t]; ok {
		return c
	}
	// Unnamed types cannot form cycles in C; in hostile DWARF they can,
	// and depth cuts them.
	c := b.node(t, depth+1)
	b.inline[t] = c
	return c
}

// named returns the table key of t when it is a named type.
func (b *builder) named(t dwarf.Type) string {
	switch t := t.(type) {
	case *dwarf.StructType:
		if t.StructName == "" {
			return ""
		}
		k := Struct
		if t.Kind == "union" {
			k = Union
		}
		return Key(k, t.StructName)
	case *dwarf.EnumType:
		if t.EnumName == "" {
			return ""
		}
		return Key(Enum, t.EnumName)
	case *dwarf.TypedefType:
		return t.Name
	case *dwarf.IntType, *dwarf.UintType, *dwarf.CharType, *dwarf.UcharType,
		*dwarf.FloatType, *dwarf.ComplexType, *dwarf.BoolType, *dwarf.AddrType:
		return t.Common().Name
	}
	return ""
}

// complete swaps a declaration (struct foo;) for the definition another
// unit has, when there is one.
func (b *builder) complete(t dwarf.Type) dwarf.Type {
	st, ok := t.(*dwarf.StructType)
	if !ok || !st.Incomplete {
		return t
	}
	if off, ok := b.ix.defs[b.named(t)]; ok {
		if d, err := b.d.Type(off); err == nil {
			if dst, ok := d.(*dwarf.StructType); ok && !dst.Incomplete {
				return d
			}
		}
	}
	return t
}

// node writes t in full (named or not); its parts are converted by conv.
func (b *builder) node(t dwarf.Type, depth int) *Type {
	switch t := t.(type) {
	case *dwarf.StructType:
		n := &Type{Kind: Struct, Name: t.StructName, Size: t.ByteSize, Incomplete: t.Incomplete}
		if t.Kind == "union" {
			n.Kind = Union
		}
		if t.Incomplete {
			n.Size = 0
		}
		for _, f := range t.Field {
			if f == nil {
				continue
			}
			m := Member{Name: f.Name, Offset: f.ByteOffset, Type: b.conv(f.Type, depth)}
			if f.BitSize > 0 {
				m.BitSize = f.BitSize
				m.BitOffset = bitOffset(f)
				m.Offset = m.BitOffset / 8
			}
			n.Members = append(n.Members, m)
		}
		return n
	case *dwarf.EnumType:
		n := &Type{Kind: Enum, Name: t.EnumName, Size: t.ByteSize}
		for _, v := range t.Val {
			if v != nil {
				n.Enumerators = append(n.Enumerators, Enumerator{Name: v.Name, Value: v.Val})
			}
		}
		return n
	case *dwarf.TypedefType:
		return &Type{Kind: Typedef, Name: t.Name, Elem: b.conv(t.Type, depth)}
	case *dwarf.PtrType:
		return &Type{Kind: Pointer, Size: t.ByteSize, Elem: b.conv(t.Type, depth)}
	case *dwarf.QualType:
		k := Unknown
		switch t.Qual {
		case "const":
			k = Const
		case "volatile":
			k = Volatile
		case "restrict":
			k = Restrict
		}
		return &Type{Kind: k, Elem: b.conv(t.Type, depth)}
	case *dwarf.ArrayType:
		n := &Type{Kind: Array, Count: t.Count, Elem: b.conv(t.Type, depth)}
		if t.Count >= 0 {
			n.Size = t.Size()
		}
		return n
	case *dwarf.FuncType:
		n := &Type{Kind: Func, Elem: b.conv(t.ReturnType, depth)}
		for _, p := range t.ParamType {
			if _, ok := p.(*dwarf.DotDotDotType); ok {
				n.Variadic = true
				continue
			}
			n.Params = append(n.Params, b.conv(p, depth))
		}
		return n
	case *dwarf.VoidType:
		return &Type{Kind: Void}
	case *dwarf.IntType:
		return base(t.Name, t.ByteSize, "signed")
	case *dwarf.UintType:
		return base(t.Name, t.ByteSize, "unsigned")
	case *dwarf.CharType:
		return base(t.Name, t.ByteSize, "signed_char")
	case *dwarf.UcharType:
		return base(t.Name, t.ByteSize, "unsigned_char")
	case *dwarf.FloatType:
		return base(t.Name, t.ByteSize, "float")
	case *dwarf.ComplexType:
		return base(t.Name, t.ByteSize, "complex")
	case *dwarf.BoolType:
		return base(t.Name, t.ByteSize, "bool")
	case *dwarf.AddrType:
		return base(t.Name, t.ByteSize, "address")
	}
	return &Type{Kind: Unknown, Name: t.String(), Size: max(t.Size(), 0)}
}

func base(name string, size int64, enc string) *Type {
	return &Type{Kind: Base, Name: name, Size: size, Encoding: enc}
}

// bitOffset is a bit-field's offset in bits from the start of its
// aggregate, whichever way the compiler described it.
func bitOffset(f *dwarf.StructField) int64 {
	if f.DataBitOffset != 0 || (f.BitOffset == 0 && f.ByteSize == 0) {
		return f.DataBitOffset
	}
	// DWARF 2/3: DW_AT_bit_offset counts from the most significant bit
	// of the storage unit; this is the little-endian reading, which is
	// what every target abifloor knows is.
	size := f.ByteSize
	if size == 0 {
		size = f.Type.Size()
	}
	return f.ByteOffset*8 + size*8 - f.BitOffset - f.BitSize
}
