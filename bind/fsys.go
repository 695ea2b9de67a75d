package bind

import (
	"io"
	"io/fs"
	"os"

	"github.com/abifloor/abifloor/elfx"
)

// fileSystem is what bind reads: the host's files (under a sysroot), or
// an image's layers held in memory (imageFS). Paths are host paths for
// the host, "/"-rooted paths inside the image for an image.
type fileSystem interface {
	// lstat says what p is without following a final link.
	lstat(p string) (mode fs.FileMode, size int64, err error)
	// stat is lstat following links (host paths only: an image's paths
	// reach it resolved).
	stat(p string) (mode fs.FileMode, size int64, err error)
	readlink(p string) (string, error)
	// open opens a regular file; the head is the caller's when given,
	// else read into buf. Errors are *fs.PathError values naming p.
	open(p string, head, buf []byte) (input, error)
}

// input is an open file: its contents, identity and first bytes.
type input struct {
	r    io.ReaderAt
	size int64
	key  fileKey
	head []byte
	done func()
}

func (in input) close() {
	if in.done != nil {
		in.done()
	}
}

func (in input) isELF() bool { return elfx.IsELF(in.head) }

// hostFS is this machine's file system.
type hostFS struct{}

func (hostFS) lstat(p string) (fs.FileMode, int64, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return 0, 0, err
	}
	return fi.Mode(), fi.Size(), nil
}

func (hostFS) stat(p string) (fs.FileMode, int64, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return 0, 0, err
	}
	return fi.Mode(), fi.Size(), nil
}

func (hostFS) readlink(p string) (string, error) { return os.Readlink(p) }

func (hostFS) open(p string, head, buf []byte) (input, error) {
	in, err := elfx.OpenInput(p, head, buf)
	if err != nil {
		return input{}, err
	}
	return input{r: in.FD, size: in.Size, key: fileKey{in.Dev, in.Ino}, head: in.Head, done: func() { in.Close() }}, nil
}
