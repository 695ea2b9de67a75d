package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/abifloor/abifloor/glibc"
	"github.com/abifloor/abifloor/report"
)

// stubsMissing says what a stubs command line lacks.
func stubsMissing(target, dir string, extra []string) string {
	switch {
	case len(extra) > 0:
		return fmt.Sprintf("unexpected argument %q", extra[0])
	case target == "" && dir == "":
		return "missing --glibc VER and -o DIR"
	case target == "":
		return "missing --glibc VER: the glibc release to write stubs for"
	}
	return "missing -o DIR: the directory to write the stubs in"
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func runStubs(ctx context.Context, env *cmdEnv, args []string) int {
	fs := newFlags(env, "stubs", "--glibc VER [--arch A] [--cc CC] -o DIR")
	var o glibc.StubOptions
	var dir string
	fs.StringVar(&o.Target, "glibc", "", "glibc release the stubs stand for, e.g. 2.17")
	fs.StringVar(&o.Arch, "arch", "", "architecture: x86_64, aarch64, i686, s390x (default: the host's)")
	fs.StringVar(&o.CC, "cc", "", "C compiler that builds the stubs (default cc, or TRIPLE-gcc for another arch)")
	fs.StringVar(&dir, "o", "", "output `DIR` (created; must be empty)")
	format := fs.String("format", "text", "output format: text|json")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if o.Target == "" || dir == "" || len(pos) > 0 {
		return usageError(fs, "%s", stubsMissing(o.Target, dir, pos))
	}
	f, err := report.ParseFormat(*format, report.Text, report.JSON)
	if err != nil {
		return usageError(fs, "%v", err)
	}
	if o, _, err = o.Resolve(false); err != nil {
		return env.say("stubs", errText(err))
	}
	if _, err := glibc.InstallStubs(ctx, dir, o); err != nil {
		return env.say("stubs", errText(err))
	}
	recipe := "-L " + report.ShellQuote(dir)
	if init := filepath.Join(dir, glibc.InitObject); fileExists(init) {
		// Before 2.34, an executable's constructors run only through the
		// wrapper (docs/stubs.md). An operand, so never one that reads
		// as an option (-stubs/abifloor-init.o).
		if strings.HasPrefix(init, "-") {
			init = "./" + init
		}
		recipe += " and, for executables, -Wl,--wrap=main " + report.ShellQuote(init)
	}
	if f == report.JSON {
		report.WriteJSON(env.stdout, map[string]string{"dir": dir, "glibc": o.Target, "arch": o.Arch, "link": recipe})
		return exitOK
	}
	fmt.Fprintf(env.stdout, "%s: glibc %s stubs for %s; link with %s\n", report.Clean(dir), o.Target, o.Arch, report.Clean(recipe))
	return exitOK
}
