package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"
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

// helpCommand is "abifloor help CMD": that command's usage and flags.
func helpCommand(ctx context.Context, env *cmdEnv, name string) int {
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(env.stderr, "abifloor help: unknown command %q\n", name)
		usage(env.stderr)
		return exitError
	}
	// Every command prints its usage and flags for -h, and returns 0.
	w := env.stderr
	env.stderr = env.stdout
	defer func() { env.stderr = w }()
	return c.run(ctx, env, []string{"-h"})
}

// printFlags lists fs's flags as the usage lines spell them: --name for
// long flags, -x for one letter, with the value's kind and the default.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		kind, usage := flag.UnquoteUsage(f)
		line := "  " + flagName(f.Name)
		if kind != "" {
			line += " " + strings.ToUpper(kind)
		}
		line += "\n    \t" + strings.ReplaceAll(usage, "\n", "\n    \t")
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
			line += fmt.Sprintf(" (default %q)", f.DefValue)
		}
		fmt.Fprintln(w, line)
	})
}

func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// flagSets keeps the flag set of every command that has built one, for
// completion: the same definitions as parsing uses.
var (
	flagSetsMu sync.Mutex
	flagSets   = map[string]*flag.FlagSet{}
	synopses   = map[string]string{}
)

func noteFlags(name, synopsis string, fs *flag.FlagSet) {
	flagSetsMu.Lock()
	flagSets[name] = fs
	synopses[name] = synopsis
	flagSetsMu.Unlock()
}

// cmdFlag is a flag as completion offers it.
type cmdFlag struct {
	name  string // without dashes
	usage string // its first line
	value bool   // takes a value
}

// commandFlags returns the flags of command name by asking the command
// for its help once: the flag set it builds is the one parsing uses.
func commandFlags(ctx context.Context, name string) []cmdFlag {
	c := commands[name]
	env := &cmdEnv{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	c.run(ctx, env, []string{"-h"})
	flagSetsMu.Lock()
	fs := flagSets[name]
	flagSetsMu.Unlock()
	var out []cmdFlag
	if fs != nil {
		out = []cmdFlag{}
		fs.VisitAll(func(f *flag.Flag) {
			kind, usage := flag.UnquoteUsage(f)
			usage, _, _ = strings.Cut(usage, "\n")
			out = append(out, cmdFlag{name: f.Name, usage: usage, value: kind != ""})
		})
	}
	return out
}
