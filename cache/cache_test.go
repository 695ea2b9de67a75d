package cache

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// build writes an entry of many files slowly, and counts itself in
// builds.log (appends of one short line are atomic).
func build(count string) func(tmp, final string) error {
	return func(tmp, final string) error {
		f, err := os.OpenFile(count, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		fmt.Fprintf(f, "build %d\n", os.Getpid())
		f.Close()
		for i := 0; i < 20; i++ {
			if err := os.WriteFile(filepath.Join(tmp, strconv.Itoa(i)), []byte("data"), 0o644); err != nil {
				return err
			}
			time.Sleep(time.Millisecond)
		}
		return nil
	}
}

// complete reports whether an entry has every file build writes.
func complete(dir string) error {
	for i := 0; i < 20; i++ {
		b, err := os.ReadFile(filepath.Join(dir, strconv.Itoa(i)))
		if err != nil || string(b) != "data" {
			return fmt.Errorf("%s: file %d: %v %q", dir, i, err, b)
		}
	}
	return nil
}

func builds(t *testing.T, count string) int {
	b, err := os.ReadFile(count)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range b {
		if c == '\n' {
			n++
		}
	}
	return n
}

// TestHelperProcess is one racing builder when re-executed by TestProcesses.
func TestHelperProcess(t *testing.T) {
	dir := os.Getenv("CACHE_TEST_DIR")
	if dir == "" {
		t.Skip("helper process")
	}
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Get(context.Background(), "key", build(filepath.Join(dir, "..", "builds.log")))
	if err != nil {
		t.Fatal(err)
	}
	if err := complete(p); err != nil {
		t.Fatal(err)
	}
}

func TestProcesses(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "cache")
	var cmds []*exec.Cmd
	for i := 0; i < 8; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
		cmd.Env = append(os.Environ(), "CACHE_TEST_DIR="+dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("builder: %v", err)
		}
	}
	if n := builds(t, filepath.Join(root, "builds.log")); n != 1 {
		t.Errorf("%d builds, want 1", n)
	}
}

func TestGoroutines(t *testing.T) {
	root := t.TempDir()
	c, err := Open(filepath.Join(root, "cache"))
	if err != nil {
		t.Fatal(err)
	}
	count := filepath.Join(root, "builds.log")
	var wg sync.WaitGroup
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := c.Get(context.Background(), "key", build(count))
			if err == nil {
				err = complete(p)
			}
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := builds(t, count); n != 1 {
		t.Errorf("%d builds, want 1", n)
	}
	// A failed build publishes nothing and leaves no temporary directory.
	_, err = c.Get(context.Background(), "other", func(tmp, final string) error { return fmt.Errorf("boom") })
	if err == nil {
		t.Fatal("failed build returned no error")
	}
	if _, err := os.Stat(c.Path("other")); !os.IsNotExist(err) {
		t.Errorf("failed build published: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(c.Dir, ".tmp-*")); len(left) > 0 {
		t.Errorf("temporary directories left: %v", left)
	}
}

func TestDefaultDir(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"ABIFLOOR_CACHE": "/c", "XDG_CACHE_HOME": "/x", "HOME": "/h"}, "/c"},
		{map[string]string{"XDG_CACHE_HOME": "/x", "HOME": "/h"}, "/x/abifloor"},
		{map[string]string{"XDG_CACHE_HOME": "rel", "HOME": "/h"}, "/h/.cache/abifloor"},
	} {
		if got, err := DefaultDir(env(tt.env)); err != nil || got != tt.want {
			t.Errorf("DefaultDir(%v) = %q, %v; want %q", tt.env, got, err, tt.want)
		}
	}
	if _, err := DefaultDir(env(nil)); err == nil {
		t.Error("no HOME: no error")
	}
}
