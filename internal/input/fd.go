package input

import (
	"errors"
	"io"

	"golang.org/x/sys/unix"
)

// FD reads a file descriptor with pread, without the bookkeeping of
// *os.File (poller registration, finalizer), which shows when opening a
// hundred thousand files. The caller owns and closes the descriptor.
type FD int

// ReadAt implements io.ReaderAt.
func (fd FD) ReadAt(b []byte, off int64) (int, error) {
	total := 0
	for total < len(b) {
		n, err := unix.Pread(int(fd), b[total:], off+int64(total))
		if err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return total, err
		}
		if n == 0 {
			return total, io.EOF
		}
		total += n
	}
	return total, nil
}

// Size is the size of the file fd reads.
func (fd FD) Size() (int64, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(fd), &st); err != nil {
		return 0, err
	}
	return st.Size, nil
}
