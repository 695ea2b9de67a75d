package main

import (
	"context"
	"fmt"
	"runtime/debug"
)

func init() {
	register(&command{name: "version", summary: "print the abifloor version", run: runVersion})
}

func runVersion(_ context.Context, env *cmdEnv, _ []string) int {
	v := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		v = bi.Main.Version
	}
	fmt.Fprintln(env.stdout, "abifloor", v)
	return exitOK
}
