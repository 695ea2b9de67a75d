package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"abifloor": func() {
			code := Main()
			if os.Getenv("ABIFLOOR_TEST_PEAK") != "" {
				// For maxrss: the child's own peak, which its
				// rusage would mix with the forking test's.
				fmt.Fprintln(os.Stderr, fixture.PeakMemoryLine())
			}
			os.Exit(code)
		},
	})
}

// TestScripts runs the end-to-end CLI tests in testdata/script. Each script
// is a short manual page: the command, its output and its exit code.
func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams())
}
