package main

import (
	"bytes"
	"context"
	"go/doc"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestCheckExampleIsCLI holds floor's ExampleCheckResult_WriteJSON, a
// library caller of floor.Check, to abifloor check on the same input: the
// JSON document it prints is the CLI's byte for byte, and its verdict is
// the CLI's exit code.
func TestCheckExampleIsCLI(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "../../floor/example_test.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var want string
	for _, ex := range doc.Examples(f) {
		if ex.Name == "CheckResult_WriteJSON" {
			want = ex.Output
		}
	}
	doc, verdict, ok := strings.Cut(strings.TrimSpace(want), "\nverdict: ")
	if !ok {
		t.Fatalf("the example's output ends with no verdict:\n%s", want)
	}
	t.Chdir("../../floor")
	var stdout, stderr bytes.Buffer
	env := &cmdEnv{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	code := run(context.Background(), env, []string{"check", "--format", "json", "--max", "GLIBC=2.17", "--max", "GLIBCXX=3.4.19", "testdata/libgrow.so"})
	if got := strings.TrimSpace(stdout.String()); got != doc {
		t.Errorf("the CLI's JSON:\n%s\nthe example's:\n%s", got, doc)
	}
	if want := map[string]int{"ok": exitOK, "warn": exitOK, "fail": exitViolation, "error": exitError}[verdict]; code != want {
		t.Errorf("exit %d, the example's verdict %q (%d); stderr:\n%s", code, verdict, want, stderr.String())
	}
}
