package glibc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/abifloor/abifloor/cache"
)

// UntrustedDirError is an output directory another user could write to:
// they could replace the stubs before they are linked.
type UntrustedDirError struct {
	Dir    string
	Reason string
}

func (e *UntrustedDirError) Error() string {
	return fmt.Sprintf("%s: %s; refusing to write stubs there (another user could replace what gets linked)", e.Dir, e.Reason)
}

// ErrNotEmpty is wrapped when the output directory already holds files.
var ErrNotEmpty = errors.New("directory is not empty")

// InstallStubs writes the stubs of o into dir, a directory the user names:
// it is created when missing, must be empty, and must pass the cache's
// rule for its root (owned by this user, writable by no one else). The
// stubs are built in a private temporary directory (mode 0700) and moved
// in through a descriptor of dir opened once, so a link planted under one
// of their names while they build is replaced, never written through, and
// a directory swapped in for dir's path is never written. It returns dir
// resolved, the path the linker scripts name.
func InstallStubs(ctx context.Context, dir string, o StubOptions) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	fd, err := unix.Open(real, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", &os.PathError{Op: "open", Path: dir, Err: err}
	}
	out := os.NewFile(uintptr(fd), real)
	defer out.Close()
	if err := cache.OwnedDir(out); err != nil {
		return "", &UntrustedDirError{Dir: dir, Reason: err.Error()}
	}
	if ents, err := out.ReadDir(1); len(ents) > 0 || err != nil && err != io.EOF {
		if err == nil || err == io.EOF {
			err = ErrNotEmpty
		}
		return "", fmt.Errorf("%s: %w", dir, err)
	}
	tmp, err := os.MkdirTemp("", "abifloor-stubs-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	o.FinalDir = real
	if err := WriteStubs(ctx, tmp, o); err != nil {
		return "", err
	}
	if err := moveInto(tmp, out); err != nil {
		return "", fmt.Errorf("%s: %w", dir, err)
	}
	return real, nil
}

// moveInto moves every file of the private directory src into the open
// directory dst by name: rename when both are on one file system (it
// replaces whatever holds the name, a planted link included, and never
// follows it), else a copy created with O_EXCL|O_NOFOLLOW after the name
// is unlinked, which fails rather than follow a link planted in between.
func moveInto(src string, dst *os.File) error {
	sd, err := os.Open(src)
	if err != nil {
		return err
	}
	defer sd.Close()
	ents, err := sd.ReadDir(-1)
	if err != nil {
		return err
	}
	dfd, sfd := int(dst.Fd()), int(sd.Fd())
	for _, e := range ents {
		name := e.Name()
		err := unix.Renameat(sfd, name, dfd, name)
		if err == nil {
			continue
		}
		if !errors.Is(err, unix.EXDEV) {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := unix.Unlinkat(dfd, name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
			return fmt.Errorf("%s: %w", name, err)
		}
		switch t := e.Type(); {
		case t&os.ModeSymlink != 0:
			target, err := os.Readlink(filepath.Join(src, name))
			if err == nil {
				err = unix.Symlinkat(target, dfd, name)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		case t.IsRegular():
			if err := copyAt(filepath.Join(src, name), dfd, name); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		default:
			return fmt.Errorf("%s: not a regular file or link", name)
		}
	}
	return nil
}

// copyAt copies the regular file src to a new file name in the directory
// dfd, with src's permission bits.
func copyAt(src string, dfd int, name string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return err
	}
	fd, err := unix.Openat(dfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(fi.Mode().Perm()))
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), name)
	_, err = io.Copy(f, in)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
