package ranges

import (
	"strings"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/abidiff"
)

// changesBetween is the one place ranges turns an abidiff report into its
// own changes: abidiff's structured changes, with the attribute that
// changed appended to the member path ("a.b.offset"), so one path names
// one value.
func changesBetween(old, new *abi.ABI) []Change {
	r := abidiff.Compare(old, new, nil)
	out := []Change{}
	for _, tc := range r.Types {
		for _, c := range tc.Changes {
			out = append(out, fromDiff(tc.Name, c))
		}
	}
	for _, c := range r.Constants {
		out = append(out, fromDiff("constant", c))
	}
	for _, c := range r.Symbols.Changes {
		out = append(out, fromDiff("symbol", c))
	}
	return out
}

// attribute names the value a change of kind k is about, or "" when the
// path itself is what was added or removed.
func attribute(k abidiff.Kind) string {
	switch k {
	case abidiff.Size, abidiff.Encoding, abidiff.Offset, abidiff.TypedefTarget, abidiff.Declaration:
		return string(k)
	case abidiff.BitSize:
		return "bit_size"
	case abidiff.BitOffset:
		return "bit_offset"
	case abidiff.MemberType, abidiff.TypeKind, abidiff.SymbolType:
		return "type"
	case abidiff.SymbolKind:
		return "kind"
	case abidiff.SymbolSize:
		return "size"
	case abidiff.EnumeratorValue, abidiff.ConstantValue:
		return "value"
	}
	return ""
}

func fromDiff(typ string, c abidiff.Change) Change {
	path := c.Path
	switch {
	case c.Symbol != "":
		path = c.Symbol
	case c.Constant != "":
		path = c.Constant
	case c.Version != "":
		path = c.Version
	}
	if a := attribute(c.Kind); a != "" {
		path = strings.TrimPrefix(path+"."+a, ".")
	}
	old, new := c.Old, c.New
	switch c.Kind {
	case abidiff.SymbolRemoved:
		old = c.Symbol
	case abidiff.SymbolAdded:
		new = c.Symbol
	case abidiff.MemberAdded:
		new = "member at offset " + c.At + " (" + c.New + ")"
	case abidiff.MemberRemoved, abidiff.EnumeratorRemoved:
		if old == "" {
			old = strings.TrimSuffix(string(c.Kind), "-removed")
		}
	}
	return Change{Type: typ, Path: path, Old: old, New: new, Compatible: c.Compatible, Text: c.String()}
}
