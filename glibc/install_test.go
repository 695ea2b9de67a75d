package glibc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/abifloor/abifloor/internal/fixture"
)

// plantedNames are files InstallStubs writes for 2.17 on x86_64: the
// linker script, a library, a development link, the init object and the
// compat archive.
var plantedNames = []string{"libc.so", "libc.so.6", "libm.so", "libpthread.so.0", InitObject, "libabifloor_compat.a"}

// While the stubs build, another process plants each output name in the
// (empty, checked) directory as a link to a victim file: the stubs replace
// the links, and no victim changes (issue 28, item 7). Run with the build
// directory on the output's file system (rename) and, when /dev/shm is
// another one, across (copy with O_EXCL|O_NOFOLLOW).
func TestInstallStubsPlantedLinks(t *testing.T) {
	fixture.Compiler(t, "gcc")
	if HostArch() != "x86_64" {
		t.Skip("the stubs of this test are x86_64's")
	}
	root := t.TempDir()
	tmps := map[string]string{"rename": filepath.Join(root, "tmp")}
	if shm, err := os.MkdirTemp("/dev/shm", "abifloor-test-"); err == nil {
		defer os.RemoveAll(shm)
		var a, b syscall.Stat_t
		if syscall.Stat(shm, &a) == nil && syscall.Stat(root, &b) == nil && a.Dev != b.Dev {
			tmps["copy"] = shm
		}
	}
	for mode, tmp := range tmps {
		t.Run(mode, func(t *testing.T) {
			os.MkdirAll(tmp, 0o700)
			t.Setenv("TMPDIR", tmp)
			out := filepath.Join(root, mode+"-out")
			if err := os.Mkdir(out, 0o755); err != nil {
				t.Fatal(err)
			}
			victims := filepath.Join(root, mode+"-victims")
			os.Mkdir(victims, 0o755)
			for _, n := range plantedNames {
				if err := os.WriteFile(filepath.Join(victims, n), []byte("victim "+n+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var planted atomic.Int32
			done := make(chan struct{})
			go func() {
				defer close(done)
				// The build has started (the directory was found empty
				// and trusted) once its private directory exists.
				for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
					if ms, _ := filepath.Glob(filepath.Join(tmp, "abifloor-stubs-*")); len(ms) > 0 {
						break
					}
				}
				for _, n := range plantedNames {
					if os.Symlink(filepath.Join(victims, n), filepath.Join(out, n)) == nil {
						planted.Add(1)
					}
				}
			}()
			final, err := InstallStubs(context.Background(), out, StubOptions{Target: "2.17"})
			<-done
			if err != nil {
				t.Fatalf("InstallStubs: %v", err)
			}
			if planted.Load() == 0 {
				t.Fatal("no link was planted during the build: the test proves nothing")
			}
			if real, _ := filepath.EvalSymlinks(out); final != real {
				t.Errorf("final dir %s, want %s", final, real)
			}
			for _, n := range plantedNames {
				b, err := os.ReadFile(filepath.Join(victims, n))
				if err != nil || string(b) != "victim "+n+"\n" {
					t.Errorf("victim %s changed: %q, %v", n, b, err)
				}
				fi, err := os.Lstat(filepath.Join(out, n))
				switch {
				case err != nil:
					t.Errorf("%s: %v", n, err)
				case n == "libm.so":
					if l, _ := os.Readlink(filepath.Join(out, n)); l != "libm.so.6" {
						t.Errorf("libm.so links to %q", l)
					}
				case !fi.Mode().IsRegular():
					t.Errorf("%s is %v, want the stub written over the planted link", n, fi.Mode())
				}
			}
			if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
				t.Errorf("private build directory left: %v", ents)
			}
		})
	}
}

// The output directory passes the cache's rule for a root or nothing is
// built: one another user can write is refused, as is one that holds
// files; and a relative name that starts with "-" reaches no tool as an
// option.
func TestInstallStubsDir(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	for _, mode := range []os.FileMode{0o777, 0o775, 0o757, 0o777 | os.ModeSticky} {
		d := filepath.Join(root, "shared")
		os.RemoveAll(d)
		os.Mkdir(d, 0o755)
		if err := os.Chmod(d, mode); err != nil {
			t.Fatal(err)
		}
		_, err := InstallStubs(ctx, d, StubOptions{Target: "2.17"})
		var ue *UntrustedDirError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "writable by group or others") {
			t.Errorf("mode %v: %v, want a refusal", mode, err)
		}
		if ents, _ := os.ReadDir(d); len(ents) != 0 {
			t.Errorf("mode %v: wrote %v", mode, ents)
		}
	}
	full := filepath.Join(root, "full")
	os.Mkdir(full, 0o755)
	os.WriteFile(filepath.Join(full, "x"), nil, 0o644)
	if _, err := InstallStubs(ctx, full, StubOptions{Target: "2.17"}); !errors.Is(err, ErrNotEmpty) {
		t.Errorf("non-empty: %v", err)
	}

	fixture.Compiler(t, "gcc")
	if HostArch() != "x86_64" {
		t.Skip("the stubs of this test are x86_64's")
	}
	t.Chdir(root)
	for _, d := range []string{"./-stubs", "-o"} {
		if _, err := InstallStubs(ctx, d, StubOptions{Target: "2.17"}); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		if _, err := os.Stat(filepath.Join(root, d, "libc.so.6")); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
}
