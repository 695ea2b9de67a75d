package elfx

import (
	"errors"
	"os"
	"strings"
)

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
