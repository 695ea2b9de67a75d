package abitext

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/report"
	"github.com/abifloor/abifloor/symver"
)

// maxSymbolColumn caps the width of the symbol column of WriteText.
const maxSymbolColumn = 48

// versionOrder sorts version node names as versions, within each
// namespace: ZLIB_1.2.2 before ZLIB_1.2.12. Names with no number
// (GLIBC_PRIVATE) come after their namespace's numbered ones, by name.
func versionOrder(vs []string) []string {
	out := slices.Clone(vs)
	key := func(v string) (string, string, bool) {
		if ns, ver, ok := symver.Split(v); ok {
			return ns, ver, true
		}
		ns, _, _ := strings.Cut(v, "_")
		return ns, v, false
	}
	slices.SortStableFunc(out, func(a, b string) int {
		an, av, aok := key(a)
		bn, bv, bok := key(b)
		if c := strings.Compare(an, bn); c != 0 {
			return c
		}
		if aok != bok {
			if aok {
				return -1
			}
			return 1
		}
		if aok {
			if c := symver.Compare(av, bv); c != 0 {
				return c
			}
		}
		return strings.Compare(a, b)
	})
	return out
}

// WriteText writes a for people: a header line, each symbol with its C
// declaration when known, then each named type with its layout.
func WriteText(w io.Writer, a *abi.ABI) error {
	bw := bufio.NewWriter(w)
	// Names come from the input: control characters in them are escaped
	// (report.Clean), so a name cannot drive the terminal or start a line.
	q := report.Clean
	fmt.Fprintf(bw, "arch %s", q(a.Arch))
	if a.SOName != "" {
		fmt.Fprintf(bw, ", soname %s", q(a.SOName))
	}
	fmt.Fprintf(bw, ", debug info %s", q(string(a.DebugInfo)))
	if a.DebugFile != "" {
		fmt.Fprintf(bw, " (%s)", q(a.DebugFile))
	}
	fmt.Fprintf(bw, "\nfingerprint %s\n", a.Fingerprint())
	if len(a.Versions) > 0 {
		fmt.Fprintf(bw, "versions %s\n", q(strings.Join(versionOrder(a.Versions), " ")))
	}
	// The declarations start in one column, as wide as the longest
	// symbol up to maxSymbolColumn; a longer one pushes its own line.
	width := 0
	for _, s := range a.Symbols {
		width = max(width, min(len(q(s.String())), maxSymbolColumn))
	}
	if len(a.Symbols) > 0 {
		fmt.Fprintf(bw, "\nsymbols (%d):\n", len(a.Symbols))
	}
	for _, s := range a.Symbols {
		var decl []string
		if s.Type != nil {
			decl = append(decl, abi.Declare(s.Type, s.Name))
		}
		if s.Demangled != "" {
			decl = append(decl, "["+s.Demangled+"]")
		}
		if len(decl) == 0 {
			fmt.Fprintf(bw, "  %-8s %-6s %s\n", s.Kind, s.Binding, q(s.String()))
			continue
		}
		fmt.Fprintf(bw, "  %-8s %-6s %-*s  %s\n", s.Kind, s.Binding, width, q(s.String()), q(strings.Join(decl, "  ")))
	}
	if len(a.Types) > 0 {
		fmt.Fprintf(bw, "\ntypes (%d):\n", len(a.Types))
	}
	for _, k := range slices.Sorted(maps.Keys(a.Types)) {
		writeType(bw, k, a.Types[k], "  ")
	}
	if len(a.Constants) > 0 {
		fmt.Fprintf(bw, "\nconstants (%d):\n", len(a.Constants))
	}
	for _, c := range a.Constants {
		fmt.Fprintf(bw, "  %s = %#x\n", q(c.Name), c.Value)
	}
	return bw.Flush()
}

func writeType(w io.Writer, key string, t *abi.Type, indent string) {
	q := report.Clean
	key = q(key)
	switch {
	case t == nil:
		fmt.Fprintf(w, "%s%s: ?\n", indent, key)
	case t.Kind == abi.Typedef:
		if t.Elem != nil && t.Elem.Ref == "" && (t.Elem.Kind == abi.Struct || t.Elem.Kind == abi.Union || t.Elem.Kind == abi.Enum) {
			writeType(w, "typedef "+key+" = "+string(t.Elem.Kind), t.Elem, indent)
			return
		}
		fmt.Fprintf(w, "%stypedef %s = %s\n", indent, key, q(abi.Spell(t.Elem)))
	case t.Kind == abi.Struct || t.Kind == abi.Union:
		if t.Incomplete {
			fmt.Fprintf(w, "%s%s (declared only)\n", indent, key)
			return
		}
		fmt.Fprintf(w, "%s%s (size %d)\n", indent, key, t.Size)
		for _, b := range t.Bases {
			virtual := ""
			if b.Virtual {
				virtual = "virtual "
			}
			fmt.Fprintf(w, "%s  %-8s base %s%s\n", indent, fmt.Sprintf("@%d", b.Offset), virtual, q(abi.Spell(b.Type)))
		}
		for _, m := range t.Members {
			at := fmt.Sprintf("@%d", m.Offset)
			if m.BitSize > 0 {
				at = fmt.Sprintf("@%d.%d:%d", m.BitOffset/8, m.BitOffset%8, m.BitSize)
			}
			if m.Type != nil && m.Type.Ref == "" && (m.Type.Kind == abi.Struct || m.Type.Kind == abi.Union) && m.Type.Name == "" {
				writeType(w, at+" "+m.Name+" "+string(m.Type.Kind), m.Type, indent+"  ") // cleaned there
				continue
			}
			fmt.Fprintf(w, "%s  %-8s %s\n", indent, at, q(abi.Declare(m.Type, m.Name)))
		}
		for _, m := range t.Statics {
			fmt.Fprintf(w, "%s  %-8s %s\n", indent, "static", q(abi.Declare(m.Type, m.Name)))
		}
		for _, v := range t.Virtuals {
			slot := "?"
			if v.Slot >= 0 {
				slot = fmt.Sprint(v.Slot)
			}
			fmt.Fprintf(w, "%s  %-8s virtual %s\n", indent, "slot "+slot, q(v.Name))
		}
	case t.Kind == abi.Enum:
		class := ""
		if t.EnumClass {
			class = ", enum class"
		}
		fmt.Fprintf(w, "%s%s (size %d%s)\n", indent, key, t.Size, class)
		for _, e := range t.Enumerators {
			fmt.Fprintf(w, "%s  %s = %d\n", indent, q(e.Name), e.Value)
		}
	case t.Kind == abi.Base:
		fmt.Fprintf(w, "%s%s (size %d, %s)\n", indent, key, t.Size, q(t.Encoding))
	default:
		fmt.Fprintf(w, "%s%s = %s\n", indent, key, q(abi.Spell(t)))
	}
}
