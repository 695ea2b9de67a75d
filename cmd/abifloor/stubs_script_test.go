package main

import (
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	// [amd64]: the host runs x86_64 code.
	scriptConds["amd64"] = func() bool { return runtime.GOARCH == "amd64" }
	// entries DIR N: the cache DIR holds N entries and no temporary
	// directory.
	scriptCmds["entries"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: entries DIR N")
		}
		ents, err := os.ReadDir(ts.MkAbs(args[0]))
		ts.Check(err)
		n := 0
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".tmp-") {
				ts.Fatalf("temporary directory left: %s", e.Name())
			}
			if e.IsDir() && e.Name() != "locks" {
				n++
			}
		}
		if want, _ := strconv.Atoi(args[1]); (n == want) == neg {
			ts.Fatalf("%d entries, want %s", n, args[1])
		}
	}
}
