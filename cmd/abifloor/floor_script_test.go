package main

import (
	"os"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	// mkfifo PATH: a named pipe, which scan must never open.
	scriptCmds["mkfifo"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 1 {
			ts.Fatalf("usage: mkfifo PATH")
		}
		err := syscall.Mkfifo(ts.MkAbs(args[0]), 0o644)
		if neg != (err != nil) {
			ts.Fatalf("mkfifo: %v", err)
		}
	}
	// [root]: permission bits do not stop root from reading a file.
	scriptConds["root"] = func() bool { return os.Geteuid() == 0 }
}
