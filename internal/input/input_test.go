package input

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpen: a regular file is opened with its head; anything else is
// refused with ErrNotRegular, without blocking on a FIFO.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "reg")
	os.WriteFile(reg, []byte("\x7fELFxyz"), 0o644)
	in, err := Open(reg, nil, make([]byte, 4))
	if err != nil || string(in.Head) != "\x7fELF" || in.Size != 7 || string(in.Head[:4]) != "\x7fELF" {
		t.Fatalf("regular file: %+v, %v", in, err)
	}
	in.Close()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, dir} {
		_, err := Open(p, nil, make([]byte, 64))
		var pe *os.PathError
		if !errors.Is(err, ErrNotRegular) || !errors.As(err, &pe) || pe.Path != p {
			t.Errorf("%s: %v, want a *os.PathError for ErrNotRegular", p, err)
		}
	}
}
