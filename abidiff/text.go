package abidiff

import (
	"fmt"
	"io"
	"strings"

	"github.com/abifloor/abifloor/report"
)

// WriteText writes r for people: removed, added and changed symbols, the
// changed types with each change, private nodes apart, and a verdict.
func (r *Report) WriteText(w io.Writer, p report.Painter) error {
	var b strings.Builder
	list := func(title string, items []string, mark string, paint func(string) string) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s (%d):\n", title, len(items))
		for _, s := range items {
			fmt.Fprintf(&b, "  %s %s\n", paint(mark), report.Clean(s))
		}
	}
	if len(r.File) > 0 {
		fmt.Fprintf(&b, "changed file (%d):\n", len(r.File))
		for _, c := range r.File {
			fmt.Fprintf(&b, "  %s %s\n", p.Yellow("~"), report.Clean(c.String()))
		}
	}
	list("removed symbols", r.Symbols.lines(SymbolRemoved), "-", p.Red)
	list("added symbols", r.Symbols.lines(SymbolAdded), "+", p.Green)
	list("changed symbols", r.Symbols.lines(""), "~", p.Yellow)
	types := func(title string, list []TypeChange) {
		if len(list) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s (%d):\n", title, len(list))
		for _, t := range list {
			name := report.Clean(t.Name)
			if t.Incompatible() {
				name += " " + p.Red("(incompatible)")
			}
			fmt.Fprintf(&b, "  %s\n", p.Bold(name))
			for _, c := range t.Changes {
				fmt.Fprintf(&b, "    %s\n", report.Clean(c.String()))
			}
			if im := t.Impact; im != nil {
				fmt.Fprintf(&b, "    reached from %d %s:\n", im.Symbols, plural(im.Symbols, "symbol", "symbols"))
				for _, p := range im.Paths {
					line := report.Clean(pathString(p))
					if name, _, _ := strings.Cut(p[0], "@"); r.demangled[name] != "" {
						line += " [" + r.demangled[name] + "]"
					}
					fmt.Fprintf(&b, "      %s\n", line)
				}
				if more := im.Symbols - len(im.Paths); more > 0 {
					fmt.Fprintf(&b, "      and %d more\n", more)
				}
			}
		}
	}
	types("changed types", r.Types)
	if len(r.Constants) > 0 {
		fmt.Fprintf(&b, "changed constants (%d):\n", len(r.Constants))
		for _, c := range r.Constants {
			fmt.Fprintf(&b, "  %s\n", report.Clean(c.String()))
		}
	}
	if r.Private.any() {
		removed, added, changed := r.Private.Removed(), r.Private.Added(), r.Private.Changed()
		fmt.Fprintf(&b, "private version nodes (not part of the public ABI): %d removed, %d added, %d changed\n",
			len(removed), len(added), len(changed))
		list("  removed private symbols", removed, "-", p.Red)
		list("  added private symbols", added, "+", p.Green)
		list("  changed private symbols", changed, "~", p.Yellow)
	}
	types("changed types no public symbol reaches (private or unused: not part of the public ABI)", r.PrivateTypes)
	if f := r.Filtered; f.Total() > 0 {
		fmt.Fprintf(&b, "suppressed: %d %s, %d %s (%d filtered out)\n", f.Symbols, plural(f.Symbols, "symbol", "symbols"),
			f.Types, plural(f.Types, "type", "types"), f.Total())
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", report.Clean(n))
	}
	switch {
	case !r.Changed() && r.differs:
		b.WriteString("no reported ABI change, but the ABIs differ (see the note)\n")
	case !r.Changed():
		b.WriteString("no ABI change\n")
	case r.Compatible && r.onlyAdditions():
		b.WriteString(p.Green("compatible") + ": only additions\n")
	case r.Compatible:
		b.WriteString(p.Green("compatible") + ": no change breaks binaries built against the old ABI\n")
	default:
		b.WriteString(p.Red("incompatible") + ": binaries built against the old ABI may break\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// lines writes the changes of kind k (removed or added; "" for the others)
// as text, a mangled symbol followed by its C++ name.
func (s *SymbolChanges) lines(k Kind) []string {
	var out []string
	for _, c := range s.Changes {
		switch {
		case k == "" && (c.Kind == SymbolRemoved || c.Kind == SymbolAdded), k != "" && c.Kind != k:
			continue
		}
		line := c.String()
		if c.Demangled != "" {
			line += " [" + c.Demangled + "]"
		}
		out = append(out, line)
	}
	return out
}

// onlyAdditions reports whether every public change adds something.
func (r *Report) onlyAdditions() bool {
	add := func(k Kind) bool {
		switch k {
		case SymbolAdded, VersionAdded, TypeAdded, ConstantAdded, MemberAdded, EnumeratorAdded, StaticAdded, VirtualAdded, BaseAdded:
			return true
		}
		return false
	}
	if len(r.File) > 0 {
		return false
	}
	for _, c := range r.Symbols.Changes {
		if !add(c.Kind) {
			return false
		}
	}
	for _, t := range r.Types {
		for _, c := range t.Changes {
			if !add(c.Kind) {
				return false
			}
		}
	}
	for _, c := range r.Constants {
		if !add(c.Kind) {
			return false
		}
	}
	return true
}
