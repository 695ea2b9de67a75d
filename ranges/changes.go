package ranges

import (
	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/abidiff"
)

// changesBetween is the one place ranges turns an abidiff report into the
// changes a range records: each abidiff.Change as the type (or "symbol",
// "constant", "version"), a dotted path ending in the attribute that
// changed ("size", "hObjectNew.offset") and old → new.
func changesBetween(old, new *abi.ABI) []Change {
	r := abidiff.Compare(old, new, nil)
	out := []Change{}
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
	return out
}

// attribute names the property a change of kind k is about, appended to the
// member path; "" when the path itself (a member or enumerator added or
// removed) is what changed.
func attribute(k abidiff.Kind) string {
	switch k {
	case abidiff.Size:
		return "size"
	case abidiff.Encoding:
		return "encoding"
	case abidiff.Offset:
		return "offset"
	case abidiff.BitSize:
		return "bit_size"
	case abidiff.BitOffset:
		return "bit_offset"
	case abidiff.MemberType, abidiff.TypeKind:
		return "type"
	case abidiff.TypedefTarget:
		return "typedef"
	case abidiff.Declaration:
		return "declaration"
	case abidiff.EnumeratorValue, abidiff.ConstantValue:
		return "value"
	case abidiff.SymbolKind:
		return "kind"
	case abidiff.SymbolSize:
		return "size"
	case abidiff.SymbolType:
		return "type"
	case abidiff.SymbolVersion:
		return "default_version"
	}
	return ""
}

func fromDiff(c abidiff.Change) Change {
	out := Change{Kind: string(c.Kind), Type: c.Type, Path: c.Path, Old: c.Old, New: c.New, Note: c.Note, Compatible: c.Compatible, Text: c.String()}
	switch {
	case c.Symbol != "":
		out.Type, out.Path = "symbol", c.Symbol
	case c.Constant != "":
		out.Type, out.Path = "constant", c.Constant
	case c.Version != "" && c.Type == "":
		out.Type, out.Path = "version", c.Version
	}
	if a := attribute(c.Kind); a != "" {
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
