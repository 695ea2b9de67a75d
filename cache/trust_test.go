package cache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestOpenCreatesPrivateRoot(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "cache")
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{c.Dir, filepath.Join(c.Dir, "locks")} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v, want 0700", p, fi.Mode().Perm())
		}
	}
}

func TestOpenRefusesSharedRoot(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dir := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o1777) // as /tmp: anyone may plant entries
	_, err := Open(dir)
	var ue *UntrustedError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "writable by group or others") {
		t.Fatalf("Open(world-writable) = %v, want UntrustedError", err)
	}
	c, warn, err := OpenPrivate(dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.Dir == dir || !strings.Contains(warn, "using the private cache") {
		t.Errorf("OpenPrivate = %s, %q", c.Dir, warn)
	}
	// The usual fallback planted by another user is refused too: a fresh
	// private directory is used.
	if os.Geteuid() == 0 {
		os.RemoveAll(c.Dir)
		if err := os.Mkdir(c.Dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(c.Dir, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		c2, warn, err := OpenPrivate(dir)
		if err != nil {
			t.Fatal(err)
		}
		if c2.Dir == c.Dir {
			t.Errorf("fallback planted by uid 65534 was used: %s (%s)", c2.Dir, warn)
		}
	}
}

func TestOpenRefusesOtherOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making a directory of another user needs root")
	}
	dir := filepath.Join(t.TempDir(), "theirs")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	_, err := Open(dir)
	var ue *UntrustedError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "owned by uid 65534") {
		t.Fatalf("Open(other owner) = %v", err)
	}
}

func TestOpenReadOnly(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes a read-only directory anyway")
	}
	t.Setenv("TMPDIR", t.TempDir())
	dir := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("Open(read-only) = %v", err)
	}
	c, warn, err := OpenPrivate(dir)
	if err != nil || c.Dir == dir || warn == "" {
		t.Fatalf("OpenPrivate(read-only) = %v, %q, %v", c, warn, err)
	}
}

// A symbolic link planted as a key's lock must not make the cache create
// (or truncate) a file at its target.
func TestPlantedLockSymlink(t *testing.T) {
	root := t.TempDir()
	c, err := Open(filepath.Join(root, "cache"))
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(root, "victim")
	if err := os.Symlink(target, filepath.Join(c.Dir, "locks", hashKey("key")+".lock")); err != nil {
		t.Fatal(err)
	}
	_, err = c.Get(context.Background(), "key", func(tmp, final string) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Get with a planted lock link = %v", err)
	}
	if _, err := os.Lstat(target); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock's target was created: %v", err)
	}
}

// Entries the cache did not make, or that changed since, are refused and
// rebuilt before anything uses them.
func TestPlantedEntry(t *testing.T) {
	ctx := context.Background()
	builds := 0
	good := func(tmp, final string) error {
		builds++
		if err := os.WriteFile(filepath.Join(tmp, "libc.so"), []byte("GROUP ( \""+final+"/libc.so.6\" )\n"), 0o644); err != nil {
			return err
		}
		if err := os.Mkdir(filepath.Join(tmp, "sub"), 0o755); err != nil {
			return err
		}
		return os.Symlink("libc.so", filepath.Join(tmp, "libm.so"))
	}
	for _, tt := range []struct {
		name  string
		plant func(t *testing.T, entry string)
	}{
		{"no manifest", func(t *testing.T, entry string) {
			os.Mkdir(entry, 0o755)
			os.WriteFile(filepath.Join(entry, "libc.so"), []byte("GROUP ( /tmp/evil.so )\n"), 0o644)
		}},
		{"changed file", func(t *testing.T, entry string) {
			os.WriteFile(filepath.Join(entry, "libc.so"), []byte("GROUP ( /tmp/evil.so )\n"), 0o644)
		}},
		{"extra file", func(t *testing.T, entry string) {
			os.WriteFile(filepath.Join(entry, "sub", "libc.so.6"), []byte("evil"), 0o644)
		}},
		{"missing file", func(t *testing.T, entry string) { os.Remove(filepath.Join(entry, "libm.so")) }},
		{"redirected link", func(t *testing.T, entry string) {
			os.Remove(filepath.Join(entry, "libm.so"))
			os.Symlink("/tmp/evil.so", filepath.Join(entry, "libm.so"))
		}},
		{"file replaced by a link", func(t *testing.T, entry string) {
			os.Remove(filepath.Join(entry, "libc.so"))
			os.Symlink("/tmp/evil.so", filepath.Join(entry, "libc.so"))
		}},
		{"group-writable file", func(t *testing.T, entry string) { os.Chmod(filepath.Join(entry, "libc.so"), 0o666) }},
		{"manifest of another key", func(t *testing.T, entry string) {
			b, _ := os.ReadFile(filepath.Join(entry, manifestName))
			s := strings.Replace(string(b), hashKey("key"), hashKey("other"), 1)
			os.WriteFile(filepath.Join(entry, manifestName), []byte(s), 0o644)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Open(filepath.Join(t.TempDir(), "cache"))
			if err != nil {
				t.Fatal(err)
			}
			var warned []string
			c.Warn = func(m string) { warned = append(warned, m) }
			entry := c.Path("key")
			if tt.name != "no manifest" {
				if _, err := c.Get(ctx, "key", good); err != nil {
					t.Fatal(err)
				}
			}
			tt.plant(t, entry)
			builds = 0
			p, err := c.Get(ctx, "key", good)
			if err != nil {
				t.Fatal(err)
			}
			if builds != 1 || len(warned) != 1 {
				t.Errorf("%d builds, warnings %q; want a rebuild and a warning", builds, warned)
			}
			b, _ := os.ReadFile(filepath.Join(p, "libc.so"))
			if strings.Contains(string(b), "evil") {
				t.Errorf("planted libc.so survived: %s", b)
			}
			if err := verifyEntry(p, hashKey("key")); err != nil {
				t.Errorf("rebuilt entry does not verify: %v", err)
			}
			if left, _ := filepath.Glob(filepath.Join(c.Dir, ".*-*")); len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
			// Now it is trusted: no further build.
			if _, err := c.Get(ctx, "key", good); err != nil || builds != 1 {
				t.Errorf("warm Get: %v, %d builds", err, builds)
			}
		})
	}
}

// FuzzManifest: whatever a manifest holds, verification answers without a
// panic, and a manifest that does not describe the entry is refused.
func FuzzManifest(f *testing.F) {
	dir := f.TempDir()
	entry := filepath.Join(dir, "e")
	os.Mkdir(entry, 0o755)
	os.WriteFile(filepath.Join(entry, "libc.so"), []byte("GROUP ( x )\n"), 0o644)
	os.Symlink("libc.so", filepath.Join(entry, "libm.so"))
	if err := writeManifest(entry, "k"); err != nil {
		f.Fatal(err)
	}
	good, _ := os.ReadFile(filepath.Join(entry, manifestName))
	f.Add(good)
	f.Add([]byte(manifestHeader + " k\nl \"/etc\" \"libm.so\"\n"))
	f.Add([]byte(manifestHeader + " k\nf x \"\\xff\"\nd \"\"\n"))
	f.Fuzz(func(t *testing.T, m []byte) {
		os.WriteFile(filepath.Join(entry, manifestName), m, 0o644)
		err := verifyEntry(entry, "k")
		if err == nil && !bytes.Contains(m, []byte("libc.so")) {
			t.Errorf("manifest %q without libc.so verified", m)
		}
	})
}

// TestFallbackPlantedLink: another user plants the usual fallback
// ($TMPDIR/abifloor-cache-<uid>) as a symbolic link to a directory of the
// victim's (~/.ssh: owned by the victim, mode 0700, so Open alone would
// trust it). The fallback must not follow it: nothing is written there, and
// a fresh private directory is used instead. Also refused: a fallback that
// is a real directory of this user but reachable by others (0755).
func TestFallbackPlantedLink(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	victim := filepath.Join(t.TempDir(), "ssh")
	if err := os.Mkdir(victim, 0o700); err != nil {
		t.Fatal(err)
	}
	refused := filepath.Join(t.TempDir(), "shared")
	os.Mkdir(refused, 0o755)
	os.Chmod(refused, 0o1777)
	fallback := filepath.Join(tmp, fmt.Sprintf("abifloor-cache-%d", os.Geteuid()))
	for _, plant := range []func() error{
		func() error { return os.Symlink(victim, fallback) },
		func() error { return os.Mkdir(fallback, 0o755) },
	} {
		os.RemoveAll(fallback)
		if err := plant(); err != nil {
			t.Fatal(err)
		}
		os.Chmod(fallback, 0o755) // Mkdir's mode is masked by umask
		c, warn, err := OpenPrivate(refused)
		if err != nil {
			t.Fatal(err)
		}
		if c.Dir == fallback || c.Dir == victim || !strings.HasPrefix(c.Dir, tmp) {
			t.Errorf("OpenPrivate used %s (%s), want a fresh directory under %s", c.Dir, warn, tmp)
		}
		if ents, _ := os.ReadDir(victim); len(ents) != 0 {
			t.Errorf("the victim's directory was written: %v", ents)
		}
		var st unix.Stat_t
		if err := unix.Lstat(c.Dir, &st); err != nil || st.Mode&0o777 != 0o700 {
			t.Errorf("private cache %s: mode %04o, %v; want 0700", c.Dir, st.Mode&0o7777, err)
		}
	}
}

// TestFallbackPlantedVariants: the next plants after TestFallbackPlantedLinks:
// the usual fallback $TMPDIR/abifloor-cache-<uid> planted as a link to the
// victim's private directory (the attack: root's cc wrote locks/ and
// entries into ~/.ssh), as a link to a link, as a directory open to
// others, and as a file. Each time a fresh directory is used and the
// planted target is left untouched.
func TestFallbackPlantedVariants(t *testing.T) {
	shared := filepath.Join(t.TempDir(), "shared")
	os.Mkdir(shared, 0o777)
	os.Chmod(shared, 0o1777)
	for _, tt := range []struct {
		name  string
		plant func(fallback, victim string)
	}{
		{"link", func(f, v string) { os.Symlink(v, f) }},
		{"link to link", func(f, v string) { os.Symlink(v, f+".1"); os.Symlink(f+".1", f) }},
		{"open directory", func(f, v string) { os.Mkdir(f, 0o755); os.Chmod(f, 0o755) }},
		{"group writable", func(f, v string) { os.Mkdir(f, 0o770); os.Chmod(f, 0o770) }},
		{"file", func(f, v string) { os.WriteFile(f, nil, 0o600) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			victim := filepath.Join(t.TempDir(), "ssh")
			os.Mkdir(victim, 0o700)
			fallback := filepath.Join(tmp, fmt.Sprintf("abifloor-cache-%d", os.Geteuid()))
			tt.plant(fallback, victim)
			c, warn, err := OpenPrivate(shared)
			if err != nil {
				t.Fatal(err)
			}
			if c.Dir == fallback || c.Dir == victim || !strings.HasPrefix(c.Dir, tmp) {
				t.Errorf("planted fallback used: %s (%s)", c.Dir, warn)
			}
			if ents, _ := os.ReadDir(victim); len(ents) != 0 {
				t.Errorf("wrote into the link's target: %v", ents)
			}
			if fi, err := os.Lstat(c.Dir); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
				t.Errorf("fresh fallback %s: %v %v", c.Dir, fi.Mode(), err)
			}
		})
	}
	// The fallback this user made before is used again.
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	c1, _, err := OpenPrivate(shared)
	if err != nil {
		t.Fatal(err)
	}
	c2, _, err := OpenPrivate(shared)
	if err != nil || c1.Dir != c2.Dir {
		t.Errorf("own fallback not reused: %s, %v, %v", c1.Dir, c2, err)
	}
}
