package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"abifloor": func() { os.Exit(Main()) },
	})
}

// TestScripts runs the end-to-end CLI tests in testdata/script. Each script
// is a short manual page: the command, its output and its exit code.
func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams())
}
