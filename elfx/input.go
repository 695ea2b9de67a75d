package elfx

import (
	"errors"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrNotRegular is the error, wrapped in an *os.PathError, for a FIFO,
// socket, device or directory where a file to read was expected. Such
// files are never read: a FIFO would block, a device may never end.
var ErrNotRegular = errors.New("not a regular file")

// Input is a regular file open for reading, with what fstat said of it
// and its first bytes. It is how every abifloor package opens a file to
// read: one open, one fstat, at most one read of the head.
type Input struct {
	FD   FD
	Path string
	Size int64
	// Dev and Ino identify the file; Links is its hard-link count.
	Dev, Ino, Links uint64
	// Head is the start of the file (shorter for a short file).
	Head []byte
}

// OpenInput opens path and refuses anything but a regular file. The head
// is the caller's when given (a tree walker has read it already), else it
// is read into buf. O_NONBLOCK keeps a FIFO swapped in after a check from
// blocking the open. Errors are *os.PathError values naming path.
func OpenInput(path string, head, buf []byte) (Input, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if err != nil {
		return Input{}, &os.PathError{Op: "open", Path: path, Err: err}
	}
	in := Input{FD: FD(fd), Path: path}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		in.Close()
		return Input{}, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		in.Close()
		return Input{}, &os.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	in.Size, in.Dev, in.Ino, in.Links = st.Size, uint64(st.Dev), uint64(st.Ino), uint64(st.Nlink)
	if head != nil {
		in.Head = head[:min(int64(len(head)), in.Size)]
		return in, nil
	}
	// Read as much as buf holds whatever the size says: files of /proc
	// claim size 0, and reading them is what tells an error.
	n, err := in.FD.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		in.Close()
		return Input{}, &os.PathError{Op: "read", Path: path, Err: err}
	}
	in.Head = buf[:n]
	return in, nil
}

// Close closes the descriptor.
func (in Input) Close() error { return unix.Close(int(in.FD)) }

// IsELF reports whether the file starts with the ELF magic.
func (in Input) IsELF() bool { return IsELF(in.Head) }

// ELF reads the file's ELF headers (ErrNotELF when it is not one). The
// File reads through the Input's descriptor: close the Input after use.
func (in Input) ELF() (*File, error) {
	if !in.IsELF() {
		return nil, ErrNotELF
	}
	return NewFileHead(in.FD, in.Size, in.Head)
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
