package abidiff

import (
	"encoding/json"
	"strings"
)

// Kind says what a Change is.
type Kind string

// The kinds of Change. Symbol kinds set Change.Symbol, type kinds set
// Change.Type (and Path when the change is below the type itself),
// constant kinds set Change.Constant.
const (
	SymbolRemoved Kind = "symbol-removed"
	SymbolAdded   Kind = "symbol-added"
	// SymbolVersion: the default version moved (Old "foo@@V_1", New
	// "foo@@V_2"); compatible, news for new links only.
	SymbolVersion Kind = "symbol-version"
	SymbolKind    Kind = "symbol-kind" // func, object, ... (func <-> ifunc is compatible)
	SymbolSize    Kind = "symbol-size" // a variable's st_size
	SymbolType    Kind = "symbol-type" // signature or variable type, spelled in C
	// VersionAdded and VersionRemoved: a version node the file defines
	// (abi.ABI.Versions). Programs that need a removed one no longer load.
	VersionAdded   Kind = "version-added"
	VersionRemoved Kind = "version-removed"

	TypeRemoved Kind = "type-removed" // a root type of a header ABI is gone
	TypeAdded   Kind = "type-added"   // a root type of a header ABI is new; compatible

	// The file itself: Old and New are the values.
	SONameChange Kind = "soname" // DT_SONAME; programs linked against the old name no longer find the file
	ArchChange   Kind = "arch"   // the architecture
	// Declaration: a struct or union became declared only (New
	// "declared") or defined (New "defined"); compatible.
	Declaration   Kind = "declaration"
	Size          Kind = "size"       // bytes
	Encoding      Kind = "encoding"   // of a base type: signed, unsigned, float, ...
	Offset        Kind = "offset"     // of the member at Path, bytes
	BitSize       Kind = "bit-size"   // of the bit-field at Path
	BitOffset     Kind = "bit-offset" // of the bit-field at Path, bits from the aggregate's start
	MemberAdded   Kind = "member-added"
	MemberRemoved Kind = "member-removed"
	MemberType    Kind = "member-type" // the type of the member at Path
	TypedefTarget Kind = "typedef"     // what a typedef names
	TypeKind      Kind = "type"        // a node of another kind or name at Path

	// C++ classes. Path is the class (below the named type) and the base
	// or function is in Old/New.
	BaseAdded      Kind = "base-added"    // New: the base class; incompatible (everything moves)
	BaseRemoved    Kind = "base-removed"  // Old: the base class
	BaseOffset     Kind = "base-offset"   // Member: the base; Old/New: byte offsets
	VirtualAdded   Kind = "virtual-added" // Member: the function; New: its slot
	VirtualRemoved Kind = "virtual-removed"
	VirtualSlot    Kind = "virtual-slot" // Member: the function; Old/New: vtable slots
	StaticAdded    Kind = "static-added" // Member: the static data member; compatible
	StaticRemoved  Kind = "static-removed"

	EnumeratorAdded   Kind = "enumerator-added"
	EnumeratorRemoved Kind = "enumerator-removed"
	EnumeratorValue   Kind = "enumerator-value"

	ConstantAdded   Kind = "constant-added"
	ConstantRemoved Kind = "constant-removed"
	ConstantValue   Kind = "constant-value"
)

// Change is one difference between two ABIs, as data. Its text (String) is
// rendered from these fields.
type Change struct {
	Kind Kind `json:"kind"`
	// Symbol is the symbol as the old ABI exports it (name@@VER, name@VER
	// or name); for SymbolAdded, as the new one does.
	Symbol string `json:"symbol,omitempty"`
	// Type is the key of the changed named type ("struct foo").
	Type string `json:"type,omitempty"`
	// Path is where in Type the change is: member names from the type
	// down, joined with "." ("b", "pair.s3"). An anonymous member is
	// "(anonymous N)", N counting anonymous members from 1. For the
	// enumerator kinds the last element is the enumerator's name. Empty
	// for the type itself.
	Path     string `json:"path,omitempty"`
	Constant string `json:"constant,omitempty"`
	// Version is the version node of the version kinds.
	Version string `json:"version,omitempty"`
	// Old and New are the values before and after: numbers in decimal
	// (constants in hex, 0x...), types spelled in C, encodings and kinds
	// by name. One is empty for an addition or a removal.
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
	// At is the byte offset of an added member.
	At string `json:"offset,omitempty"`
	// Member is the base class, virtual function or static member of the
	// C++ kinds.
	Member string `json:"member,omitempty"`
	// Demangled is the C++ name of Symbol when it is mangled.
	Demangled string `json:"demangled,omitempty"`
	// Note qualifies a compatible change of type: "typedef names only"
	// or "names only, same layout".
	Note       string `json:"note,omitempty"`
	Compatible bool   `json:"compatible"`
}

// String renders c as the text output writes it. Changes to a type are
// written relative to the type ("member b: offset 4 -> 8"); the others
// name their symbol or constant.
func (c Change) String() string {
	arrow := c.Old + " -> " + c.New
	if c.Note != "" {
		arrow += " (" + c.Note + ")"
	}
	switch c.Kind {
	case SymbolRemoved, SymbolAdded:
		return c.Symbol
	case SymbolVersion:
		return c.Old + " -> " + c.New
	case SymbolKind:
		return c.Symbol + ": kind " + arrow
	case SymbolSize:
		return c.Symbol + ": size " + arrow
	case SymbolType:
		return c.Symbol + ": type " + arrow
	case VersionAdded:
		if c.Note != "" {
			return "version " + c.Version + " added (" + c.Note + ")"
		}
		return "version " + c.Version + " added"
	case VersionRemoved:
		return "version " + c.Version + " removed"
	case ConstantAdded:
		return c.Constant + ": added"
	case ConstantRemoved:
		return c.Constant + ": removed"
	case ConstantValue:
		return c.Constant + ": value " + arrow
	case TypeRemoved:
		return "removed"
	case TypeAdded:
		return "added"
	case SONameChange:
		return "SONAME " + quoted(c.Old) + " -> " + quoted(c.New)
	case ArchChange:
		return "architecture " + arrow
	case MemberAdded:
		return "member " + c.Path + " added at offset " + c.At + " (" + c.New + ")" + c.note()
	case MemberRemoved:
		return "member " + c.Path + " removed" + c.note()
	case Offset, BitSize, BitOffset, MemberType:
		word := map[Kind]string{Offset: "offset", BitSize: "bit size", BitOffset: "bit offset", MemberType: "type"}[c.Kind]
		return "member " + c.Path + ": " + word + " " + arrow
	case BaseAdded, BaseRemoved, BaseOffset, VirtualAdded, VirtualRemoved, VirtualSlot, StaticAdded, StaticRemoved:
		prefix := ""
		if c.Path != "" {
			prefix = "member " + c.Path + ": "
		}
		switch c.Kind {
		case BaseAdded:
			return prefix + "base " + c.Member + " added at offset " + c.New + c.note()
		case BaseRemoved:
			return prefix + "base " + c.Member + " removed" + c.note()
		case BaseOffset:
			return prefix + "base " + c.Member + ": offset " + arrow
		case VirtualAdded:
			return prefix + "virtual " + c.Member + " added at vtable slot " + c.New
		case VirtualRemoved:
			return prefix + "virtual " + c.Member + " removed from vtable slot " + c.Old
		case VirtualSlot:
			return prefix + "virtual " + c.Member + ": vtable slot " + arrow
		case StaticAdded:
			return prefix + "static member " + c.Member + " added"
		}
		return prefix + "static member " + c.Member + " removed"
	case EnumeratorAdded, EnumeratorRemoved, EnumeratorValue:
		parent, name := "", c.Path
		if i := strings.LastIndexByte(c.Path, '.'); i >= 0 {
			parent, name = "member "+c.Path[:i]+": ", c.Path[i+1:]
		}
		switch c.Kind {
		case EnumeratorAdded:
			return parent + "enumerator " + name + " = " + c.New + " added"
		case EnumeratorRemoved:
			return parent + "enumerator " + name + " removed"
		}
		return parent + "enumerator " + name + ": value " + arrow
	}
	prefix := ""
	if c.Path != "" {
		prefix = "member " + c.Path + ": "
	}
	switch c.Kind {
	case Declaration:
		if c.New == "declared" {
			return prefix + "now declared only"
		}
		return prefix + "now defined"
	case Size:
		return prefix + "size " + arrow
	case Encoding:
		return prefix + "encoding " + arrow
	case TypedefTarget:
		return prefix + "typedef " + arrow
	}
	return prefix + string(c.Kind) + " " + arrow
}

// quoted writes a SONAME, "(none)" when there is none.
func quoted(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func (c Change) note() string {
	if c.Note == "" {
		return ""
	}
	return " (" + c.Note + ")"
}

// SymbolChanges are the changes to symbols: removed, added, then changed
// (each group sorted by its text).
type SymbolChanges struct {
	Changes []Change
}

func (s *SymbolChanges) texts(keep func(Kind) bool) []string {
	out := []string{}
	for _, c := range s.Changes {
		if keep(c.Kind) {
			out = append(out, c.String())
		}
	}
	return out
}

// Removed lists the removed symbols, written name@@VER, name@VER or name.
func (s *SymbolChanges) Removed() []string {
	return s.texts(func(k Kind) bool { return k == SymbolRemoved })
}

// Added lists the added symbols.
func (s *SymbolChanges) Added() []string {
	return s.texts(func(k Kind) bool { return k == SymbolAdded })
}

// Changed lists the other changes as text: "foo@@V_1 -> foo@@V_2" (the
// default version moved), "foo@@V: size 8 -> 16" or "version V_2 added".
func (s *SymbolChanges) Changed() []string {
	return s.texts(func(k Kind) bool { return k != SymbolRemoved && k != SymbolAdded })
}

// Incompatible returns the indexes in Changes of the changes that break
// old binaries.
func (s *SymbolChanges) Incompatible() []int {
	var out []int
	for i, c := range s.Changes {
		if !c.Compatible {
			out = append(out, i)
		}
	}
	return out
}

func (s *SymbolChanges) any() bool { return len(s.Changes) > 0 }

// symbolChangesJSON is the JSON form: the text lists readers of earlier
// versions rely on, and the structured changes in details.
type symbolChangesJSON struct {
	Removed []string `json:"removed"`
	Added   []string `json:"added"`
	Changed []string `json:"changed"`
	// IncompatibleChanges repeats the Changed texts (not removals) that
	// break old binaries.
	IncompatibleChanges []string `json:"incompatible_changes,omitempty"`
	Details             []Change `json:"details"`
}

// MarshalJSON writes the text lists and the structured details.
func (s SymbolChanges) MarshalJSON() ([]byte, error) {
	j := symbolChangesJSON{Removed: s.Removed(), Added: s.Added(), Changed: s.Changed(), Details: s.Changes}
	if j.Details == nil {
		j.Details = []Change{}
	}
	for _, c := range s.Changes {
		if !c.Compatible && c.Kind != SymbolRemoved && c.Kind != SymbolAdded {
			j.IncompatibleChanges = append(j.IncompatibleChanges, c.String())
		}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads the structured details back.
func (s *SymbolChanges) UnmarshalJSON(b []byte) error {
	var j symbolChangesJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	s.Changes = j.Details
	return nil
}

// TypeChange is the set of changes to one named type.
type TypeChange struct {
	Name    string
	Changes []Change
	// Impact names the public symbols that reach the type; nil when none
	// does or the ABI has no symbol types (headers).
	Impact *Impact
}

// Incompatible reports whether any change to the type breaks old binaries.
func (t *TypeChange) Incompatible() bool {
	for _, c := range t.Changes {
		if !c.Compatible {
			return true
		}
	}
	return false
}

type typeChangeJSON struct {
	Name         string   `json:"name"`
	Changes      []string `json:"changes"`
	Details      []Change `json:"details"`
	Incompatible bool     `json:"incompatible"`
	Impact       *Impact  `json:"impact,omitempty"`
}

// MarshalJSON writes the changes as text ("changes", the form the diff
// contract in docs/abi-json.md has always had) and as data ("details").
func (t TypeChange) MarshalJSON() ([]byte, error) {
	j := typeChangeJSON{Name: t.Name, Changes: make([]string, len(t.Changes)), Details: t.Changes, Incompatible: t.Incompatible(), Impact: t.Impact}
	for i, c := range t.Changes {
		j.Changes[i] = c.String()
	}
	if j.Details == nil {
		j.Details = []Change{}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads the structured details back.
func (t *TypeChange) UnmarshalJSON(b []byte) error {
	var j typeChangeJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	t.Name, t.Changes, t.Impact = j.Name, j.Details, j.Impact
	return nil
}
