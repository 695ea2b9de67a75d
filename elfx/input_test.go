package elfx

import (
	"fmt"
	"os"
	"syscall"
	"testing"

	"github.com/abifloor/abifloor/internal/input"
)

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
		{"a.so", &input.FileError{Path: "a.so", Err: fe}, "malformed ELF: bad"},
		{"a.so", &input.FileError{Path: "a.so", Err: fmt.Errorf("reading symbols: %w", fe)}, "reading symbols: malformed ELF: bad"},
		{"a.so", &input.FileError{Path: "b.so", Err: fe}, "b.so: malformed ELF: bad"},
		{"a.so", &input.FileError{Path: "a.so", Err: &os.PathError{Op: "open", Path: "a.so", Err: syscall.EACCES}}, "open: permission denied"},
		// The path is said once, by the report, only where the error is
		// that file's: a message that merely starts with it is kept whole.
		{"a.so", fmt.Errorf("a.so: %w", fe), "a.so: malformed ELF: bad"},
		{"a.so", fe, "malformed ELF: bad"},
	} {
		if got := Message(tc.path, tc.err); got != tc.want {
			t.Errorf("Message(%q, %v) = %q, want %q", tc.path, tc.err, got, tc.want)
		}
	}
}
