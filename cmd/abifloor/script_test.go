package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/rogpeppe/go-internal/testscript"
)

// scriptCmds and scriptConds let each sub-command's test file add the
// helpers its scripts need (from an init function) without editing this file.
var (
	scriptCmds  = map[string]func(ts *testscript.TestScript, neg bool, args []string){}
	scriptConds = map[string]func() bool{}
)

func init() {
	// exitcode N PROG ARGS... runs PROG like exec and checks that it
	// exits with exactly N. It is the one way scripts run abifloor and
	// state its exit code, 0 included: `! exec` would accept 2 where a
	// script means 1 ("could not read a file" for "violation"). The only
	// other form is `exec abifloor ... &`, for runs that must overlap,
	// whose `wait` fails on any non-zero exit.
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

func scriptParams() testscript.Params {
	return testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Cmds:                scriptCmds,
		Setup: func(e *testscript.Env) error {
			e.Setenv("NO_COLOR", "1")
			e.Setenv("GOARCH", runtime.GOARCH)
			// $REPO is the module's root, for scripts that run the
			// repository's own files (the GitHub Action's step).
			if root, err := filepath.Abs("../.."); err == nil {
				e.Setenv("REPO", root)
			}
			return nil
		},
		Condition: func(cond string) (bool, error) {
			// [have:TOOL] is true when TOOL is on PATH; scripts use it to
			// skip with a reason (skip 'gcc is not installed').
			if tool, ok := strings.CutPrefix(cond, "have:"); ok {
				return haveTool(tool), nil
			}
			if f, ok := scriptConds[cond]; ok {
				return f(), nil
			}
			return false, &unknownCond{cond}
		},
	}
}

// proxies are tools that may be on PATH without working: rustup installs
// cargo and rustc as proxies that fail when no toolchain is chosen (a
// fresh HOME). They count as present only when TOOL --version succeeds.
var proxies = map[string]bool{"cargo": true, "rustc": true}

func haveTool(tool string) bool {
	if !fixture.Have(tool) {
		return false // absent, or not run in the fast tier (-short)
	}
	if !proxies[tool] {
		return true
	}
	ok, _ := toolWorks.LoadOrStore(tool, sync.OnceValue(func() bool {
		return exec.Command(tool, "--version").Run() == nil
	}))
	return ok.(func() bool)()
}

var toolWorks sync.Map

type unknownCond struct{ name string }

func (e *unknownCond) Error() string { return "unknown condition " + e.name }

// TestScriptIndex keeps testdata/script/README.md, the index of the
// commands and conditions scripts may use, equal to what init registers.
func TestScriptIndex(t *testing.T) {
	b, err := os.ReadFile("testdata/script/README.md")
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		name := strings.Fields(strings.Trim(strings.SplitN(line, "`", 3)[1], "[]"))[0]
		if name == "have:TOOL" {
			continue
		}
		listed[name] = true
	}
	registered := map[string]bool{}
	for name := range scriptCmds {
		registered[name] = true
	}
	for name := range scriptConds {
		registered[name] = true
	}
	for name := range registered {
		if !listed[name] {
			t.Errorf("script command or condition %q is registered but not in testdata/script/README.md", name)
		}
	}
	for name := range listed {
		if !registered[name] {
			t.Errorf("testdata/script/README.md lists %q, which nothing registers", name)
		}
	}
}
