package main

import (
	"errors"
	"os/exec"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	// exitcode N PROG ARGS... runs PROG like exec and checks its exit code
	// is exactly N: abifloor bind tells "dies at start" (1) from "could not
	// read a file" (2), and a script must be able to say which.
	scriptCmds["exitcode"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) < 2 {
			ts.Fatalf("usage: exitcode N PROG ARGS...")
		}
		want, err := strconv.Atoi(args[0])
		if err != nil {
			ts.Fatalf("exitcode: %v", err)
		}
		err = ts.Exec(args[1], args[2:]...)
		got := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			got = ee.ExitCode()
		} else if err != nil {
			ts.Fatalf("exitcode: %v", err)
		}
		if got != want {
			ts.Fatalf("%s exited %d, want %d", args[1], got, want)
		}
	}
}
