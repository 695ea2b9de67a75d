package main

import (
	"context"
	"flag"
	"io"
	"strings"

	"github.com/abifloor/abifloor/glibc"
	"github.com/abifloor/abifloor/internal/cli"
	"github.com/abifloor/abifloor/targets"
)

func runCompletion(ctx context.Context, env *cmdEnv, args []string) int {
	fs := newFlags(env, "completion", "bash|zsh|fish")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) != 1 {
		if len(pos) == 0 {
			return usageError(fs, "missing the shell: bash, zsh or fish")
		}
		return usageError(fs, "one shell, not %d", len(pos))
	}
	write := map[string]func(io.Writer, []cli.Cmd){"bash": cli.WriteBash, "zsh": cli.WriteZsh, "fish": cli.WriteFish}[pos[0]]
	if write == nil {
		return env.sayf("completion", "unknown shell %q (want bash, zsh or fish)", pos[0])
	}
	write(env.stdout, append(cliCmds(ctx), cli.Cmd{Name: "help", Summary: "print a command's help", Args: commandNames()}))
	return exitOK
}

// runMan writes abifloor(1) from the commands and the flag sets they
// parse with, as completion does, so the page cannot drift from them.
func runMan(ctx context.Context, env *cmdEnv, args []string) int {
	fs := newFlags(env, "man", "")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) > 0 {
		return usageError(fs, "unexpected argument %q", pos[0])
	}
	cli.WriteMan(env.stdout, buildVersion(), cliCmds(ctx))
	return exitOK
}

// cliCmds are the commands, each with its sub-commands and flags, as
// completion and the manual page offer them.
func cliCmds(ctx context.Context) []cli.Cmd {
	var cmds []cli.Cmd
	for _, c := range commands {
		cc := cli.Cmd{Name: c.name, Summary: c.summary}
		if c.name == "completion" {
			cc.Args = []string{"bash", "zsh", "fish"}
		}
		if subs := subcommands[c.name]; len(subs) > 0 {
			for _, s := range subs {
				flags, syn := commandFlags(ctx, c.name+" "+s)
				cc.Subs = append(cc.Subs, cli.Cmd{Name: s, Flags: flags, Synopsis: syn})
			}
		} else {
			cc.Flags, cc.Synopsis = commandFlags(ctx, c.name)
		}
		cmds = append(cmds, cc)
	}
	return cmds
}

// commandFlags returns the flags and synopsis of command name ("check",
// "abi dump") by asking the command for its help once: the flag set it
// builds is the one parsing uses.
func commandFlags(ctx context.Context, name string) ([]cli.Flag, string) {
	cmd, sub, _ := strings.Cut(name, " ")
	c := lookupCommand(cmd)
	if c == nil {
		return nil, ""
	}
	env := &cmdEnv{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	args := []string{"-h"}
	if sub != "" {
		args = []string{sub, "-h"}
	}
	c.run(ctx, env, args)
	flagSetsMu.Lock()
	fs, syn := flagSets[name], synopses[name]
	flagSetsMu.Unlock()
	var out []cli.Flag
	if fs != nil {
		out = []cli.Flag{}
		fs.VisitAll(func(f *flag.Flag) {
			_, usage := flag.UnquoteUsage(f)
			usage, _, _ = strings.Cut(usage, "\n")
			cf := cli.Flag{Name: f.Name, Usage: usage, Value: cli.Placeholder(f, syn)}
			switch f.Name {
			case "format":
				cf.Values = cli.FormatValues(f.Usage)
			case "target":
				for _, t := range targets.All() {
					cf.Values = append(cf.Values, t.Name)
				}
			case "glibc":
				cf.Values = glibc.Releases("x86_64")
			}
			out = append(out, cf)
		})
	}
	return out, syn
}
