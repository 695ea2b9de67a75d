package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/abifloor/abifloor/glibc"
	"github.com/abifloor/abifloor/targets"
)

// globalFlags takes the options every command shares out of args:
// --color=auto|always|never (also "--color WHEN"), which decides colour
// by setting what report.UseColor reads (FORCE_COLOR, NO_COLOR) for this
// run. Everything after a literal "--" is left alone. It returns the
// remaining args, and an exit code >= 0 when it failed.
func globalFlags(env *cmdEnv, args []string) ([]string, int) {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "color" {
			out = append(out, a)
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				fmt.Fprintln(env.stderr, "abifloor: --color needs auto, always or never")
				return nil, exitError
			}
			i++
			val = args[i]
		}
		getenv := env.getenv
		switch val {
		case "auto":
		case "always":
			env.getenv = func(k string) string {
				switch k {
				case "NO_COLOR":
					return ""
				case "FORCE_COLOR":
					return "1"
				}
				return getenv(k)
			}
		case "never":
			env.getenv = func(k string) string {
				if k == "NO_COLOR" {
					return "1"
				}
				return getenv(k)
			}
		default:
			fmt.Fprintf(env.stderr, "abifloor: --color=%s: want auto, always or never\n", val)
			return nil, exitError
		}
	}
	return out, -1
}

// subcommands are the sub-commands of the commands that have them, in
// the order of their usage.
var subcommands = map[string][]string{
	"abi":    {"dump", "headers"},
	"ranges": {"build", "lookup", "add", "show"},
}

// helpCommand is "abifloor help CMD [SUB]": that command's usage and
// flags on stdout, each sub-command's for a command that has them.
func helpCommand(ctx context.Context, env *cmdEnv, args []string) int {
	name := args[0]
	c := lookupCommand(name)
	if c == nil {
		unknownCommand(env, "abifloor help", name)
		return exitError
	}
	// Every command prints its usage and flags for -h, and returns 0;
	// what a command writes on stderr for it goes to stdout too.
	w := env.stderr
	env.stderr = env.stdout
	defer func() { env.stderr = w }()
	subs := subcommands[name]
	if len(args) > 1 {
		if !slices.Contains(subs, args[1]) {
			env.stderr = w
			fmt.Fprintf(w, "abifloor help %s: unknown sub-command %q%s\n", name, args[1], didYouMean(args[1], subs, ""))
			return exitError
		}
		subs = args[1:2]
	}
	if len(subs) == 0 {
		return c.run(ctx, env, []string{"-h"})
	}
	fmt.Fprintf(env.stdout, "abifloor %s: %s\n", name, c.summary)
	code := exitOK
	for _, sub := range subs {
		fmt.Fprintln(env.stdout)
		code = max(code, c.run(ctx, env, []string{sub, "-h"}))
	}
	return code
}

// missingSub reports a command run without one of its sub-commands.
func missingSub(env *cmdEnv, name string) int {
	fmt.Fprintf(env.stderr, "abifloor %s: missing sub-command: %s\n", name, strings.Join(subcommands[name], ", "))
	fmt.Fprintf(env.stderr, "Run 'abifloor help %s' for their flags.\n", name)
	return exitError
}

// usageError reports wrong arguments of a command: why, then its usage
// line and where its flags are described. It returns exitError.
func usageError(fs *flag.FlagSet, format string, args ...any) int {
	info := lookupFlagInfo(fs)
	if info == nil {
		return exitError
	}
	fmt.Fprintf(info.env.stderr, "abifloor %s: %s\n", info.name, fmt.Sprintf(format, args...))
	fmt.Fprintf(info.env.stderr, "usage: abifloor %s %s\n", info.name, info.synopsis)
	fmt.Fprintf(info.env.stderr, "Run 'abifloor help %s' for its flags.\n", info.name)
	return exitError
}

// missingArgs says which of the positional arguments want (OLD, NEW)
// are missing from got, or that got has too many.
func missingArgs(want, got []string) string {
	if len(got) > len(want) {
		return fmt.Sprintf("unexpected argument %q: want %s", got[len(want)], strings.Join(want, " "))
	}
	return "missing " + strings.Join(want[len(got):], " and ")
}

// unknownCommand reports a command name that is none of abifloor's,
// with the nearest names.
func unknownCommand(env *cmdEnv, who, name string) {
	names := append(commandNames(), "help")
	fmt.Fprintf(env.stderr, "%s: unknown command %q%s\n", who, name, didYouMean(name, names, ""))
	fmt.Fprintln(env.stderr, "Run 'abifloor help' for the list of commands.")
}

// flagError reports a flag the parse refused, naming the flag as the
// usage spells it and, for an unknown one, the nearest of fs's flags.
func flagError(info *flagInfo, fs *flag.FlagSet, err error) {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		msg = fmt.Sprintf("unknown flag %s%s", flagName(name), didYouMeanFlag(name, names))
	} else if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		if f := fs.Lookup(name); f != nil {
			msg = fmt.Sprintf("%s needs a value: %s %s", flagName(name), flagName(name), placeholder(f))
		}
	} else if i := strings.Index(msg, " for flag -"); i >= 0 {
		// invalid value "x" for flag -j: parse error
		name, rest, _ := strings.Cut(msg[i+len(" for flag -"):], ":")
		msg = msg[:i] + " for flag " + flagName(name) + ":" + rest
	}
	fmt.Fprintf(info.env.stderr, "abifloor %s: %s\n", info.name, msg)
	fmt.Fprintf(info.env.stderr, "usage: abifloor %s %s\n", info.name, info.synopsis)
	fmt.Fprintf(info.env.stderr, "Run 'abifloor help %s' for its flags.\n", info.name)
}

// checkFlagValues refuses values no command can mean: a negative -j.
func checkFlagValues(info *flagInfo, fs *flag.FlagSet) error {
	if f := fs.Lookup("j"); f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			if n, ok := g.Get().(int); ok && n < 0 {
				err := fmt.Errorf("-j %d: the number of parallel jobs must be 0 (the default) or more", n)
				fmt.Fprintf(info.env.stderr, "abifloor %s: %s\n", info.name, errText(err))
				return err
			}
		}
	}
	return nil
}

// didYouMean returns "; did you mean X?" naming the names nearest to s,
// or "" when none is near. prefix goes before each name ("--").
func didYouMean(s string, names []string, prefix string) string {
	near := nearest(s, names)
	if len(near) == 0 {
		return ""
	}
	for i, n := range near {
		near[i] = prefix + n
	}
	return "; did you mean " + strings.Join(near, " or ") + "?"
}

func didYouMeanFlag(s string, names []string) string {
	near := nearest(s, names)
	if len(near) == 0 {
		return ""
	}
	for i, n := range near {
		near[i] = flagName(n)
	}
	return "; did you mean " + strings.Join(near, " or ") + "?"
}

// nearest returns at most three of names within a small edit distance
// of s (a third of its length, at least 1, or a prefix of it), nearest
// first.
func nearest(s string, names []string) []string {
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

// printFlags lists fs's flags as the usage lines spell them: --name for
// long flags, -x for one letter, with a placeholder for the value and the
// default (quoted only for a string).
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		_, usage := flag.UnquoteUsage(f)
		line := "  " + flagName(f.Name)
		if p := placeholder(f); p != "" {
			line += " " + p
		}
		line += "\n    \t" + strings.ReplaceAll(usage, "\n", "\n    \t")
		if d := defaultText(f); d != "" {
			line += " (default " + d + ")"
		}
		fmt.Fprintln(w, line)
	})
}

// placeholder is the word that stands for f's value in the usage: the
// usage's back-quoted word when it is one word (`DIR`, `N`), N for a
// number, else the flag's name in capitals (--image IMAGE). A boolean
// flag has none.
func placeholder(f *flag.Flag) string {
	kind, _ := flag.UnquoteUsage(f)
	if kind == "" {
		return ""
	}
	if w := synopsisWord(f); w != "" {
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

// synopsisWord is the word after --NAME in the synopsis of the command
// whose flag f is ("[--max NS=VER]..."), if it reads as a placeholder.
func synopsisWord(f *flag.Flag) string {
	flagSetsMu.Lock()
	var syn string
	for fs, info := range infos {
		if fs.Lookup(f.Name) == f {
			syn = info.synopsis
			break
		}
	}
	flagSetsMu.Unlock()
	words := strings.FieldsFunc(syn, func(r rune) bool { return r == ' ' || r == '[' || r == ']' || r == '|' })
	for i, w := range words[:max(0, len(words)-1)] {
		if w == flagName(f.Name) {
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

func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// flagSets keeps the flag set of every command that has built one, by
// the name newFlags was given ("check", "abi dump"), for completion and
// the manual page: the same definitions as parsing uses. infos maps a
// flag set to what parsing needs of it.
var (
	flagSetsMu sync.Mutex
	flagSets   = map[string]*flag.FlagSet{}
	synopses   = map[string]string{}
	infos      = map[*flag.FlagSet]*flagInfo{}
)

func noteFlags(fs *flag.FlagSet, info *flagInfo) {
	flagSetsMu.Lock()
	defer flagSetsMu.Unlock()
	flagSets[info.name] = fs
	synopses[info.name] = info.synopsis
	infos[fs] = info
}

func lookupFlagInfo(fs *flag.FlagSet) *flagInfo {
	flagSetsMu.Lock()
	defer flagSetsMu.Unlock()
	return infos[fs]
}

// cmdFlag is a flag as completion and the manual page offer it.
type cmdFlag struct {
	name   string   // without dashes
	usage  string   // its first line
	value  string   // the placeholder of its value, "" for a boolean
	values []string // the values it takes, when they are a fixed few
}

// commandFlags returns the flags of command name ("check", "abi dump")
// by asking the command for its help once: the flag set it builds is the
// one parsing uses.
func commandFlags(ctx context.Context, name string) []cmdFlag {
	cmd, sub, _ := strings.Cut(name, " ")
	c := lookupCommand(cmd)
	if c == nil {
		return nil
	}
	env := &cmdEnv{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	args := []string{"-h"}
	if sub != "" {
		args = []string{sub, "-h"}
	}
	c.run(ctx, env, args)
	flagSetsMu.Lock()
	fs := flagSets[name]
	flagSetsMu.Unlock()
	var out []cmdFlag
	if fs != nil {
		out = []cmdFlag{}
		fs.VisitAll(func(f *flag.Flag) {
			_, usage := flag.UnquoteUsage(f)
			usage, _, _ = strings.Cut(usage, "\n")
			cf := cmdFlag{name: f.Name, usage: usage, value: placeholder(f)}
			switch f.Name {
			case "format":
				cf.values = formatValues(f.Usage)
			case "target":
				for _, t := range targets.All() {
					cf.values = append(cf.values, t.Name)
				}
			case "glibc":
				cf.values = glibcReleases()
			}
			out = append(out, cf)
		})
	}
	return out
}

// formatValues reads the formats a --format flag takes from its usage,
// which lists them after a colon: "output format: text|json|sarif",
// "output `format`: text, json, github or sarif".
func formatValues(usage string) []string {
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

// glibcReleases are the releases --glibc takes (cc, c++, stubs), oldest
// first, as the embedded database of x86_64 knows them: its first
// version (2.2.5), then every 2.N up to the newest.
func glibcReleases() []string {
	a, err := glibc.LoadArch("x86_64", false)
	if err != nil {
		return nil
	}
	out := []string{a.First}
	for minor := minorOf(a.First) + 1; minor <= minorOf(a.Newest); minor++ {
		out = append(out, "2."+strconv.Itoa(minor))
	}
	return out
}

// minorOf is N of a release 2.N[.M], or 0.
func minorOf(release string) int {
	parts := strings.Split(release, ".")
	if len(parts) < 2 || parts[0] != "2" {
		return 0
	}
	n, _ := strconv.Atoi(parts[1])
	return n
}
