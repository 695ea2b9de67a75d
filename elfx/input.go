package elfx

import (
	"errors"
	"os"
	"strings"

	"github.com/abifloor/abifloor/internal/input"
)

// FromInput reads the ELF headers of a file opened with input.Open
// (ErrNotELF when it is not one). The File reads through the input's
// descriptor: close the input after use.
func FromInput(in input.File) (*File, error) {
	if !IsELF(in.Head) {
		return nil, ErrNotELF
	}
	return NewFileHead(in.FD, in.Size, in.Head)
}

// FromInputScratch is FromInput reading through s's buffers
// (NewFileScratch).
func FromInputScratch(in input.File, s *Scratch) (*File, error) {
	if !IsELF(in.Head) {
		return nil, ErrNotELF
	}
	return NewFileScratch(in.FD, in.Size, in.Head, s)
}

// Message is the text of err for a report that already shows path beside
// it: the path that an *os.PathError or a "path: " prefix repeats is left
// out ("open: permission denied", "malformed ELF: ...").
func Message(path string, err error) string {
	if err == nil {
		return ""
	}
	msg := err.Error()
	var pe *os.PathError
	if errors.As(err, &pe) && pe.Path == path {
		msg = strings.Replace(msg, pe.Op+" "+path+": ", pe.Op+": ", 1)
	}
	if path != "" {
		msg = strings.TrimPrefix(msg, path+": ")
	}
	return msg
}
