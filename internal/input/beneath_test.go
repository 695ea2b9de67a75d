package input

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestOpenBeneath: a name is opened only inside its root, with openat2
// and with the component walk alike.
func TestOpenBeneath(t *testing.T) {
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(outside, "sha256"), 0o755)
	os.WriteFile(filepath.Join(outside, "sha256", "x"), []byte("secret"), 0o644)
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "blobs", "sha256"), 0o755)
	os.WriteFile(filepath.Join(root, "blobs", "sha256", "ok"), []byte("fine"), 0o644)
	os.Symlink(outside, filepath.Join(root, "evil"))                                                // a directory link out
	os.Symlink(filepath.Join(outside, "sha256", "x"), filepath.Join(root, "blobs", "sha256", "ln")) // a file link out
	os.Symlink("sha256", filepath.Join(root, "blobs", "inner"))                                     // a link that stays inside: still refused
	for _, walk := range []bool{false, true} {
		open := func(name string) (string, error) {
			var f *os.File
			var err error
			if walk {
				dir, _ := os.Open(root)
				defer dir.Close()
				var fd int
				fd, err = beneathWalk(int(dir.Fd()), name)
				if err == nil {
					f = os.NewFile(uintptr(fd), name)
				}
			} else {
				f, err = OpenBeneath(root, name)
			}
			if err != nil {
				return "", err
			}
			defer f.Close()
			b, err := io.ReadAll(f)
			return string(b), err
		}
		if got, err := open("blobs/sha256/ok"); err != nil || got != "fine" {
			t.Errorf("walk=%v: blobs/sha256/ok = %q, %v", walk, got, err)
		}
		for _, name := range []string{"evil/sha256/x", "blobs/sha256/ln", "blobs/inner/ok", "../" + filepath.Base(outside) + "/sha256/x"} {
			if walk && name[:2] == ".." {
				continue // OpenBeneath refuses ".." before either
			}
			if got, err := open(name); err == nil {
				t.Errorf("walk=%v: %s opened (%q), want a refusal", walk, name, got)
			}
		}
	}
	if _, err := OpenBeneath(root, "../x"); !errors.Is(err, ErrOutside) {
		t.Errorf("OpenBeneath(../x) = %v, want ErrOutside", err)
	}
	if _, err := OpenBeneath(root, "evil/sha256/x"); !errors.Is(err, ErrOutside) {
		t.Errorf("OpenBeneath(evil/...) = %v, want ErrOutside", err)
	}
}
