package ranges

import (
	"strings"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/abidiff"
)

// changesBetween is the one place ranges turns an abidiff report into its
// own structured changes. abidiff writes changes as short paths
// ("member a: member b: offset 8 -> 16"); they are split here into the type,
// a dotted member path with the attribute ("a.b.offset") and old → new.
func changesBetween(old, new *abi.ABI) []Change {
	r := abidiff.Compare(old, new, nil)
	out := []Change{}
	for _, tc := range r.Types {
		for _, s := range tc.Changes {
			c := parseChange(s)
			c.Type = tc.Name
			// abidiff judges per type: a type whose changes are all
			// harmless (names only, same layout) makes each compatible.
			c.Compatible = c.Compatible || !tc.Incompatible
			out = append(out, c)
		}
	}
	for _, c := range r.Constants {
		pc := parseChange(c.What)
		pc.Type = "constant"
		pc.Compatible = !c.Incompatible
		out = append(out, pc)
	}
	for _, s := range r.Symbols.Removed {
		out = append(out, Change{Type: "symbol", Path: s, Old: s, Text: "removed " + s})
	}
	for _, s := range r.Symbols.Added {
		out = append(out, Change{Type: "symbol", Path: s, New: s, Compatible: true, Text: "added " + s})
	}
	inc := map[string]bool{}
	for _, s := range r.Symbols.Incompatible {
		inc[s] = true
	}
	for _, s := range r.Symbols.Changed {
		c := parseChange(s)
		c.Type = "symbol"
		c.Compatible = !inc[s]
		out = append(out, c)
	}
	return out
}

// attrs are the attributes abidiff names before "OLD -> NEW".
var attrs = []string{"bit offset", "bit size", "offset", "size", "typedef", "type", "value"}

// parseChange splits one abidiff change text.
func parseChange(s string) Change {
	c := Change{Text: s}
	segs := strings.Split(s, ": ")
	var path []string
	for _, seg := range segs[:len(segs)-1] {
		seg = strings.TrimPrefix(seg, "member ")
		seg = strings.TrimPrefix(seg, "enumerator ")
		path = append(path, seg)
	}
	last := segs[len(segs)-1]
	switch {
	case strings.Contains(last, " -> "):
		left, right, _ := strings.Cut(last, " -> ")
		attr := ""
		for _, a := range attrs {
			if strings.HasPrefix(left, a+" ") {
				attr = a
				break
			}
		}
		if attr == "" {
			attr, _, _ = strings.Cut(left, " ")
		}
		path = append(path, strings.ReplaceAll(attr, " ", "_"))
		c.Old, c.New = strings.TrimSpace(strings.TrimPrefix(left, attr)), right
	case strings.HasSuffix(last, " removed"):
		name := strings.TrimSuffix(last, " removed")
		kind, name, _ := strings.Cut(name, " ")
		path = append(path, name)
		c.Old = kind
	case strings.HasSuffix(last, " added") || strings.Contains(last, " added at "):
		// "member z added at offset 12 (int)", "enumerator E = 5 added"
		kind, rest, _ := strings.Cut(last, " ")
		name, detail, _ := strings.Cut(rest, " ")
		path = append(path, name)
		detail = strings.TrimSuffix(strings.TrimPrefix(detail, "= "), " added")
		detail = strings.TrimPrefix(detail, "added at ")
		c.New = strings.TrimSpace(kind + " " + detail)
		c.Compatible = true
	default:
		// "now declared only", "now defined": opaque to callers.
		path = append(path, last)
		c.Compatible = true
	}
	c.Path = strings.Join(path, ".")
	return c
}
