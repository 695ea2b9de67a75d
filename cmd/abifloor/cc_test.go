package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/abifloor/abifloor/internal/interrupt"
)

// An interrupted cold `cc` says so in one line, not one error per stub
// build in flight with its temporary paths (issue 29, item 8), and the
// cache holds no half-built entry.
func TestCCInterruptedOneLine(t *testing.T) {
	fixture.Need(t, "gcc")
	dir := t.TempDir()
	src := filepath.Join(dir, "hi.c")
	if err := os.WriteFile(src, []byte("int main(void) { return 0; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(&interrupt.Error{Signal: syscall.SIGINT})
	var stdout, stderr bytes.Buffer
	env := &cmdEnv{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	args := []string{"cc", "--glibc", "2.17", "--cache-dir", cache, "--", "gcc", "-o", filepath.Join(dir, "hi"), src}
	code := interruptedExit(ctx, env, args, run(ctx, env, args))
	if code != exitError {
		t.Errorf("exit %d, want 2", code)
	}
	if got := stderr.String(); got != "abifloor cc: incomplete: interrupted by SIGINT; the cache is intact\n" {
		t.Errorf("stderr:\n%s", got)
	}
	entries, _ := os.ReadDir(cache)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("cache keeps %s after the interrupt", e.Name())
		}
	}
}
