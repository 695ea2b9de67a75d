package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
)

func TestSizeFlag(t *testing.T) {
	for in, want := range map[string]int64{"1": 1, "512M": 512 << 20, "300MB": 300 << 20, "1GiB": 1 << 30, "2g": 2 << 30, "64k": 64 << 10} {
		var s sizeFlag
		if err := s.Set(in); err != nil || int64(s) != want {
			t.Errorf("Set(%q) = %d, %v; want %d", in, s, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1", "M", "1X", "1.5G", "99999999999T", "1 G"} {
		var s sizeFlag
		if err := s.Set(in); err == nil {
			t.Errorf("Set(%q) = %d, want an error", in, s)
		}
	}
}

// A run cut short never passes (issue 17 item 1): scan, check and fit
// with a cancelled context exit 2, say how far they got, never print OK,
// and their JSON says "incomplete": true.
func TestInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, args := range [][]string{
		{"check", "--max", "GLIBC=9.99", "/usr/bin"},
		{"check", "--max", "GLIBC=9.99", "--format", "json", "/usr/bin"},
		{"scan", "/usr/bin"},
		{"scan", "--format", "json", "/usr/bin"},
		{"fit", "/usr/bin"},
		{"fit", "--format", "json", "/usr/bin"},
	} {
		var stdout, stderr bytes.Buffer
		env := &cmdEnv{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
		code := commands[args[0]].run(ctx, env, args[1:])
		if code != exitError {
			t.Errorf("%v: exit %d, want %d", args, code, exitError)
		}
		if !strings.Contains(stderr.String(), "abifloor "+args[0]+": incomplete: interrupted after ") {
			t.Errorf("%v: stderr %q", args, stderr.String())
		}
		if strings.Contains(stdout.String(), "OK") {
			t.Errorf("%v: stdout says OK:\n%s", args, stdout.String())
		}
		if slices.Contains(args, "json") && !strings.Contains(stdout.String(), `"incomplete": true`) {
			t.Errorf("%v: JSON without \"incomplete\": true:\n%.400s", args, stdout.String())
		}
	}
}
