package elfx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpenInput: a regular file is opened with its head; anything else is
// refused with ErrNotRegular, without blocking on a FIFO.
func TestOpenInput(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "reg")
	os.WriteFile(reg, []byte("\x7fELFxyz"), 0o644)
	in, err := OpenInput(reg, nil, make([]byte, 4))
	if err != nil || string(in.Head) != "\x7fELF" || in.Size != 7 || !in.IsELF() {
		t.Fatalf("regular file: %+v, %v", in, err)
	}
	in.Close()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, dir} {
		_, err := OpenInput(p, nil, make([]byte, 64))
		var pe *os.PathError
		if !errors.Is(err, ErrNotRegular) || !errors.As(err, &pe) || pe.Path != p {
			t.Errorf("%s: %v, want a *os.PathError for ErrNotRegular", p, err)
		}
	}
}

func TestMessage(t *testing.T) {
	fe := &FormatError{Off: -1, Msg: "bad"}
	for _, tc := range []struct {
		path string
		err  error
		want string
	}{
		{"a.so", nil, ""},
		{"a.so", &os.PathError{Op: "open", Path: "a.so", Err: syscall.EACCES}, "open: permission denied"},
		{"a.so", &os.PathError{Op: "open", Path: "/other", Err: syscall.EACCES}, "open /other: permission denied"},
		{"a.so", fmt.Errorf("a.so: %w", fe), "malformed ELF: bad"},
		{"a.so", fmt.Errorf("a.so: reading symbols: %w", fe), "reading symbols: malformed ELF: bad"},
		{"a.so", fe, "malformed ELF: bad"},
	} {
		if got := Message(tc.path, tc.err); got != tc.want {
			t.Errorf("Message(%q, %v) = %q, want %q", tc.path, tc.err, got, tc.want)
		}
	}
}
