package bind

import (
	"io"
	"io/fs"
	"os"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/input"
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
	open(p string, head, buf []byte) (openFile, error)
}

// input is an open file: its contents, identity and first bytes.
type openFile struct {
	r    io.ReaderAt
	size int64
	key  fileKey
	head []byte
	done func()
	// obj or objErr, when set, is the file parsed already (an image's
	// ELF file, whose bytes are not held).
	obj    *object
	objErr error
}

func (in openFile) close() {
	if in.done != nil {
		in.done()
	}
}

func (in openFile) isELF() bool { return elfx.IsELF(in.head) }

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

func (hostFS) open(p string, head, buf []byte) (openFile, error) {
	in, err := input.Open(p, head, buf)
	if err != nil {
		return openFile{}, err
	}
	return openFile{r: in.FD, size: in.Size, key: fileKey{in.Dev, in.Ino}, head: in.Head, done: func() { in.Close() }}, nil
}
