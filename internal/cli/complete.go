package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/abifloor/abifloor/report"
)

// Cmd is a command, or a command's sub-command ("abi dump"), as the
// completion scripts and the manual page offer it.
type Cmd struct {
	Name, Summary string
	// Synopsis is the usage line after the name, for the manual page.
	Synopsis string
	Flags    []Flag
	Subs     []Cmd // abi's and ranges'
	// Args are the fixed words a positional argument takes (help's
	// command names, completion's shells); nil completes files.
	Args []string
}

// Flag is a flag as completion and the manual page offer it.
type Flag struct {
	Name   string   // without dashes
	Usage  string   // its first line
	Value  string   // the placeholder of its value, "" for a boolean
	Values []string // the values it takes, when they are a fixed few
}

func dashed(fl []Flag) string {
	var parts []string
	for _, f := range fl {
		parts = append(parts, FlagName(f.Name))
	}
	return strings.Join(append(parts, "--help"), " ")
}

func cmdNames(cmds []Cmd) string {
	var parts []string
	for _, c := range cmds {
		parts = append(parts, c.Name)
	}
	return strings.Join(parts, " ")
}

// fishQuote quotes s for fish, whose single quotes take \' and \\.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}

// WriteBash writes the bash completion script of cmds.
func WriteBash(w io.Writer, cmds []Cmd) {
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
		if len(c.Subs) == 0 {
			continue
		}
		fmt.Fprintf(w, "\t%s)\n\t\tif [ \"$COMP_CWORD\" -eq 2 ]; then\n\t\t\tCOMPREPLY=($(compgen -W %s -- \"$cur\"))\n\t\t\treturn\n\t\tfi\n\t\tkey=\"$key ${COMP_WORDS[2]}\" first=3;;\n",
			c.Name, report.ShellQuote(cmdNames(c.Subs)))
	}
	fmt.Fprint(w, `	esac
	# The value of a flag: a fixed few, or a file.
	if [ "$COMP_CWORD" -gt "$first" ] || [[ $prev == -* ]]; then
		case "$key $prev" in
`)
	for _, c := range cmds {
		for _, s := range c.Subs {
			for _, f := range s.Flags {
				if len(f.Values) > 0 {
					fmt.Fprintf(w, "\t\t%s) values=%s;;\n", report.ShellQuote(c.Name+" "+s.Name+" "+FlagName(f.Name)), report.ShellQuote(strings.Join(f.Values, " ")))
				}
			}
		}
		for _, f := range c.Flags {
			if len(f.Values) > 0 {
				fmt.Fprintf(w, "\t\t%s) values=%s;;\n", report.ShellQuote(c.Name+" "+FlagName(f.Name)), report.ShellQuote(strings.Join(f.Values, " ")))
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
		for _, s := range c.Subs {
			fmt.Fprintf(w, "\t%s) flags=%s;;\n", report.ShellQuote(c.Name+" "+s.Name), report.ShellQuote(dashed(s.Flags)+" --color"))
		}
		if len(c.Subs) > 0 {
			continue
		}
		fmt.Fprintf(w, "\t%s) flags=%s", report.ShellQuote(c.Name), report.ShellQuote(dashed(c.Flags)+" --color"))
		if c.Args != nil {
			fmt.Fprintf(w, "; words=%s", report.ShellQuote(strings.Join(c.Args, " ")))
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
func zshSpecs(c Cmd) string {
	esc := strings.NewReplacer("[", `\[`, "]", `\]`, ":", `\:`)
	var specs []string
	for _, f := range c.Flags {
		spec := FlagName(f.Name) + "[" + esc.Replace(f.Usage) + "]"
		switch {
		case len(f.Values) > 0:
			spec += ":" + strings.ToLower(f.Value) + ":(" + strings.Join(f.Values, " ") + ")"
		case f.Value != "":
			spec += ":" + strings.ToLower(f.Value) + ":_files"
		}
		specs = append(specs, report.ShellQuote(spec))
	}
	if c.Args != nil {
		specs = append(specs, report.ShellQuote("*:argument:("+strings.Join(c.Args, " ")+")"))
	} else {
		specs = append(specs, report.ShellQuote("*:path:_files"))
	}
	return strings.Join(specs, " ")
}

// WriteZsh writes the zsh completion script of cmds.
func WriteZsh(w io.Writer, cmds []Cmd) {
	fmt.Fprint(w, `#compdef abifloor
# zsh completion for abifloor: abifloor completion zsh > "${fpath[1]}/_abifloor"
_abifloor() {
	local -a cmds
	cmds=(
`)
	for _, c := range cmds {
		fmt.Fprintf(w, "\t\t%s\n", report.ShellQuote(c.Name+":"+strings.ReplaceAll(c.Summary, ":", `\:`)))
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
		case c.Name == "help":
			fmt.Fprintln(w, "\thelp) _describe 'command' cmds;;")
		case len(c.Subs) > 0:
			fmt.Fprintf(w, "\t%s)\n\t\tif (( CURRENT == 3 )); then\n\t\t\tcompadd %s\n\t\t\treturn\n\t\tfi\n\t\tcase $words[3] in\n", report.ShellQuote(c.Name), cmdNames(c.Subs))
			for _, s := range c.Subs {
				fmt.Fprintf(w, "\t\t%s) _arguments %s;;\n", report.ShellQuote(s.Name), zshSpecs(s))
			}
			fmt.Fprintln(w, "\t\tesac;;")
		default:
			fmt.Fprintf(w, "\t%s) _arguments %s;;\n", report.ShellQuote(c.Name), zshSpecs(c))
		}
	}
	fmt.Fprint(w, `	esac
}
compdef _abifloor abifloor
`)
}

// fishFlags writes the completions of c's flags under condition cond.
func fishFlags(w io.Writer, cond string, c Cmd) {
	for _, f := range c.Flags {
		opt := "-l " + f.Name
		if len(f.Name) == 1 {
			opt = "-s " + f.Name
		}
		if f.Value != "" {
			opt += " -r"
		}
		if len(f.Values) > 0 {
			opt += " -f -a " + fishQuote(strings.Join(f.Values, " "))
		}
		fmt.Fprintf(w, "complete -c abifloor -n %s %s -d %s\n", fishQuote(cond), opt, fishQuote(f.Usage))
	}
	if c.Args != nil {
		fmt.Fprintf(w, "complete -c abifloor -f -n %s -a %s\n", fishQuote(cond), fishQuote(strings.Join(c.Args, " ")))
	}
}

// WriteFish writes the fish completion script of cmds.
func WriteFish(w io.Writer, cmds []Cmd) {
	fmt.Fprintln(w, "# fish completion for abifloor: abifloor completion fish > ~/.config/fish/completions/abifloor.fish")
	fmt.Fprintln(w, "complete -c abifloor -f -n __fish_use_subcommand -l version -s V -d 'print the version'")
	for _, c := range cmds {
		fmt.Fprintf(w, "complete -c abifloor -f -n __fish_use_subcommand -a %s -d %s\n", fishQuote(c.Name), fishQuote(c.Summary))
	}
	for _, c := range cmds {
		cond := "__fish_seen_subcommand_from " + c.Name
		if len(c.Subs) == 0 {
			fishFlags(w, cond, c)
			continue
		}
		subs := cmdNames(c.Subs)
		fmt.Fprintf(w, "complete -c abifloor -f -n %s -a %s\n", fishQuote(cond+"; and not __fish_seen_subcommand_from "+subs), fishQuote(subs))
		for _, s := range c.Subs {
			fishFlags(w, cond+"; and __fish_seen_subcommand_from "+s.Name, s)
		}
	}
}
