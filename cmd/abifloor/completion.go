package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/abifloor/abifloor/report"
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
	var write func(io.Writer, []completionCmd)
	switch pos[0] {
	case "bash":
		write = completeBash
	case "zsh":
		write = completeZsh
	case "fish":
		write = completeFish
	default:
		fmt.Fprintf(env.stderr, "abifloor completion: unknown shell %q (want bash, zsh or fish)\n", pos[0])
		return exitError
	}
	write(env.stdout, completionCmds(ctx))
	return exitOK
}

// completionCmd is a command, or a command's sub-command ("abi dump"),
// as the completion scripts offer it.
type completionCmd struct {
	name, summary string
	flags         []cmdFlag
	subs          []completionCmd // abi's and ranges'
	// args are the fixed words a positional argument takes (help's
	// command names, completion's shells); nil completes files.
	args []string
}

func completionCmds(ctx context.Context) []completionCmd {
	var cmds []completionCmd
	for _, c := range commands {
		cc := completionCmd{name: c.name, summary: c.summary}
		switch c.name {
		case "completion":
			cc.args = []string{"bash", "zsh", "fish"}
		}
		if subs := subcommands[c.name]; len(subs) > 0 {
			for _, s := range subs {
				cc.subs = append(cc.subs, completionCmd{name: s, flags: commandFlags(ctx, c.name+" "+s)})
			}
		} else {
			cc.flags = commandFlags(ctx, c.name)
		}
		cmds = append(cmds, cc)
	}
	return append(cmds, completionCmd{name: "help", summary: "print a command's help", args: commandNames()})
}

func dashed(fl []cmdFlag) string {
	var parts []string
	for _, f := range fl {
		parts = append(parts, flagName(f.name))
	}
	return strings.Join(append(parts, "--help"), " ")
}

func cmdNames(cmds []completionCmd) string {
	var parts []string
	for _, c := range cmds {
		parts = append(parts, c.name)
	}
	return strings.Join(parts, " ")
}

// fishQuote quotes s for fish, whose single quotes take \' and \\.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}

func completeBash(w io.Writer, cmds []completionCmd) {
	fmt.Fprintf(w, `# bash completion for abifloor: source <(abifloor completion bash)
_abifloor() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local key=${COMP_WORDS[1]} first=2 flags= words= values=
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W %s -- "$cur"))
		return
	fi
	case $key in
`, report.ShellQuote(cmdNames(cmds)+" --version -V --help --color"))
	for _, c := range cmds {
		if len(c.subs) == 0 {
			continue
		}
		fmt.Fprintf(w, "\t%s)\n\t\tif [ \"$COMP_CWORD\" -eq 2 ]; then\n\t\t\tCOMPREPLY=($(compgen -W %s -- \"$cur\"))\n\t\t\treturn\n\t\tfi\n\t\tkey=\"$key ${COMP_WORDS[2]}\" first=3;;\n",
			c.name, report.ShellQuote(cmdNames(c.subs)))
	}
	fmt.Fprint(w, `	esac
	# The value of a flag: a fixed few, or a file.
	if [ "$COMP_CWORD" -gt "$first" ] || [[ $prev == -* ]]; then
		case "$key $prev" in
`)
	for _, c := range cmds {
		for _, s := range c.subs {
			for _, f := range s.flags {
				if len(f.values) > 0 {
					fmt.Fprintf(w, "\t\t%s) values=%s;;\n", report.ShellQuote(c.name+" "+s.name+" "+flagName(f.name)), report.ShellQuote(strings.Join(f.values, " ")))
				}
			}
		}
		for _, f := range c.flags {
			if len(f.values) > 0 {
				fmt.Fprintf(w, "\t\t%s) values=%s;;\n", report.ShellQuote(c.name+" "+flagName(f.name)), report.ShellQuote(strings.Join(f.values, " ")))
			}
		}
	}
	fmt.Fprint(w, `		esac
		if [ -n "$values" ]; then
			COMPREPLY=($(compgen -W "$values" -- "$cur"))
			return
		fi
	fi
	case "$key" in
`)
	for _, c := range cmds {
		for _, s := range c.subs {
			fmt.Fprintf(w, "\t%s) flags=%s;;\n", report.ShellQuote(c.name+" "+s.name), report.ShellQuote(dashed(s.flags)+" --color"))
		}
		if len(c.subs) > 0 {
			continue
		}
		fmt.Fprintf(w, "\t%s) flags=%s", report.ShellQuote(c.name), report.ShellQuote(dashed(c.flags)+" --color"))
		if c.args != nil {
			fmt.Fprintf(w, "; words=%s", report.ShellQuote(strings.Join(c.args, " ")))
		}
		fmt.Fprintln(w, ";;")
	}
	fmt.Fprint(w, `	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$flags" -- "$cur"))
	elif [ -n "$words" ]; then
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -o filenames -o bashdefault -F _abifloor abifloor
`)
}

// zshSpecs are the _arguments specs of a command's flags and files.
func zshSpecs(c completionCmd) string {
	esc := strings.NewReplacer("[", `\[`, "]", `\]`, ":", `\:`)
	var specs []string
	for _, f := range c.flags {
		spec := flagName(f.name) + "[" + esc.Replace(f.usage) + "]"
		switch {
		case len(f.values) > 0:
			spec += ":" + strings.ToLower(f.value) + ":(" + strings.Join(f.values, " ") + ")"
		case f.value != "":
			spec += ":" + strings.ToLower(f.value) + ":_files"
		}
		specs = append(specs, report.ShellQuote(spec))
	}
	if c.args != nil {
		specs = append(specs, report.ShellQuote("*:argument:("+strings.Join(c.args, " ")+")"))
	} else {
		specs = append(specs, report.ShellQuote("*:path:_files"))
	}
	return strings.Join(specs, " ")
}

func completeZsh(w io.Writer, cmds []completionCmd) {
	fmt.Fprint(w, `#compdef abifloor
# zsh completion for abifloor: abifloor completion zsh > "${fpath[1]}/_abifloor"
_abifloor() {
	local -a cmds
	cmds=(
`)
	for _, c := range cmds {
		fmt.Fprintf(w, "\t\t%s\n", report.ShellQuote(c.name+":"+strings.ReplaceAll(c.summary, ":", `\:`)))
	}
	fmt.Fprint(w, `	)
	if (( CURRENT == 2 )); then
		_describe 'command' cmds
		return
	fi
	case $words[2] in
`)
	for _, c := range cmds {
		switch {
		case c.name == "help":
			fmt.Fprintln(w, "\thelp) _describe 'command' cmds;;")
		case len(c.subs) > 0:
			fmt.Fprintf(w, "\t%s)\n\t\tif (( CURRENT == 3 )); then\n\t\t\tcompadd %s\n\t\t\treturn\n\t\tfi\n\t\tcase $words[3] in\n", report.ShellQuote(c.name), cmdNames(c.subs))
			for _, s := range c.subs {
				fmt.Fprintf(w, "\t\t%s) _arguments %s;;\n", report.ShellQuote(s.name), zshSpecs(s))
			}
			fmt.Fprintln(w, "\t\tesac;;")
		default:
			fmt.Fprintf(w, "\t%s) _arguments %s;;\n", report.ShellQuote(c.name), zshSpecs(c))
		}
	}
	fmt.Fprint(w, `	esac
}
compdef _abifloor abifloor
`)
}

// fishFlags writes the completions of c's flags under condition cond.
func fishFlags(w io.Writer, cond string, c completionCmd) {
	for _, f := range c.flags {
		opt := "-l " + f.name
		if len(f.name) == 1 {
			opt = "-s " + f.name
		}
		if f.value != "" {
			opt += " -r"
		}
		if len(f.values) > 0 {
			opt += " -f -a " + fishQuote(strings.Join(f.values, " "))
		}
		fmt.Fprintf(w, "complete -c abifloor -n %s %s -d %s\n", fishQuote(cond), opt, fishQuote(f.usage))
	}
	if c.args != nil {
		fmt.Fprintf(w, "complete -c abifloor -f -n %s -a %s\n", fishQuote(cond), fishQuote(strings.Join(c.args, " ")))
	}
}

func completeFish(w io.Writer, cmds []completionCmd) {
	fmt.Fprintln(w, "# fish completion for abifloor: abifloor completion fish > ~/.config/fish/completions/abifloor.fish")
	fmt.Fprintln(w, "complete -c abifloor -f -n __fish_use_subcommand -l version -s V -d 'print the version'")
	for _, c := range cmds {
		fmt.Fprintf(w, "complete -c abifloor -f -n __fish_use_subcommand -a %s -d %s\n", fishQuote(c.name), fishQuote(c.summary))
	}
	for _, c := range cmds {
		cond := "__fish_seen_subcommand_from " + c.name
		if len(c.subs) == 0 {
			fishFlags(w, cond, c)
			continue
		}
		subs := cmdNames(c.subs)
		fmt.Fprintf(w, "complete -c abifloor -f -n %s -a %s\n", fishQuote(cond+"; and not __fish_seen_subcommand_from "+subs), fishQuote(subs))
		for _, s := range c.subs {
			fishFlags(w, cond+"; and __fish_seen_subcommand_from "+s.name, s)
		}
	}
}
