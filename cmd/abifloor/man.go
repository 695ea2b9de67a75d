package main

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// runMan writes abifloor(1) from the commands and the flag sets they
// parse with, as completion does, so the page cannot drift from them.
// A command with sub-commands (abi, ranges) has a section for each.
func runMan(ctx context.Context, env *cmdEnv, args []string) int {
	fs := newFlags(env, "man", "")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) > 0 {
		return usageError(fs, "unexpected argument %q", pos[0])
	}
	w := env.stdout
	fmt.Fprintf(w, ".TH ABIFLOOR 1 \"\" \"abifloor %s\" \"User Commands\"\n", roff(buildVersion()))
	fmt.Fprintln(w, ".SH NAME\nabifloor \\- prove a native Linux binary will load where it ships")
	fmt.Fprintln(w, ".SH SYNOPSIS\n.B abifloor\n.I COMMAND\n[flags] ARGS...\n.br\n.B abifloor\n.RB [ \\-\\-version | \\-V | \\-\\-color=auto|always|never ]")
	fmt.Fprintln(w, ".SH COMMANDS")
	for _, c := range commands {
		names := []string{c.name}
		if subs := subcommands[c.name]; len(subs) > 0 {
			names = nil
			for _, s := range subs {
				names = append(names, c.name+" "+s)
			}
		}
		for i, n := range names {
			flags := commandFlags(ctx, n)
			flagSetsMu.Lock()
			syn := synopses[n]
			flagSetsMu.Unlock()
			fmt.Fprintf(w, ".SS %s\n", roff(strings.TrimSpace("abifloor "+n+" "+syn)))
			if i == 0 {
				fmt.Fprintln(w, roff(c.summary)+".")
			}
			for _, f := range flags {
				name := flagName(f.name)
				if f.value != "" {
					name += " " + f.value
				}
				fmt.Fprintf(w, ".TP\n.B %s\n%s\n", roff(name), roff(f.usage))
			}
		}
	}
	writeManFooter(w)
	return exitOK
}

func writeManFooter(w io.Writer) {
	fmt.Fprintln(w, ".SH ENVIRONMENT\n.TP\n.B NO_COLOR\nno colour, whatever else says\n.TP\n.B FORCE_COLOR\ncolour even when stdout is not a terminal (unless 0 or false)")
	fmt.Fprintln(w, ".SH EXIT STATUS\n0 done and within the limits; 1 a violation (check), a program that dies at start (bind); 2 an error, a run that was interrupted or checked nothing. diff uses abidiff's bits.")
}

// roff escapes text for a roff line: backslashes, and a leading dot or
// quote that roff would take for a request.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
