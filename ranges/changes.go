package ranges

import (
	"context"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/abi/abiread"
	"github.com/abifloor/abifloor/abidiff"
	"github.com/abifloor/abifloor/ranges/table"
)

// changesBetween is the one place ranges turns an abidiff report into the
// changes a range records: each abidiff.Change as the type (or "symbol",
// "constant", "version"), a dotted path ending in the attribute that
// changed ("size", "hObjectNew.offset") and old → new.
func changesBetween(old, new *abi.ABI) []table.Change {
	// A context that never ends: Compare's only error is its end.
	r, _ := abidiff.Compare(context.Background(), old, new, nil, abiread.Demangler{})
	out := []table.Change{}
	for _, tc := range r.Types {
		for _, c := range tc.Changes {
			out = append(out, fromDiff(c))
		}
	}
	for _, c := range r.Constants {
		out = append(out, fromDiff(c))
	}
	for _, c := range r.Symbols.Changes {
		out = append(out, fromDiff(c))
	}
	return append(out, rootChanges(old, new, out)...)
}

// rootChanges are the root types (what the surface asked for) that
// appeared or disappeared: a type absent at one version and present at the
// next is a change like any other (issue "trust", item 6), even when
// abidiff, comparing layouts, has nothing to say about it.
func rootChanges(old, new *abi.ABI, have []table.Change) []table.Change {
	removed := map[string]bool{}
	for _, c := range have {
		if c.Kind == string(abidiff.TypeRemoved) {
			removed[c.Type] = true
		}
	}
	in := func(roots []string) map[string]bool {
		m := map[string]bool{}
		for _, r := range roots {
			m[r] = true
		}
		return m
	}
	o, n := in(old.Roots), in(new.Roots)
	var out []table.Change
	for _, r := range old.Roots {
		if !n[r] && !removed[r] {
			out = append(out, table.Change{Kind: string(abidiff.TypeRemoved), Type: r, Compatible: false, Text: r + ": removed"})
		}
	}
	for _, r := range new.Roots {
		if !o[r] {
			out = append(out, table.Change{Kind: "type-added", Type: r, Compatible: true, Text: r + ": added"})
		}
	}
	return out
}

// attributes name the property a change of each kind is about, appended
// to the member path; kinds that are absent (a member or enumerator added
// or removed) change the path itself.
var attributes = map[abidiff.Kind]string{
	abidiff.Size:            "size",
	abidiff.Encoding:        "encoding",
	abidiff.Offset:          "offset",
	abidiff.BitSize:         "bit_size",
	abidiff.BitOffset:       "bit_offset",
	abidiff.MemberType:      "type",
	abidiff.TypeKind:        "type",
	abidiff.TypedefTarget:   "typedef",
	abidiff.Declaration:     "declaration",
	abidiff.EnumeratorValue: "value",
	abidiff.ConstantValue:   "value",
	abidiff.SymbolKind:      "kind",
	abidiff.SymbolSize:      "size",
	abidiff.SymbolType:      "type",
	abidiff.SymbolVersion:   "default_version",
}

func fromDiff(c abidiff.Change) table.Change {
	out := table.Change{Kind: string(c.Kind), Type: c.Type, Path: c.Path, Old: c.Old, New: c.New, Note: c.Note, Compatible: c.Compatible, Text: c.String()}
	switch {
	case c.Symbol != "":
		out.Type, out.Path = "symbol", c.Symbol
	case c.Constant != "":
		out.Type, out.Path = "constant", c.Constant
	case c.Version != "" && c.Type == "":
		out.Type, out.Path = "version", c.Version
	}
	if a := attributes[c.Kind]; a != "" {
		if out.Path == "" {
			out.Path = a
		} else {
			out.Path += "." + a
		}
	}
	if c.Kind == abidiff.MemberAdded && c.At != "" {
		out.New += " at offset " + c.At
	}
	return out
}
