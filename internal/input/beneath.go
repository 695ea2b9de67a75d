package input

import (
	"errors"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrOutside is wrapped by OpenBeneath's error for a name that would
// leave its root (a ".." or a symbolic link on the way).
var ErrOutside = errors.New("path leaves its root or goes through a symbolic link")

// OpenBeneath opens name ("blobs/sha256/ab...", relative, "/"-separated)
// for reading inside the directory root, never leaving it: no component
// may be "..", and none (the root itself aside) may be a symbolic link.
// It uses openat2 with RESOLVE_BENEATH and RESOLVE_NO_SYMLINKS where the
// kernel has it (Linux 5.6), else it walks component by component with
// O_NOFOLLOW. The file is opened O_NONBLOCK, so a FIFO does not block;
// the caller checks it is regular.
func OpenBeneath(root, name string) (*os.File, error) {
	for _, c := range strings.Split(name, "/") {
		if c == ".." {
			return nil, &os.PathError{Op: "open", Path: root + "/" + name, Err: ErrOutside}
		}
	}
	dir, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: root, Err: err}
	}
	defer unix.Close(dir)
	fd, err := beneath2(dir, name)
	// No openat2 (ENOSYS), or a seccomp filter refusing it (EPERM).
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		fd, err = beneathWalk(dir, name)
	}
	if errors.Is(err, unix.EXDEV) || errors.Is(err, unix.ELOOP) {
		err = ErrOutside
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: root + "/" + name, Err: err}
	}
	return os.NewFile(uintptr(fd), root+"/"+name), nil
}

func beneath2(dir int, name string) (int, error) {
	how := unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	for {
		fd, err := unix.Openat2(dir, name, &how)
		if err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		return fd, err
	}
}

// beneathWalk is OpenBeneath without openat2: each directory is opened
// with O_NOFOLLOW|O_DIRECTORY from the one before, so no component is
// followed as a link.
func beneathWalk(dir int, name string) (int, error) {
	parts := strings.Split(name, "/")
	cur := dir
	for i, c := range parts {
		if c == "" || c == "." {
			continue
		}
		last := i == len(parts)-1
		flags := unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_CLOEXEC
		if last {
			flags |= unix.O_NONBLOCK
		} else {
			flags |= unix.O_DIRECTORY
		}
		fd, err := unix.Openat(cur, c, flags, 0)
		if cur != dir {
			unix.Close(cur)
		}
		if err != nil {
			return -1, err
		}
		if last {
			return fd, nil
		}
		cur = fd
	}
	if cur != dir {
		unix.Close(cur)
	}
	return -1, unix.EISDIR
}
