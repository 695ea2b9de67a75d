package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

// An interrupted build exits 2, says incomplete and how far it got, writes
// no table file, and its JSON says "incomplete": true (issue 17, item 1).
func TestRangesInterrupted(t *testing.T) {
	dir := t.TempDir()
	for _, v := range []string{"v1", "v2"} {
		os.MkdirAll(filepath.Join(dir, v), 0o755)
		os.WriteFile(filepath.Join(dir, v, "s.h"), []byte("struct s { int a; };\n"), 0o644)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, format := range []string{"text", "json"} {
		var stdout, stderr bytes.Buffer
		env := &cmdEnv{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
		out := filepath.Join(dir, "t-"+format)
		code := run(ctx, env, []string{"ranges", "build", "--no-cache", "--dir", "1.0=" + filepath.Join(dir, "v1"), "--dir", "2.0=" + filepath.Join(dir, "v2"),
			"--header", "s.h", "--type", "struct s", "--format", format, "-o", out})
		if code != exitError || !strings.Contains(stderr.String(), "abifloor ranges build: incomplete: interrupted after 0 of the 2 versions found") {
			t.Errorf("%s: exit %d, stderr %q", format, code, stderr.String())
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: an interrupted build wrote %s", format, out)
		}
		if format == "json" && !strings.Contains(stdout.String(), `"incomplete": true`) {
			t.Errorf("json: %q", stdout.String())
		}
		if strings.Contains(stdout.String()+stderr.String(), "OK") {
			t.Errorf("%s: says OK", format)
		}
	}
}
