package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		cmd     Cmd
		want    string // stdout
		wantErr error
		errText string
	}{
		{name: "output", cmd: Cmd{Path: "sh", Args: []string{"-c", "echo hi"}}, want: "hi\n"},
		{name: "exit", cmd: Cmd{Path: "sh", Args: []string{"-c", "echo oops >&2; exit 3"}}, errText: "sh failed: exit status 3\noops"},
		{name: "timeout", cmd: Cmd{Path: "sh", Args: []string{"-c", "sleep 30"}, Timeout: 200 * time.Millisecond}, wantErr: ErrTimeout},
		// A grandchild holding stdout open is killed with the group: the
		// run ends at the timeout, not after the grandchild's 30 s.
		{name: "group", cmd: Cmd{Path: "sh", Args: []string{"-c", "sleep 30 & sleep 30"}, Timeout: 200 * time.Millisecond}, wantErr: ErrTimeout},
		{name: "output capped", cmd: Cmd{Path: "sh", Args: []string{"-c", "yes | head -c 100000"}, MaxOutput: 1000}, wantErr: ErrOutputTooLarge},
		{name: "missing", cmd: Cmd{Path: "abifloor-no-such-program"}, errText: "abifloor-no-such-program failed: exec"},
		{name: "memory", cmd: Cmd{Path: "sh", Args: []string{"-c", "echo 'Cannot allocate memory' >&2; exit 1"}, MaxMemory: 64 << 20}, wantErr: ErrOverMemory},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			res, err := tt.cmd.Run(ctx)
			if time.Since(start) > 10*time.Second {
				t.Errorf("took %v", time.Since(start))
			}
			if tt.wantErr != nil || tt.errText != "" {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("err = %v, want an *Error", err)
				}
				if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
					t.Errorf("err = %v, want %v", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.errText) {
					t.Errorf("err = %q, want it to contain %q", err, tt.errText)
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
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := Cmd{Path: "sleep", Args: []string{"30"}}.Run(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestStream(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "in")
	os.WriteFile(f, []byte("abc"), 0o600)
	s, err := Cmd{Path: "cat", Args: []string{f}}.Stream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 10)
	n, _ := s.Read(b)
	if string(b[:n]) != "abc" {
		t.Errorf("read %q", b[:n])
	}
	if err := s.Wait(); err != nil {
		t.Error(err)
	}
	// Closed before the end: the program is killed, Close returns.
	s, err = Cmd{Path: "yes"}.Stream(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s.Read(b)
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end the program")
	}
}

// Started is called once, after the program's start and before Run waits
// for its end (the program waits here for a line the callback writes),
// and never for a program that did not start.
func TestRunStarted(t *testing.T) {
	ctx := context.Background()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	calls := 0
	res, err := Cmd{Path: "sh", Args: []string{"-c", `read line <"$0" && echo "$line"`, fifo}, Started: func() {
		calls++
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		f.WriteString("started\n")
		f.Close()
	}}.Run(ctx)
	if err != nil || string(res.Stdout) != "started\n" || calls != 1 {
		t.Errorf("Run: %q, %v, Started called %d times; want the callback's line, once", res.Stdout, err, calls)
	}
	calls = 0
	if _, err := (Cmd{Path: "abifloor-no-such-program", Started: func() { calls++ }}).Run(ctx); err == nil || calls != 0 {
		t.Errorf("a program that did not start: %v, Started called %d times", err, calls)
	}
}
