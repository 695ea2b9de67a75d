package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/abifloor/abifloor/report"
)

func init() {
	register(&command{name: "completion", summary: "print a shell completion script: completion bash|zsh|fish", run: runCompletion})
}

func runCompletion(ctx context.Context, env *cmdEnv, args []string) int {
	fs := newFlags(env, "completion", "bash|zsh|fish")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) != 1 {
		fs.Usage()
		return exitError
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
	var cmds []completionCmd
	for _, n := range commandNames() {
		cmds = append(cmds, completionCmd{name: n, summary: commands[n].summary, flags: commandFlags(ctx, n)})
	}
	cmds = append(cmds, completionCmd{name: "help", summary: "print a command's help"})
	write(env.stdout, cmds)
	return exitOK
}

type completionCmd struct {
	name, summary string
	flags         []cmdFlag
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
	local cur=${COMP_WORDS[COMP_CWORD]} flags=
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W %s -- "$cur"))
		return
	fi
	case "${COMP_WORDS[1]}" in
`, report.ShellQuote(cmdNames(cmds)+" --version -V --help --color"))
	for _, c := range cmds {
		if c.name == "help" {
			fmt.Fprintf(w, "\thelp) COMPREPLY=($(compgen -W %s -- \"$cur\")); return;;\n", report.ShellQuote(cmdNames(cmds)))
			continue
		}
		if c.name == "completion" {
			fmt.Fprintln(w, "\tcompletion) COMPREPLY=($(compgen -W 'bash zsh fish' -- \"$cur\")); return;;")
			continue
		}
		fmt.Fprintf(w, "\t%s) flags=%s;;\n", c.name, report.ShellQuote(dashed(c.flags)+" --color"))
	}
	fmt.Fprint(w, `	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$flags" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -o filenames -o bashdefault -F _abifloor abifloor
`)
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
		switch c.name {
		case "help":
			fmt.Fprintln(w, "\thelp) _describe 'command' cmds;;")
			continue
		case "completion":
			fmt.Fprintln(w, "\tcompletion) compadd bash zsh fish;;")
			continue
		}
		var specs []string
		for _, f := range c.flags {
			spec := flagName(f.name) + "[" + strings.NewReplacer("[", `\[`, "]", `\]`, ":", `\:`).Replace(f.usage) + "]"
			if f.value {
				spec += ":value:_files"
			}
			specs = append(specs, report.ShellQuote(spec))
		}
		specs = append(specs, report.ShellQuote("*:path:_files"))
		fmt.Fprintf(w, "\t%s) _arguments %s;;\n", c.name, strings.Join(specs, " "))
	}
	fmt.Fprint(w, `	esac
}
compdef _abifloor abifloor
`)
}

func completeFish(w io.Writer, cmds []completionCmd) {
	fmt.Fprintln(w, "# fish completion for abifloor: abifloor completion fish > ~/.config/fish/completions/abifloor.fish")
	fmt.Fprintln(w, "complete -c abifloor -f -n __fish_use_subcommand -l version -s V -d 'print the version'")
	for _, c := range cmds {
		fmt.Fprintf(w, "complete -c abifloor -f -n __fish_use_subcommand -a %s -d %s\n", c.name, fishQuote(c.summary))
	}
	for _, c := range cmds {
		cond := fishQuote("__fish_seen_subcommand_from " + c.name)
		switch c.name {
		case "help":
			fmt.Fprintf(w, "complete -c abifloor -f -n %s -a %s\n", cond, fishQuote(cmdNames(cmds)))
			continue
		case "completion":
			fmt.Fprintf(w, "complete -c abifloor -f -n %s -a 'bash zsh fish'\n", cond)
			continue
		}
		for _, f := range c.flags {
			opt := "-l " + f.name
			if len(f.name) == 1 {
				opt = "-s " + f.name
			}
			if f.value {
				opt += " -r"
			}
			fmt.Fprintf(w, "complete -c abifloor -n %s %s -d %s\n", cond, opt, fishQuote(f.usage))
		}
	}
}
