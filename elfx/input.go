package elfx

import (
	"os"

	"github.com/abifloor/abifloor/internal/input"
)

// Message is the text of err for a report that already shows path beside
// it: an input.FileError or *os.PathError of that path says what went
// wrong without the path ("open: permission denied", "malformed ELF: ...").
func Message(path string, err error) string {
	if err == nil {
		return ""
	}
	if fe, ok := err.(*input.FileError); ok && fe.Path == path {
		err = fe.Err
	}
	if pe, ok := err.(*os.PathError); ok && pe.Path == path {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}
