package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/abifloor/abifloor/glibc"
	"github.com/abifloor/abifloor/report"
)

func init() {
	register(&command{name: "stubs", summary: "write stub libraries of a glibc release to link against (--glibc 2.17 -o DIR)", run: runStubs})
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
	fs.StringVar(&dir, "o", "", "output directory (created; must be empty)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if o.Target == "" || dir == "" || len(pos) > 0 {
		fs.Usage()
		return exitError
	}
	if o, _, err = o.Resolve(false); err != nil {
		fmt.Fprintln(env.stderr, "abifloor stubs:", err)
		return exitError
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(env.stderr, "abifloor stubs:", err)
		return exitError
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) > 0 {
		if err == nil {
			err = fmt.Errorf("%s: directory is not empty", dir)
		}
		fmt.Fprintln(env.stderr, "abifloor stubs:", err)
		return exitError
	}
	if err := glibc.WriteStubs(ctx, dir, o); err != nil {
		fmt.Fprintln(env.stderr, "abifloor stubs:", err)
		return exitError
	}
	recipe := "-L " + report.ShellQuote(dir)
	if init := filepath.Join(dir, glibc.InitObject); fileExists(init) {
		// Before 2.34, an executable's constructors run only through the
		// wrapper (docs/stubs.md).
		recipe += " and, for executables, -Wl,--wrap=main " + report.ShellQuote(init)
	}
	fmt.Fprintf(env.stdout, "%s: glibc %s stubs for %s; link with %s\n", dir, o.Target, o.Arch, recipe)
	return exitOK
}
