// Package cli is what abifloor's command line is made of besides its
// commands: the spelling of flags in usages and errors, the nearest
// names to a typo, byte sizes as flags, and the shell completion scripts
// and manual page written from the flag sets the commands parse with.
// It knows nothing of ELF, ABIs or abifloor's results.
package cli

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// FlagName is a flag's name as the usages spell it: -x for one letter,
// --name for the rest.
func FlagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// PrintFlags lists fs's flags as the usage lines spell them: --name for
// long flags, -x for one letter, with a placeholder for the value (read
// from synopsis, the command's usage line, when it names one) and the
// default (quoted only for a string).
func PrintFlags(w io.Writer, fs *flag.FlagSet, synopsis string) {
	fs.VisitAll(func(f *flag.Flag) {
		_, usage := flag.UnquoteUsage(f)
		line := "  " + FlagName(f.Name)
		if p := Placeholder(f, synopsis); p != "" {
			line += " " + p
		}
		line += "\n    \t" + strings.ReplaceAll(usage, "\n", "\n    \t")
		if d := defaultText(f); d != "" {
			line += " (default " + d + ")"
		}
		fmt.Fprintln(w, line)
	})
}

// Placeholder is the word that stands for f's value in the usage: the
// word after the flag in synopsis ("[--max NS=VER]..."), else the
// usage's back-quoted word when it is one word (`DIR`, `N`), N for a
// number, else the flag's name in capitals (--image IMAGE). A boolean
// flag has none.
func Placeholder(f *flag.Flag, synopsis string) string {
	kind, _ := flag.UnquoteUsage(f)
	if kind == "" {
		return ""
	}
	if w := synopsisWord(f, synopsis); w != "" {
		return w
	}
	if i := strings.IndexByte(f.Usage, '`'); i >= 0 {
		if j := strings.IndexByte(f.Usage[i+1:], '`'); j > 0 {
			if w := f.Usage[i+1 : i+1+j]; isPlaceholder(w) {
				return strings.ToUpper(w)
			}
		}
	}
	switch kind {
	case "int", "uint", "int64", "uint64", "float":
		return "N"
	}
	return strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
}

// synopsisWord is the word after --NAME in syn, if it reads as a
// placeholder.
func synopsisWord(f *flag.Flag, syn string) string {
	words := strings.FieldsFunc(syn, func(r rune) bool { return r == ' ' || r == '[' || r == ']' || r == '|' })
	for i, w := range words[:max(0, len(words)-1)] {
		if w == FlagName(f.Name) {
			next := strings.TrimSuffix(words[i+1], "...")
			if isPlaceholder(next) && strings.ToUpper(next) == next {
				return next
			}
		}
	}
	return ""
}

func isPlaceholder(w string) bool {
	if w == "" || len(w) > 20 {
		return false
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '=' || r == '.') {
			return false
		}
	}
	return true
}

// defaultText is f's default as the usage shows it: nothing for a zero
// value, a string quoted, anything else (1024, 30s) as it is.
func defaultText(f *flag.Flag) string {
	switch f.DefValue {
	case "", "false", "0", "[]", "0s":
		return ""
	}
	if g, ok := f.Value.(flag.Getter); ok {
		if _, isString := g.Get().(string); isString {
			return strconv.Quote(f.DefValue)
		}
	}
	return f.DefValue
}

// FormatValues reads the formats a --format flag takes from its usage,
// which lists them after a colon: "output format: text|json|sarif",
// "output `format`: text, json, github or sarif".
func FormatValues(usage string) []string {
	_, list, ok := strings.Cut(usage, ":")
	if !ok {
		return nil
	}
	list, _, _ = strings.Cut(list, "(")
	var out []string
	for _, w := range strings.FieldsFunc(list, func(r rune) bool { return r == '|' || r == ',' || r == ' ' || r == ';' }) {
		if w != "or" && w != "and" && isPlaceholder(w) && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// DidYouMean returns "; did you mean X?" naming the names nearest to s,
// each as spell writes it, or "" when none is near.
func DidYouMean(s string, names []string, spell func(string) string) string {
	near := Nearest(s, names)
	if len(near) == 0 {
		return ""
	}
	for i, n := range near {
		near[i] = spell(n)
	}
	return "; did you mean " + strings.Join(near, " or ") + "?"
}

// Nearest returns at most three of names within a small edit distance
// of s (a third of its length, at least 1, or a prefix of it), nearest
// first.
func Nearest(s string, names []string) []string {
	if len(s) > 64 {
		return nil // nobody types a name that long by mistake
	}
	limit := max(1, len(s)/3)
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	for _, n := range names {
		d := editDistance(s, n)
		if len(s) >= 2 && strings.HasPrefix(n, s) {
			d = min(d, 1)
		}
		if d <= limit {
			cs = append(cs, cand{n, d})
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return a.d - b.d })
	var out []string
	for _, c := range cs[:min(3, len(cs))] {
		out = append(out, c.name)
	}
	return out
}

// editDistance is the Levenshtein distance of a and b, a transposition
// of two neighbours counting as one edit (scna -> scan).
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// Size is a byte count written as a number with an optional unit:
// 512M, 2G, 300MB, 1GiB (units are powers of 1024, as ulimit counts).
type Size int64

func (s *Size) String() string { return strconv.FormatInt(int64(*s), 10) }

// Set parses v.
func (s *Size) Set(v string) error {
	num := strings.TrimRight(v, "KMGTiBkmgtb")
	unit := strings.TrimSuffix(strings.ToUpper(v[len(num):]), "B") // MiB, MB, M
	unit = strings.TrimSuffix(unit, "I")
	shift := map[string]uint{"": 0, "K": 10, "M": 20, "G": 30, "T": 40}
	sh, ok := shift[unit]
	n, err := strconv.ParseInt(num, 10, 64)
	if !ok || err != nil || n <= 0 || n > (1<<62)>>sh {
		return fmt.Errorf("%q is not a size (a positive number with an optional K, M, G or T)", v)
	}
	*s = Size(n << sh)
	return nil
}
