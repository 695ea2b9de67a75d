// Package deptest holds a package to its dependencies in a test: which
// packages it may pull, with `go list -deps`.
package deptest

import (
	"context"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/internal/run"
)

// module is this module's path: its packages are not third-party.
const module = "github.com/abifloor/abifloor"

// Check fails t when pkg (a pattern such as "." or "../abi") depends on a
// package outside the standard library and this module, or on one of
// forbidden (import paths, exact). It skips when no go command is on PATH.
func Check(t *testing.T, pkg string, forbidden ...string) {
	t.Helper()
	check(t, pkg, false, forbidden)
}

// StdOnly fails t when pkg depends on any package but the standard
// library's.
func StdOnly(t *testing.T, pkg string) {
	t.Helper()
	check(t, pkg, true, nil)
}

func check(t *testing.T, pkg string, stdOnly bool, forbidden []string) {
	t.Helper()
	gobin, err := run.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	out, err := run.Output(context.Background(), gobin, "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}}", pkg)
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	bad := map[string]bool{}
	for _, f := range forbidden {
		bad[f] = true
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for i, l := range lines {
		path, std, _ := strings.Cut(l, " ")
		switch {
		case i == len(lines)-1:
			// go list -deps lists pkg itself last.
		case stdOnly && std != "true":
			t.Errorf("%s depends on %s, outside the standard library", pkg, path)
		case bad[path]:
			t.Errorf("%s depends on %s", pkg, path)
		case std != "true" && path != module && !strings.HasPrefix(path, module+"/"):
			t.Errorf("%s depends on %s, outside the standard library and this module", pkg, path)
		}
	}
	t.Logf("%s: %d packages", pkg, len(lines))
}

// Readers are the packages that read files and formats: what the model
// and the comparison must not pull.
var Readers = []string{
	"debug/elf", "debug/dwarf", "os/exec",
	module + "/elfx", module + "/artefact", module + "/internal/run", module + "/internal/input",
	module + "/abi/abiread", module + "/abi/abimember",
}
