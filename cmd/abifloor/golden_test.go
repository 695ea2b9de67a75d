package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.golden from this run")

// TestGolden runs abi dump and diff on libraries compiled now from the
// fixtures of packages abi and abidiff (or, in the fast tier, on their
// committed copies), and compares their output, text and
// JSON, with testdata/golden/NAME.golden: the review of an output change is
// the diff of a golden file (go test ./cmd/abifloor -run Golden -update).
// What depends on the compiler's version is normalised: fingerprints and
// the sizes of function symbols. Types and layouts are those of x86-64, so
// other hosts skip.
func TestGolden(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("golden files are x86-64 layouts")
	}
	// The fast tier (-short, or no gcc) reads the committed copies of
	// the same libraries (testdata/fast, built by its build.sh): the
	// goldens hold for both.
	fast := !fixture.Have("gcc") // absent, or -short
	dir := t.TempDir()
	if fast {
		var err error
		if dir, err = filepath.Abs(filepath.Join("testdata", "fast")); err != nil {
			t.Fatal(err)
		}
	}
	cc := func(out, src string, flags ...string) string {
		t.Helper()
		p := filepath.Join(dir, out)
		if fast {
			return p
		}
		args := append([]string{"-shared", "-fPIC", "-g", "-O0", "-o", p, src}, flags...)
		if b, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
			t.Fatalf("gcc %v: %v\n%s", args, err, b)
		}
		return p
	}
	fix := cc("libfix.so", filepath.Join("..", "..", "abi", "abiread", "testdata", "fix.c"))
	lib := func(v string) string {
		src := filepath.Join("..", "..", "abidiff", "testdata", v)
		return cc("lib"+v+".so", src+".c", "-Wl,--version-script="+src+".map")
	}
	v1, v2 := lib("v1"), lib("v2")
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"abi_dump_text", []string{"abi", "dump", fix}, exitOK},
		{"abi_dump_json", []string{"abi", "dump", "--format", "json", fix}, exitOK},
		{"diff_text", []string{"diff", v1, v2}, diffChange | diffIncompatible},
		{"diff_json", []string{"diff", "--format", "json", v1, v2}, diffChange | diffIncompatible},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			env := &cmdEnv{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
			if code := run(context.Background(), env, tc.args); code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", code, tc.code, stderr.String())
			}
			got := normalise(stdout.String(), dir)
			golden := filepath.Join("testdata", "golden", tc.name+".golden")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("output differs from %s (run with -update and review the diff):\n%s", golden, got)
			}
		})
	}
}

var (
	fingerprintRE = regexp.MustCompile(`sha256:[0-9a-f]{64}`)
	funcSizeRE    = regexp.MustCompile(`^(      "size": )\d+,$`)
)

// normalise takes out what depends on the host: the temporary directory,
// fingerprints, and the size of each function symbol (its code).
func normalise(out, dir string) string {
	out = strings.ReplaceAll(out, dir, "$DIR")
	out = fingerprintRE.ReplaceAllString(out, "sha256:FINGERPRINT")
	lines := strings.Split(out, "\n")
	inFunc := false
	for i, l := range lines {
		switch {
		case l == `      "kind": "func",` || l == `      "kind": "ifunc",`:
			inFunc = true
		case inFunc && funcSizeRE.MatchString(l):
			lines[i] = funcSizeRE.ReplaceAllString(l, "${1}FUNC_SIZE,")
			inFunc = false
		case strings.HasPrefix(l, "    }"):
			inFunc = false
		}
	}
	return strings.Join(lines, "\n")
}
