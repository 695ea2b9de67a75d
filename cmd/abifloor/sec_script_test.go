package main

import (
	"os"
	"strconv"
	"syscall"

	"github.com/abifloor/abifloor/internal/hostile"
	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	// mkfifo FILE makes a named pipe: commands must refuse it, not block.
	scriptCmds["mkfifo"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: mkfifo FILE")
		}
		ts.Check(syscall.Mkfifo(ts.MkAbs(args[0]), 0o644))
	}
	// debugbomb FILE CLAIM REAL writes an executable whose zstd-compressed
	// .debug_info claims CLAIM bytes and really expands to REAL bytes.
	scriptCmds["debugbomb"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 3 {
			ts.Fatalf("usage: debugbomb FILE CLAIM REAL")
		}
		claim, err := strconv.ParseUint(args[1], 10, 64)
		ts.Check(err)
		real, err := strconv.ParseInt(args[2], 10, 64)
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), hostile.DebugBomb(claim, real), 0o644))
	}
}
