package main

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/abifloor/abifloor/internal/cli"
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

// flagError reports a flag the parse refused (a *cli.ParseError names
// the flag as the usage spells it and, for an unknown one, the nearest of
// fs's flags), then the usage.
func flagError(info *flagInfo, err error) {
	info.env.say(info.name, err)
	fmt.Fprintf(info.env.stderr, "usage: abifloor %s %s\n", info.name, info.synopsis)
	fmt.Fprintf(info.env.stderr, "Run 'abifloor help %s' for its flags.\n", info.name)
}

// checkFlagValues refuses values no command can mean: a negative -j.
func checkFlagValues(info *flagInfo, fs *flag.FlagSet) error {
	if f := fs.Lookup("j"); f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			if n, ok := g.Get().(int); ok && n < 0 {
				err := fmt.Errorf("-j %d: the number of parallel jobs must be 0 (the default) or more", n)
				info.env.say(info.name, errText(err))
				return err
			}
		}
	}
	return nil
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

// didYouMean is cli.DidYouMean with prefix before each name.
func didYouMean(s string, names []string, prefix string) string {
	return cli.DidYouMean(s, names, func(n string) string { return prefix + n })
}
