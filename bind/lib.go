package bind

import (
	"debug/elf"
	"fmt"
	"io"
	"strings"

	"github.com/abifloor/abifloor/elfx"
)

// object is what the audit keeps of one ELF file: enough to search for its
// dependencies, to answer symbol lookups and to know its own references.
// It is immutable once built, so one object serves every binary of a run.
type object struct {
	Machine elf.Machine
	Class   elf.Class
	Data    elf.Data
	Type    elf.Type
	Kind    elfx.Kind
	Arch    string
	Interp  string
	Soname  string
	Needed  []string
	Rpath   []string // nil when the object has DT_RUNPATH (ld.so ignores RPATH then)
	Runpath []string
	HasRun  bool
	NoDef   bool // DF_1_NODEFLIB: skip ld.so.cache and the default directories
	BindNow bool
	Relro   bool // PT_GNU_RELRO present
	Relr    bool // DT_RELR relocations: applied by glibc 2.36's loader and later only
	Go      bool // built by the Go linker
	// GoBindNow: BindNow, and the Go linker asked for it (goLinkerBindNow).
	GoBindNow bool
	// PLTNone counts PLT relocations of type NONE: the lazy-binding setup
	// rejects them ("unexpected PLT reloc type 0x00").
	PLTNone int

	// gnu is the library's own DT_GNU_HASH table, through which its
	// definitions are looked up as the loader looks them up; without one
	// (or one too degenerate to walk), defs and defHead index them.
	gnu       *elfx.GNUHash
	defs      []def
	defHead   map[string]int32 // name → first of its defs
	versioned bool             // has DT_VERSYM: version rules apply to lookups in it
	verdefs   map[string]bool
	verneeds  []elfx.VerNeed
	refs      []reference
	key       fileKey
}

// def is one definition; definitions of the same name are chained by next
// (-1 ends), so indexing a library costs one map entry per name and one
// slice for all, which matters for libraries exporting 50,000 symbols.
type def struct {
	version string
	index   uint16
	hidden  bool
	next    int32
}

func (o *object) indexDefs(syms *elfx.SymTab) {
	if syms == nil {
		return
	}
	n := 0
	for i := 1; i < syms.Len(); i++ {
		if s := syms.At(i); s.Exported() {
			n++
		}
	}
	o.defs = make([]def, 0, n)
	o.defHead = make(map[string]int32, n)
	for i := 1; i < syms.Len(); i++ {
		s := syms.At(i)
		if !s.Exported() {
			continue
		}
		next := int32(-1)
		if h, ok := o.defHead[s.Name]; ok {
			next = h
		}
		o.defHead[s.Name] = int32(len(o.defs))
		o.defs = append(o.defs, def{s.Version, s.VersionIndex, s.VersionIndex >= 2 && !s.Default, next})
	}
}

// reference is an undefined, non-weak symbol of an object and how the loader
// would bind it, judged from the relocations that use it.
type reference struct {
	Name    string
	Version string
	File    string // the verneed file that must provide Version
	// Reloc is the type of the first relocation that forces the symbol at
	// load (the eager one), else of the first lazy one; "" when none.
	Reloc string
	// Binding is "eager" (resolved before main), "lazy" (at the first
	// call) or "never" (no relocation uses it).
	Binding string
	order   int  // index of the first relocation, for the loader's order
	copy    bool // a COPY relocation: the referencing object does not count
}

type fileKey struct{ dev, ino uint64 }

// parseInput parses an open file, which is known by its identity from
// then on.
func parseInput(in openFile) (*object, error) {
	if in.obj != nil || in.objErr != nil {
		return in.obj, in.objErr // its key was set when it was parsed
	}
	o, err := parseObjectHead(in.r, in.size, in.head, 0, "")
	if err != nil {
		return nil, err
	}
	o.key = in.key
	return o, nil
}

// parseObjectHead is parseObject of a file whose first bytes are head
// (nil: not read yet). With hold > 0 (a member of an image), the tables it
// reads add up to at most hold bytes (elfx.File.LimitTables; why says why).
func parseObjectHead(r io.ReaderAt, size int64, head []byte, hold int64, why string) (*object, error) {
	f, err := elfx.NewFileHead(r, size, head)
	if err != nil {
		return nil, err
	}
	if hold > 0 {
		f.LimitTables(hold, why)
	}
	o := &object{Machine: f.Machine, Class: f.Class, Data: f.Data, Type: f.Type, Kind: f.Kind(), Arch: f.Arch(), Interp: f.Interp}
	o.Relro = f.Prog(elf.PT_GNU_RELRO) != nil
	o.Go = isGo(f)
	d := f.Dynamic
	if d == nil {
		return o, nil // static, or a separate debug file: nothing to bind
	}
	o.Soname, o.Needed, o.BindNow, o.Relr = d.Soname, d.Needed, d.BindNow, d.HasRelr
	o.HasRun = d.Has(elf.DT_RUNPATH)
	o.NoDef = d.Flags1&elf.DF_1_NODEFLIB != 0
	if o.HasRun {
		o.Runpath = splitPath(d.Runpath)
	} else {
		o.Rpath = splitPath(d.Rpath)
	}
	syms, err := f.SymTab()
	if err != nil {
		return nil, err
	}
	o.versioned = d.Has(elf.DT_VERSYM)
	if o.verneeds, err = f.VersionNeeds(); err != nil {
		return nil, err
	}
	defs, err := f.VersionDefs()
	if err != nil {
		return nil, err
	}
	if len(defs) > 0 {
		o.verdefs = make(map[string]bool, len(defs))
		for _, vd := range defs {
			o.verdefs[vd.Name] = true
		}
	}
	relocs, err := f.SymbolRelocs()
	if err != nil {
		return nil, err
	}
	if err := o.classify(syms, relocs); err != nil {
		return nil, err
	}
	if hold == 0 {
		// An image member's tables are copied and counted (detach); a
		// file of this machine keeps its hash table as it is.
		if h, err := f.GNUHash(); err == nil && h != nil {
			o.gnu = h
		}
	}
	if o.gnu == nil {
		o.indexDefs(syms)
	}
	// After the index: the Go linker's BIND_NOW is told by what the file
	// defines (runtime.main), through either index.
	o.GoBindNow = o.Go && o.BindNow && goLinkerBindNow(f, o)
	return o, nil
}

// classify records the undefined non-weak symbols and how each is bound.
func (o *object) classify(syms *elfx.SymTab, relocs []elfx.Reloc) error {
	nsyms := 0
	if syms != nil {
		nsyms = syms.Len()
	}
	k := kindsFor(o.Machine)
	type use struct {
		eager, lazy string
		order       int
		used, copy  bool
	}
	copyType, hasCopy := copyTypes[o.Machine]
	uses := make(map[uint32]*use)
	for i, r := range relocs {
		if r.PLT && r.Type == k.none {
			o.PLTNone++
			continue
		}
		if r.Sym == 0 {
			continue
		}
		if int64(r.Sym) >= int64(nsyms) {
			return &elfx.FormatError{Off: -1, Msg: fmt.Sprintf("a %s relocation at %#x refers to symbol %d, but the dynamic symbol table has %d", relocName(o.Machine, r.Type), r.Off, r.Sym, nsyms)}
		}
		copyRel := hasCopy && r.Type == copyType
		if !syms.Undefined(int(r.Sym)) && !copyRel {
			continue
		}
		u := uses[r.Sym]
		if u == nil {
			u = &use{order: i}
			uses[r.Sym] = u
		}
		u.used = true
		u.copy = u.copy || copyRel
		name := relocName(o.Machine, r.Type)
		if r.PLT && k.lazy[r.Type] && !o.BindNow {
			if u.lazy == "" {
				u.lazy = name
			}
		} else if u.eager == "" {
			u.eager = name
			u.order = i
		}
	}
	for i := range nsyms {
		s := syms.At(i)
		u := uses[uint32(i)]
		copied := u != nil && u.copy
		if i == 0 || !s.Undefined() && !copied || s.Bind == elf.STB_WEAK || s.Name == "" {
			continue
		}
		ref := reference{Name: s.Name, Version: s.Version, File: s.Library, Binding: "never", order: len(relocs) + i, copy: copied}
		if u != nil {
			ref.order = u.order
			switch {
			case u.eager != "":
				ref.Binding, ref.Reloc = "eager", u.eager
			case u.lazy != "":
				ref.Binding, ref.Reloc = "lazy", u.lazy
			}
		}
		o.refs = append(o.refs, ref)
	}
	return nil
}

// provides reports whether o has a definition a reference name@version
// binds to, by the rules of glibc's check_match: a versioned reference
// takes the definition of that version (hidden or not), or an unversioned
// (base) one; an unversioned reference takes an unversioned or base
// definition, or the only non-hidden versioned one.
func (o *object) provides(name, version string) bool {
	return o.providesHash(name, version, elfx.GNUHashOf(name))
}

// providesHash is provides for a name whose GNU hash is known.
func (o *object) providesHash(name, version string, hash uint32) bool {
	if o.gnu != nil {
		return o.gnuProvides(name, version, hash)
	}
	h, ok := o.defHead[name]
	if !ok {
		return false
	}
	if !o.versioned {
		return true
	}
	n := 0
	for i := h; i >= 0; i = o.defs[i].next {
		d := &o.defs[i]
		if version != "" {
			if d.version == version || (d.index <= 1 && !d.hidden) {
				return true
			}
			continue
		}
		if d.index < 3 {
			return true
		}
		if !d.hidden {
			n++
		}
	}
	return version == "" && n == 1
}

// gnuProvides is provides through the library's hash table, by the same
// rules.
func (o *object) gnuProvides(name, version string, hash uint32) bool {
	found, n := false, 0
	o.gnu.Lookup(name, hash, func(s elfx.Symbol) bool {
		if !s.Exported() {
			return false
		}
		hidden := s.VersionIndex >= 2 && !s.Default
		switch {
		case !o.versioned:
			found = true
		case version != "":
			found = s.Version == version || (s.VersionIndex <= 1 && !hidden)
		case s.VersionIndex < 3:
			found = true
		case !hidden:
			n++
		}
		return found
	})
	return found || o.versioned && version == "" && n == 1
}

// defCount is about how many definitions o has: what indexing them costs.
func (o *object) defCount() int {
	if o.gnu != nil {
		return o.gnu.Hashed()
	}
	return len(o.defHead)
}

// eachName calls fn with the name of every definition o may have (and
// maybe more): the names under which provides may say yes.
func (o *object) eachName(fn func(string)) {
	if o.gnu != nil {
		for i := range o.gnu.Hashed() {
			fn(o.gnu.HashedName(i))
		}
		return
	}
	for name := range o.defHead {
		fn(name)
	}
}

// names lists the names a loaded object answers to when a DT_NEEDED entry
// is matched against what is already loaded.
func (o *object) names(loadedAs string) []string {
	ns := []string{loadedAs}
	if o.Soname != "" {
		ns = append(ns, o.Soname)
	}
	return ns
}

func splitPath(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ":")
}

// isGo reports whether f was linked by the Go linker, which writes a
// .go.buildinfo section and a .note.go.buildid note. It reads the section
// headers (usually one read more); a stripped file that lost them is not
// recognised.
func isGo(f *elfx.File) bool {
	secs, err := f.Sections()
	if err != nil {
		return false
	}
	for _, s := range secs {
		if s.Name == ".go.buildinfo" || s.Name == ".note.go.buildid" {
			return true
		}
	}
	return false
}
