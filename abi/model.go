package abi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"slices"
	"sort"
	"strings"
)

// Schema is the version of the JSON form written by this package. Schema 2
// added C++: qualified names, bases, virtuals, static members, enum
// classes, references and demangled symbol names. Schema 1 files are read
// as they are (they have none of these).
const Schema = 2

// Where the types of an ABI came from (ABI.DebugInfo).
const (
	DebugDWARF   = "dwarf"   // DWARF of the file or of its separate debug file
	DebugNone    = "none"    // no debug info found: symbols only
	DebugHeaders = "headers" // C headers compiled by Headers
)

// ABI is the binary interface of one library or header tree.
type ABI struct {
	Schema    int    `json:"schema"`
	Arch      string `json:"arch,omitempty"`
	SOName    string `json:"soname,omitempty"`
	DebugInfo string `json:"debug_info"`
	// SymbolTable is ".symtab" when Symbols are the global functions and
	// variables of the link-time symbol table (an object file or an
	// executable, as abidiff reads them), empty when they are what the
	// dynamic symbol table exports.
	SymbolTable string `json:"symbol_table,omitempty"`
	// DebugFile names where the DWARF was read when it was not the file
	// itself. It is not part of the fingerprint.
	DebugFile string           `json:"debug_file,omitempty"`
	Symbols   []Symbol         `json:"symbols"`
	Types     map[string]*Type `json:"types"`
	// Versions are the version nodes an ELF file defines (DT_VERDEF, its
	// own name left out), sorted. The absolute symbol the linker adds for
	// each (GLIBC_2.34@@GLIBC_2.34) is not listed in Symbols.
	Versions []string `json:"versions,omitempty"`
	// Roots are the type keys a header extraction asked for.
	Roots     []string   `json:"roots,omitempty"`
	Constants []Constant `json:"constants,omitempty"`
	// Notes say what could not be read (a dwz alternate file not found).
	// They are not part of the fingerprint.
	Notes []string `json:"notes,omitempty"`
}

// plainABI is ABI without its MarshalJSON.
type plainABI ABI

// MarshalJSON writes a as dumps have it: the fields, then "fingerprint",
// which is a.Fingerprint(). Canonical leaves the fingerprint out.
func (a *ABI) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		*plainABI
		Fingerprint string `json:"fingerprint"`
	}{(*plainABI)(a), a.Fingerprint()})
}

// UnmarshalJSON reads what MarshalJSON wrote; the fingerprint is not kept,
// since Fingerprint() computes it from the content.
func (a *ABI) UnmarshalJSON(b []byte) error {
	return json.Unmarshal(b, (*plainABI)(a))
}

// Symbol is one exported dynamic symbol.
type Symbol struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	// Demangled is the C++ name of a mangled symbol (_ZN3foo3barEv:
	// foo::bar()); empty for C symbols.
	Demangled string `json:"demangled,omitempty"`
	// Default is true for name@@VERSION, the version a new link binds to.
	Default bool       `json:"default,omitempty"`
	Kind    SymbolKind `json:"kind"`
	Binding Binding    `json:"binding"`
	Size    uint64     `json:"size,omitempty"`
	// Type is a function's signature (kind func) or a variable's type,
	// when debug info describes the symbol.
	Type *Type `json:"type,omitempty"`

	// Place is where the symbol was defined when it was read from ELF:
	// its st_value, for a symbol of .symtab with its section index above
	// bit 48; 0 when it came from JSON. Two symbols of one kind at one
	// nonzero place are aliases. It is not part of the JSON form.
	Place uint64 `json:"-"`
}

// PlaceSection is the shift of the section index in Symbol.Place.
const PlaceSection = 48

// SymbolKind is what a symbol names (its ELF symbol type).
type SymbolKind string

// The kinds of Symbol.
const (
	SymFunc   SymbolKind = "func"   // STT_FUNC
	SymIFunc  SymbolKind = "ifunc"  // STT_GNU_IFUNC: a function chosen at load time
	SymObject SymbolKind = "object" // STT_OBJECT: a variable
	SymTLS    SymbolKind = "tls"    // STT_TLS: a thread-local variable
	SymCommon SymbolKind = "common" // STT_COMMON
	SymNoType SymbolKind = "notype" // STT_NOTYPE
)

// IsFunc reports whether k is a function (func or ifunc, which callers
// cannot tell apart).
func (k SymbolKind) IsFunc() bool { return k == SymFunc || k == SymIFunc }

// Binding is a symbol's ELF binding.
type Binding string

// The bindings of an exported Symbol.
const (
	BindGlobal Binding = "global" // STB_GLOBAL
	BindWeak   Binding = "weak"   // STB_WEAK
	BindUnique Binding = "unique" // STB_GNU_UNIQUE: one definition per process
)

// String writes the symbol as name@@VERSION, name@VERSION or name.
func (s Symbol) String() string {
	switch {
	case s.Version == "":
		return s.Name
	case s.Default:
		return s.Name + "@@" + s.Version
	}
	return s.Name + "@" + s.Version
}

// ID is the symbol's identity for comparison: name@VERSION whether or not
// the version is the default, so a default that moves is not a removal.
func (s Symbol) ID() string {
	if s.Version == "" {
		return s.Name
	}
	return s.Name + "@" + s.Version
}

// Kind is what a Type is.
type Kind string

// The kinds of Type.
const (
	Base     Kind = "base"
	Struct   Kind = "struct"
	Union    Kind = "union"
	Enum     Kind = "enum"
	Typedef  Kind = "typedef"
	Pointer  Kind = "pointer"
	Array    Kind = "array"
	Func     Kind = "func"
	Const    Kind = "const"
	Volatile Kind = "volatile"
	Restrict Kind = "restrict"
	Void     Kind = "void"
	Unknown  Kind = "unknown"
	// Reference and RvalueReference are C++'s T& and T&&: pointers in
	// the ABI, spelled apart.
	Reference       Kind = "reference"
	RvalueReference Kind = "rvalue_reference"
)

// Type is a node of the type graph. A reference node has only Ref set: the
// key of a named type in ABI.Types. Every other node is written in full.
type Type struct {
	Ref  string `json:"ref,omitempty"`
	Kind Kind   `json:"kind,omitempty"`
	Name string `json:"name,omitempty"`
	// Size in bytes; 0 for void, functions and incomplete types.
	Size int64 `json:"size,omitempty"`
	// Encoding of a base type: signed, unsigned, signed_char,
	// unsigned_char, bool, float, complex, address.
	Encoding string `json:"encoding,omitempty"`
	// Incomplete marks a declaration without a definition (struct foo;).
	Incomplete bool `json:"incomplete,omitempty"`
	// Elem is the target of a pointer, typedef or qualifier, the element
	// of an array and the return type of a function.
	Elem *Type `json:"elem,omitempty"`
	// Count is an array's length; -1 for a flexible array (x[]).
	Count       int64        `json:"count,omitempty"`
	Members     []Member     `json:"members,omitempty"`
	Enumerators []Enumerator `json:"enumerators,omitempty"`
	Params      []*Type      `json:"params,omitempty"`
	Variadic    bool         `json:"variadic,omitempty"`
	// Class marks a C++ struct declared with the class key
	// (DW_TAG_class_type): the same kind of type as a struct, which a
	// suppression's type_kind = class or struct tells apart.
	Class bool `json:"class,omitempty"`
	// EnumClass marks a C++ scoped enum (enum class).
	EnumClass bool `json:"enum_class,omitempty"`
	// Bases are a C++ class's base classes, in declaration order.
	Bases []BaseClass `json:"bases,omitempty"`
	// Virtuals are a C++ class's virtual member functions with their
	// vtable slots, in slot order.
	Virtuals []Virtual `json:"virtuals,omitempty"`
	// Statics are a C++ class's static data members: no storage in the
	// object (each is a symbol of its own), listed for their types.
	Statics []Member `json:"statics,omitempty"`
	// Methods are the member functions a C++ class's declaration (an
	// Incomplete type: its vtable and definition live in another
	// file) lists as not virtual, by linkage name: one of them that the
	// other side's definition makes virtual is a vtable change. Set on
	// incomplete types only.
	Methods []string `json:"methods,omitempty"`
}

// BaseClass is one base of a C++ class.
type BaseClass struct {
	Type    *Type `json:"type"`
	Offset  int64 `json:"offset"`
	Virtual bool  `json:"virtual,omitempty"`
}

// Virtual is a virtual member function and its slot in the vtable.
type Virtual struct {
	// Name is the function's linkage (mangled) name when DWARF gives
	// one, else its name; Slot its index in the vtable.
	Name string `json:"name"`
	Slot int64  `json:"slot"`
}

// Member is a data member of a struct or union.
type Member struct {
	Name   string `json:"name"` // empty for an anonymous struct or union member
	Offset int64  `json:"offset"`
	// BitOffset (from the start of the aggregate) and BitSize are set for
	// bit-fields only.
	BitOffset int64 `json:"bit_offset,omitempty"`
	BitSize   int64 `json:"bit_size,omitempty"`
	Type      *Type `json:"type"`
}

// Enumerator is one constant of an enum.
type Enumerator struct {
	Name  string `json:"name"`
	Value int64  `json:"value"`
}

// Constant is a named integer constant, such as an ioctl number.
type Constant struct {
	Name  string `json:"name"`
	Value uint64 `json:"value"`
}

// Key is the key a named type has in ABI.Types: "struct foo", "union u",
// "enum e" or the bare name of a typedef or base type.
func Key(k Kind, name string) string {
	switch k {
	case Struct, Union, Enum:
		return string(k) + " " + name
	}
	return name
}

// Canonical returns the canonical JSON of a: symbols and constants sorted,
// no indentation, no HTML escaping, no fingerprint or DebugFile. Equal
// ABIs give equal bytes. It sorts copies: a is not changed, so one ABI may
// be encoded from several goroutines at once.
func (a *ABI) Canonical() []byte {
	var b bytes.Buffer
	a.encodeCanonical(&b)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// encodeCanonical writes the canonical JSON, and a newline, to w.
func (a *ABI) encodeCanonical(w io.Writer) {
	c := *a
	c.DebugFile = ""
	c.Notes = nil
	c.Schema = Schema
	c.Symbols = slices.Clone(a.Symbols)
	c.Constants = slices.Clone(a.Constants)
	c.Roots = slices.Clone(a.Roots)
	c.Versions = slices.Clone(a.Versions)
	c.Sort()
	if c.Types == nil {
		c.Types = map[string]*Type{}
	}
	if c.Symbols == nil {
		c.Symbols = []Symbol{}
	}
	encode(w, (*plainABI)(&c))
}

// Sort puts symbols, constants, roots and versions in their canonical
// order, in place: readers call it on an ABI they have just built.
func (a *ABI) Sort() {
	sort.Slice(a.Symbols, func(i, j int) bool {
		x, y := a.Symbols[i], a.Symbols[j]
		if x.Name != y.Name {
			return x.Name < y.Name
		}
		return x.Version < y.Version
	})
	sort.Slice(a.Constants, func(i, j int) bool { return a.Constants[i].Name < a.Constants[j].Name })
	sort.Strings(a.Roots)
	sort.Strings(a.Versions)
}

func marshal(v any) []byte {
	var b bytes.Buffer
	encode(&b, v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// encode writes v as JSON, and a newline, to w.
func encode(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only plain data is encoded here, to a buffer or a hash; an
		// error is a bug.
		panic(err)
	}
}

// Fingerprint is "sha256:" and the hex sha256 of the canonical JSON. The
// JSON goes to the hash as it is encoded, not to a copy of its own: an
// ABI's names can be most of its memory.
func (a *ABI) Fingerprint() string {
	h := &trimNewline{h: sha256.New()}
	a.encodeCanonical(h)
	return "sha256:" + hex.EncodeToString(h.h.Sum(nil))
}

// trimNewline hashes what is written to it but a last newline, held back
// until more follows: the canonical JSON is hashed without the one
// json.Encoder ends it with.
type trimNewline struct {
	h       hash.Hash
	pending bool
}

func (t *trimNewline) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if t.pending {
		t.h.Write([]byte{'\n'})
	}
	n := len(p)
	if t.pending = p[n-1] == '\n'; t.pending {
		n--
	}
	t.h.Write(p[:n])
	return len(p), nil
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(h[:])
}

// TypeFingerprints returns a fingerprint for each named type that covers
// the type and everything it reaches: a change to a nested struct changes
// the fingerprint of every type that contains it. A reference back to a type
// that is still being hashed (a recursive type) is hashed as its name and
// its depth on the stack, so cycles are finite and the result depends only
// on the types, not on the order they are visited in.
func (a *ABI) TypeFingerprints() map[string]string {
	h := &hasher{types: a.Types, done: map[string]string{}, onStack: map[string]int{}}
	out := make(map[string]string, len(a.Types))
	keys := make([]string, 0, len(a.Types))
	for k := range a.Types {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out[k], _ = h.hash(k)
	}
	return out
}

type hasher struct {
	types   map[string]*Type
	done    map[string]string
	onStack map[string]int
	stack   []string
}

// hash returns the deep fingerprint of key and the lowest stack depth its
// subtree referred back to (len(stack) when it did not).
func (h *hasher) hash(key string) (string, int) {
	if d, ok := h.onStack[key]; ok {
		return fmt.Sprintf("^%d", len(h.stack)-d), d
	}
	if s, ok := h.done[key]; ok {
		return s, len(h.stack)
	}
	t := h.types[key]
	depth := len(h.stack)
	h.onStack[key] = depth
	h.stack = append(h.stack, key)
	var b strings.Builder
	b.WriteString(key)
	b.WriteByte(0)
	b.Write(marshal(t))
	low := depth + 1
	for _, r := range refs(t, nil) {
		s, l := h.hash(r)
		low = min(low, l)
		b.WriteByte(0)
		b.WriteString(r)
		b.WriteByte('=')
		b.WriteString(s)
	}
	h.stack = h.stack[:depth]
	delete(h.onStack, key)
	s := sum([]byte(b.String()))
	if low > depth {
		// Only a subtree that did not refer above itself has a value
		// independent of the path that reached it.
		h.done[key] = s
	}
	return s, low
}

// Refs returns the distinct keys of the named types t refers to directly,
// in order of first use; nil for a nil type.
func (t *Type) Refs() []string { return refs(t, nil) }

// refs appends the distinct keys t refers to, in order of first use. It
// visits each node once, however often the graph shares it.
func refs(t *Type, out []string) []string {
	seen := map[string]bool{}
	visited := map[*Type]bool{}
	var walk func(t *Type)
	walk = func(t *Type) {
		if t == nil || visited[t] {
			return
		}
		visited[t] = true
		if t.Ref != "" {
			if !seen[t.Ref] {
				seen[t.Ref] = true
				out = append(out, t.Ref)
			}
			return
		}
		walk(t.Elem)
		for _, b := range t.Bases {
			walk(b.Type)
		}
		for _, m := range t.Members {
			walk(m.Type)
		}
		for _, m := range t.Statics {
			walk(m.Type)
		}
		for _, p := range t.Params {
			walk(p)
		}
	}
	walk(t)
	return out
}

// Resolve follows a reference to the named type it names; other nodes are
// returned as they are. A dangling reference yields nil.
func (a *ABI) Resolve(t *Type) *Type {
	if t != nil && t.Ref != "" {
		return a.Types[t.Ref]
	}
	return t
}
