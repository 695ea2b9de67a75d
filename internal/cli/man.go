package cli

import (
	"fmt"
	"io"
	"strings"
)

// WriteMan writes abifloor(1) of version from cmds, with the flag sets
// they parse with, as completion does, so the page cannot drift from
// them. A command with sub-commands (abi, ranges) has a section for each.
func WriteMan(w io.Writer, version string, cmds []Cmd) {
	fmt.Fprintf(w, ".TH ABIFLOOR 1 \"\" \"abifloor %s\" \"User Commands\"\n", roff(version))
	fmt.Fprintln(w, ".SH NAME\nabifloor \\- prove a native Linux binary will load where it ships")
	fmt.Fprintln(w, ".SH SYNOPSIS\n.B abifloor\n.I COMMAND\n[flags] ARGS...\n.br\n.B abifloor\n.RB [ \\-\\-version | \\-V | \\-\\-color=auto|always|never ]")
	fmt.Fprintln(w, ".SH COMMANDS")
	for _, c := range cmds {
		secs := []Cmd{c}
		if len(c.Subs) > 0 {
			secs = nil
			for _, s := range c.Subs {
				s.Name = c.Name + " " + s.Name
				secs = append(secs, s)
			}
		}
		for i, s := range secs {
			fmt.Fprintf(w, ".SS %s\n", roff(strings.TrimSpace("abifloor "+s.Name+" "+s.Synopsis)))
			if i == 0 {
				fmt.Fprintln(w, roff(c.Summary)+".")
			}
			for _, f := range s.Flags {
				name := FlagName(f.Name)
				if f.Value != "" {
					name += " " + f.Value
				}
				fmt.Fprintf(w, ".TP\n.B %s\n%s\n", roff(name), roff(f.Usage))
			}
		}
	}
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
