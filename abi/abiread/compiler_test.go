package abiread

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/abifloor/abifloor/internal/fixture"
)

// TestHeaderIncludesDevZero is #10 item 6: cc1 reading /dev/zero grew to
// 12 GB. Under the memory limit it stops with a clear error, and no
// process this test waited for grew past a generous bound.
func TestHeaderIncludesDevZero(t *testing.T) {
	fixture.Need(t, "gcc")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "zero.h"), []byte("#include \"/dev/zero\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Headers(context.Background(), HeaderOptions{CC: "gcc", Includes: []string{dir}, Headers: []string{"zero.h"}, Types: []string{"x"}, MaxMemory: 512 << 20})
	if err == nil || !strings.Contains(err.Error(), "over its memory limit of 536870912 bytes") {
		t.Fatalf("Headers = %v, want an error naming the memory limit", err)
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		t.Fatal(err)
	}
	if ru.Maxrss > 1<<20 { // kB
		t.Fatalf("a child process reached %d MB", ru.Maxrss>>10)
	}
}

// TestCompilerTimeout: a compiler that never ends is killed at the
// timeout with the process it started, and the error says so.
func TestCompilerTimeout(t *testing.T) {
	dir := t.TempDir()
	cc := filepath.Join(dir, "hangcc")
	script := "#!/bin/sh\nsleep 1000 &\necho $! > " + dir + "/child.pid\nsleep 1000\n"
	if err := os.WriteFile(cc, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Headers(context.Background(), HeaderOptions{CC: cc, Headers: []string{"x.h"}, Types: []string{"x"}, Timeout: 2 * time.Second})
	if !errors.Is(err, ErrCompilerTimeout) {
		t.Fatalf("Headers = %v, want a timeout", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid := strings.TrimSpace(string(b))
	for end := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		st, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil || strings.Contains(string(st), ") Z ") {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the compiler's child %s still runs", pid)
		}
	}
}
