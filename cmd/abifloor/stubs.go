package main

import (
	"context"
	"fmt"
	"os"

	"github.com/abifloor/abifloor/glibc"
)

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
	fmt.Fprintf(env.stdout, "%s: glibc %s stubs for %s; link with -L %s\n", dir, o.Target, o.Arch, dir)
	return exitOK
}
