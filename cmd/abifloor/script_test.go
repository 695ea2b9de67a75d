package main

import (
	"os/exec"
	"runtime"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// scriptCmds and scriptConds let each sub-command's test file add the
// helpers its scripts need (from an init function) without editing this file.
var (
	scriptCmds  = map[string]func(ts *testscript.TestScript, neg bool, args []string){}
	scriptConds = map[string]func() bool{}
)

func scriptParams() testscript.Params {
	return testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Cmds:                scriptCmds,
		Setup: func(e *testscript.Env) error {
			e.Setenv("NO_COLOR", "1")
			e.Setenv("GOARCH", runtime.GOARCH)
			return nil
		},
		Condition: func(cond string) (bool, error) {
			// [have:TOOL] is true when TOOL is on PATH; scripts use it to
			// skip with a reason (skip 'gcc is not installed').
			if tool, ok := strings.CutPrefix(cond, "have:"); ok {
				_, err := exec.LookPath(tool)
				return err == nil, nil
			}
			if f, ok := scriptConds[cond]; ok {
				return f(), nil
			}
			return false, &unknownCond{cond}
		},
	}
}

type unknownCond struct{ name string }

func (e *unknownCond) Error() string { return "unknown condition " + e.name }
