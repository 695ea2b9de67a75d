package run

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func needLandlock(t *testing.T) {
	t.Helper()
	if _, err := Confinement(); err != nil {
		t.Skip(err)
	}
}

// A confined program opens what it was given and nothing else: not a
// file beside it, not /dev/zero, not a FIFO (whose open would block).
func TestConfine(t *testing.T) {
	needLandlock(t)
	ctx := context.Background()
	in, out, outside := t.TempDir(), t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(in, "a"), []byte("inside\n"), 0o644)
	secret := filepath.Join(outside, "secret")
	os.WriteFile(secret, []byte("FAKESECRET\n"), 0o644)
	fifo := filepath.Join(outside, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	conf := &Confine{Read: []string{in}, Write: []string{out, os.DevNull}}
	tests := []struct {
		name    string
		cmd     Cmd
		want    string // stdout
		errText string
	}{
		{name: "read inside", cmd: Cmd{Path: "cat", Args: []string{filepath.Join(in, "a")}}, want: "inside\n"},
		{name: "read outside", cmd: Cmd{Path: "cat", Args: []string{secret}}, errText: "Permission denied"},
		{name: "dev zero", cmd: Cmd{Path: "head", Args: []string{"-c", "10", "/dev/zero"}}, errText: "Permission denied"},
		{name: "fifo", cmd: Cmd{Path: "cat", Args: []string{fifo}}, errText: "Permission denied"},
		{name: "write inside", cmd: Cmd{Path: "sh", Args: []string{"-c", "echo x > " + out + "/w && read l < " + out + "/w && echo $l && echo y >/dev/null"}}, want: "x\n"},
		{name: "write outside", cmd: Cmd{Path: "sh", Args: []string{"-c", "echo x > " + in + "/w"}}, errText: "Permission denied"},
		{name: "no fifo made", cmd: Cmd{Path: "mkfifo", Args: []string{out + "/p"}}, errText: "Permission denied"},
		// Only the program itself is executable.
		{name: "exec outside", cmd: Cmd{Path: "sh", Args: []string{"-c", "cat " + filepath.Join(in, "a")}}, errText: "Permission denied"},
		// Through sh, which sets the memory limit: still confined.
		{name: "limited", cmd: Cmd{Path: "cat", Args: []string{secret}, MaxMemory: 256 << 20}, errText: "Permission denied"},
		{name: "limited inside", cmd: Cmd{Path: "cat", Args: []string{filepath.Join(in, "a")}, MaxMemory: 256 << 20}, want: "inside\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cmd.Confine = conf
			tt.cmd.Timeout = 30 * time.Second // the FIFO would hang until then
			res, err := tt.cmd.Run(ctx)
			if tt.errText != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("err = %v, want %q", err, tt.errText)
				}
				if errors.Is(err, ErrTimeout) || strings.Contains(err.Error(), "FAKESECRET") {
					t.Errorf("err = %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Stdout) != tt.want {
				t.Errorf("stdout = %q, want %q", res.Stdout, tt.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(in, "w")); err == nil {
		t.Error("the confined program wrote outside its write list")
	}
}

// The restriction stays on the thread that started the program: the rest
// of abifloor, and the programs it starts unconfined, still read what
// they like, during confined runs and after them.
func TestConfineThreadOnly(t *testing.T) {
	needLandlock(t)
	ctx := context.Background()
	in, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret")
	os.WriteFile(secret, []byte("FAKESECRET\n"), 0o644)
	conf := &Confine{Read: []string{in}}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i := 0; i < 8; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if _, err := (Cmd{Path: "cat", Args: []string{secret}, Confine: conf}).Run(ctx); err == nil {
				errs <- errors.New("a confined cat read the secret")
			}
		}()
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				if _, err := os.ReadFile(secret); err != nil {
					errs <- err
				}
			}
			if r, err := (Cmd{Path: "cat", Args: []string{secret}}).Run(ctx); err != nil || string(r.Stdout) != "FAKESECRET\n" {
				errs <- errors.New("an unconfined cat could not read: " + errString(err))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// After: every thread left can read and start programs that read.
	var wg2 sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg2.Add(1)
		go func() {
			defer wg2.Done()
			if _, err := os.ReadFile(secret); err != nil {
				t.Error(err)
			}
		}()
	}
	wg2.Wait()
	if r, err := (Cmd{Path: "cat", Args: []string{secret}}).Run(ctx); err != nil || string(r.Stdout) != "FAKESECRET\n" {
		t.Errorf("unconfined after: %v %q", err, r.Stdout)
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// A stream runs confined too, and its thread lives until it ends: the
// kernel sends Pdeathsig when the thread that started the child ends,
// not the process. Four in a row: a goroutine that exits locked on the
// main thread wedges it rather than ending it, and would hide the bug.
func TestConfineStream(t *testing.T) {
	needLandlock(t)
	sleep, err := LookPath("sleep")
	if err != nil {
		t.Skip(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Cmd{Path: "sh", Args: []string{"-c", "sleep 0.5 && echo done"}, Confine: &Confine{Exec: []string{sleep}}}.Stream(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			b := make([]byte, 10)
			n, _ := io.ReadFull(s, b[:5])
			if string(b[:n]) != "done\n" {
				t.Errorf("read %q, want the program to outlive its start", b[:n])
			}
			if err := s.Wait(); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
}

// Without Landlock a confined program runs as it did before, and
// Confinement says why.
func TestConfineFallback(t *testing.T) {
	restore := WithoutLandlock()
	defer restore()
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	os.WriteFile(secret, []byte("x\n"), 0o644)
	r, err := Cmd{Path: "cat", Args: []string{secret}, Confine: &Confine{}}.Run(context.Background())
	if err != nil || string(r.Stdout) != "x\n" {
		t.Errorf("unconfined fallback: %v %q", err, r.Stdout)
	}
	if _, err := Confinement(); !errors.Is(err, ErrNoLandlock) {
		t.Errorf("Confinement() = %v, want ErrNoLandlock", err)
	}
}
