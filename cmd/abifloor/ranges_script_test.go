package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() {
	// corrupt DIR flips a byte in the middle of every .json file under
	// DIR: ranges' cache entries stay well-formed JSON of the same shape
	// or break, and either way must not be trusted.
	scriptCmds["corrupt"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: corrupt DIR")
		}
		n := 0
		err := filepath.WalkDir(ts.MkAbs(args[0]), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b[len(b)/2] ^= 0x01
			n++
			return os.WriteFile(p, b, 0o644)
		})
		if err != nil {
			ts.Fatalf("corrupt: %v", err)
		}
		if n == 0 {
			ts.Fatalf("corrupt: no .json file under %s", args[0])
		}
	}
}
