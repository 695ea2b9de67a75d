package main

import (
	"context"
	"fmt"
	"io"
	"strings"
)

func init() {
	register(&command{name: "man", summary: "print the manual page (roff): abifloor man | man -l -", run: runMan})
}

// runMan writes abifloor(1) from the commands and the flag sets they
// parse with, as completion does, so the page cannot drift from them.
func runMan(ctx context.Context, env *cmdEnv, args []string) int {
	fs := newFlags(env, "man", "")
	if _, err := parseFlags(fs, args); err != nil {
		return flagExit(err)
	}
	w := env.stdout
	fmt.Fprintf(w, ".TH ABIFLOOR 1 \"\" \"abifloor %s\" \"User Commands\"\n", roff(buildVersion()))
	fmt.Fprintln(w, ".SH NAME\nabifloor \\- prove a native Linux binary will load where it ships")
	fmt.Fprintln(w, ".SH SYNOPSIS\n.B abifloor\n.I COMMAND\n[flags] ARGS...\n.br\n.B abifloor\n.RB [ \\-\\-version | \\-V | \\-\\-color=auto|always|never ]")
	fmt.Fprintln(w, ".SH COMMANDS")
	for _, n := range commandNames() {
		flags := commandFlags(ctx, n)
		flagSetsMu.Lock()
		syn := synopses[n]
		flagSetsMu.Unlock()
		fmt.Fprintf(w, ".SS %s\n", roff(strings.TrimSpace("abifloor "+n+" "+syn)))
		fmt.Fprintln(w, roff(commands[n].summary)+".")
		for _, f := range flags {
			fmt.Fprintf(w, ".TP\n.B %s\n%s\n", roff(flagName(f.name)), roff(f.usage))
		}
	}
	writeManFooter(w)
	return exitOK
}

func writeManFooter(w io.Writer) {
	fmt.Fprintln(w, ".SH ENVIRONMENT\n.TP\n.B NO_COLOR\nno colour, whatever else says\n.TP\n.B FORCE_COLOR\ncolour even when stdout is not a terminal (unless 0 or false)")
	fmt.Fprintln(w, ".SH EXIT STATUS\n0 done and within the limits; 1 a violation (check), a program that dies at start (bind); 2 an error. diff uses abidiff's bits.")
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
