// Package input is how abifloor opens a file it was given to read: one
// open that refuses anything but a regular file (a FIFO would block, a
// device may never end), one fstat, at most one read of the head, and a
// descriptor read with pread. ELF files, archives, JSON tables,
// suppression files and cache entries all come in through it.
package input

import (
	"errors"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// ErrNotRegular is the error, wrapped in an *os.PathError, for a FIFO,
// socket, device or directory where a file to read was expected. Such
// files are never read: a FIFO would block, a device may never end.
var ErrNotRegular = errors.New("not a regular file")

// File is a regular file open for reading, with what fstat said of it
// and its first bytes. It is how every abifloor package opens a file to
// read: one open, one fstat, at most one read of the head.
type File struct {
	FD   FD
	Path string
	Size int64
	// Dev and Ino identify the file; Links is its hard-link count.
	Dev, Ino, Links uint64
	// Head is the start of the file (shorter for a short file).
	Head []byte
}

// Open opens path and refuses anything but a regular file. The head
// is the caller's when given (a tree walker has read it already), else it
// is read into buf. O_NONBLOCK keeps a FIFO swapped in after a check from
// blocking the open. Errors are *os.PathError values naming path.
func Open(path string, head, buf []byte) (File, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if err != nil {
		return File{}, &os.PathError{Op: "open", Path: path, Err: err}
	}
	in := File{FD: FD(fd), Path: path}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		in.Close()
		return File{}, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		in.Close()
		return File{}, &os.PathError{Op: "open", Path: path, Err: ErrNotRegular}
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
		return File{}, &os.PathError{Op: "read", Path: path, Err: err}
	}
	in.Head = buf[:n]
	return in, nil
}

// Close closes the descriptor.
func (in File) Close() error { return unix.Close(int(in.FD)) }

// FileError is an error of reading the file at Path. A report that shows
// the path beside the error says Err alone (elfx.Message), without the
// path twice.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }
