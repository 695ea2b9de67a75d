package main

import (
	"os/exec"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// outerGoEnv is the go command's environment outside the script, so that a
// script building Go code reuses the build cache instead of rebuilding the
// standard library.
var outerGoEnv = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT").Output()
	if err != nil {
		return nil
	}
	f := strings.Split(strings.TrimSpace(string(out)), "\n")
	for i, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT"} {
		if i < len(f) {
			m[k] = f[i]
		}
	}
	return m
})

func init() {
	// goenv: set GOCACHE, GOMODCACHE, GOPATH and GOROOT as outside the script.
	scriptCmds["goenv"] = func(ts *testscript.TestScript, neg bool, args []string) {
		env := outerGoEnv()
		if env == nil {
			ts.Fatalf("go env failed")
		}
		for k, v := range env {
			ts.Setenv(k, v)
		}
	}
}
