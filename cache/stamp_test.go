package cache

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// stubLike fills an entry the shape of a stub set: 25 files, 560 KB.
func stubLike(tmp, final string) error {
	for i := range 25 {
		b := make([]byte, 4096+i*800)
		rand.Read(b)
		if err := os.WriteFile(filepath.Join(tmp, fmt.Sprintf("lib%d.so.1", i)), b, 0o755); err != nil {
			return err
		}
		if err := os.Symlink(fmt.Sprintf("lib%d.so.1", i), filepath.Join(tmp, fmt.Sprintf("lib%d.so", i))); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(tmp, "libc.so.6"), make([]byte, 210<<10), 0o755)
}

// shortMargin lets a test stamp entries it made a moment ago: files are
// stamped once their change time is past the margin.
func shortMargin(t testing.TB) {
	old := stampMargin
	stampMargin = 20 * time.Millisecond
	t.Cleanup(func() { stampMargin = old })
}

// stampNow calls Get until key's entry is stamped: once its files are
// older than the margin (on a loaded machine, the rename that publishes
// an entry may come well after its files were written).
func stampNow(t *testing.T, c *Cache, key string, build func(tmp, final string) error) {
	t.Helper()
	for range 100 {
		time.Sleep(stampMargin)
		if _, err := c.Get(context.Background(), key, build); err != nil {
			t.Fatal(err)
		}
		if c.stamped(c.Path(key), hashKey(key)) {
			return
		}
	}
	t.Fatal("not stamped after 100 margins")
}

// TestStampedEntry: an entry verified in full is stamped, and used on its
// stamp while every file stats as stamped; any change (TestPlantedEntry's
// plants, after the stamp) means a full verification, a refusal and a
// rebuild; a stamp that is not the user's private, whole file is ignored.
func TestStampedEntry(t *testing.T) {
	shortMargin(t)
	ctx := context.Background()
	c, err := Open(filepath.Join(t.TempDir(), "cache"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Get(ctx, "key", stubLike)
	if err != nil {
		t.Fatal(err)
	}
	h := hashKey("key")
	if c.stamped(p, h) {
		t.Fatal("a fresh build is stamped before any verification")
	}
	// Too recent to stamp: a change in the same clock tick could hide.
	// (The margin is long here, so a loaded machine cannot outwait it.)
	short := stampMargin
	stampMargin = time.Hour
	if _, err := c.Get(ctx, "key", stubLike); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(c.stampPath(h)); err == nil {
		t.Fatal("files changed within the margin were stamped")
	}
	stampMargin = short
	stampNow(t, c, "key", stubLike)
	fi, err := os.Stat(c.stampPath(h))
	if err != nil {
		t.Fatalf("no stamp after a full verification: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("stamp mode %v, want 0600", fi.Mode().Perm())
	}
	if !c.stamped(p, h) {
		t.Fatal("an unchanged entry does not match its stamp")
	}
	if c.stamped(p, hashKey("other")) {
		t.Error("another key's entry matched this stamp")
	}
	stamp, _ := os.ReadFile(c.stampPath(h))
	for _, tt := range []struct {
		name  string
		spoil func(path string)
	}{
		{"group-readable", func(path string) { os.Chmod(path, 0o640) }},
		{"cut short", func(path string) { os.WriteFile(path, stamp[:bytes.LastIndex(stamp, []byte("end"))], 0o600) }},
		{"symbolic link", func(path string) {
			os.WriteFile(path+".real", stamp, 0o600)
			os.Remove(path)
			os.Symlink(filepath.Base(path)+".real", path)
		}},
		{"a line more", func(path string) {
			os.WriteFile(path, append(bytes.Clone(stamp), "x\n"...), 0o600)
		}},
		{"empty", func(path string) { os.WriteFile(path, nil, 0o600) }},
	} {
		path := c.stampPath(h)
		os.Remove(path)
		os.WriteFile(path, stamp, 0o600)
		if !c.stamped(p, h) {
			t.Fatalf("%s: the stamp rewritten does not match", tt.name)
		}
		tt.spoil(path)
		if c.stamped(p, h) {
			t.Errorf("%s stamp accepted", tt.name)
		}
		os.Remove(path + ".real")
	}
}

// TestStampedPlants are TestPlantedEntry's plants made after the entry was
// stamped: each is refused and rebuilt, never taken on the stamp's word.
func TestStampedPlants(t *testing.T) {
	shortMargin(t)
	ctx := context.Background()
	good := func(tmp, final string) error {
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
		plant func(entry string)
	}{
		// The same size, so only the change time tells.
		{"changed file", func(entry string) {
			b, _ := os.ReadFile(filepath.Join(entry, "libc.so"))
			os.Chmod(filepath.Join(entry, "libc.so"), 0o644)
			os.WriteFile(filepath.Join(entry, "libc.so"), bytes.Replace(b, []byte("GROUP"), []byte("EVIL!"), 1), 0o644)
		}},
		{"extra file", func(entry string) { os.WriteFile(filepath.Join(entry, "sub", "libc.so.6"), []byte("evil"), 0o644) }},
		{"missing file", func(entry string) { os.Remove(filepath.Join(entry, "libm.so")) }},
		{"redirected link", func(entry string) {
			os.Remove(filepath.Join(entry, "libm.so"))
			os.Symlink("/tmp/evil.so", filepath.Join(entry, "libm.so"))
		}},
		{"group-writable file", func(entry string) { os.Chmod(filepath.Join(entry, "libc.so"), 0o666) }},
		{"manifest of another key", func(entry string) {
			b, _ := os.ReadFile(filepath.Join(entry, manifestName))
			os.Chmod(filepath.Join(entry, manifestName), 0o644)
			os.WriteFile(filepath.Join(entry, manifestName), []byte(strings.Replace(string(b), hashKey("key"), hashKey("other"), 1)), 0o644)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Open(filepath.Join(t.TempDir(), "cache"))
			if err != nil {
				t.Fatal(err)
			}
			var warned []string
			c.Warn = func(m string) { warned = append(warned, m) }
			if _, err := c.Get(ctx, "key", good); err != nil {
				t.Fatal(err)
			}
			entry := c.Path("key")
			stampNow(t, c, "key", good)
			tt.plant(entry)
			builds := 0
			p, err := c.Get(ctx, "key", func(tmp, final string) error { builds++; return good(tmp, final) })
			if err != nil {
				t.Fatal(err)
			}
			if builds != 1 || len(warned) != 1 {
				t.Errorf("%d builds, warnings %q; want a rebuild and a warning", builds, warned)
			}
			if b, _ := os.ReadFile(filepath.Join(p, "libc.so")); !bytes.HasPrefix(b, []byte("GROUP")) {
				t.Errorf("planted libc.so survived: %s", b)
			}
		})
	}
}

// FuzzStamp: whatever a stamp holds, checking it answers without a panic,
// and a stamp that does not describe the entry is refused.
func FuzzStamp(f *testing.F) {
	old := stampMargin
	stampMargin = 0
	defer func() { stampMargin = old }()
	c, err := Open(filepath.Join(f.TempDir(), "cache"))
	if err != nil {
		f.Fatal(err)
	}
	p, err := c.Get(context.Background(), "key", func(tmp, final string) error {
		return os.WriteFile(filepath.Join(tmp, "libc.so"), []byte("GROUP ( x )\n"), 0o644)
	})
	if err != nil {
		f.Fatal(err)
	}
	h := hashKey("key")
	stats, err := verifyEntryStats(p, h)
	if err != nil {
		f.Fatal(err)
	}
	c.writeStamp(h, stats, time.Now().Add(time.Hour))
	good, err := os.ReadFile(c.stampPath(h))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(stampHeader + " " + h + "\n1 2 3 4 5 6 7 \"../x\"\nend\n"))
	f.Add([]byte(stampHeader + " " + h + "\nend\n"))
	f.Fuzz(func(t *testing.T, s []byte) {
		os.WriteFile(c.stampPath(h), s, 0o600)
		ok := c.stamped(p, h)
		if ok && !bytes.Contains(s, []byte(`"libc.so"`)) {
			t.Errorf("stamp %q without libc.so accepted", s)
		}
	})
}

// BenchmarkGetWarm is a warm Get of a stub-sized entry: verified in full
// (the stamp removed each time), and on its stamp.
func BenchmarkGetWarm(b *testing.B) {
	old := stampMargin
	stampMargin = 0
	defer func() { stampMargin = old }()
	c, err := Open(filepath.Join(b.TempDir(), "cache"))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.Get(ctx, "key", stubLike); err != nil {
		b.Fatal(err)
	}
	b.Run("verified", func(b *testing.B) {
		for b.Loop() {
			os.Remove(c.stampPath(hashKey("key")))
			if _, err := c.Get(ctx, "key", stubLike); err != nil {
				b.Fatal(err)
			}
		}
	})
	time.Sleep(10 * time.Millisecond)
	b.Run("stamped", func(b *testing.B) {
		for b.Loop() {
			if _, err := c.Get(ctx, "key", stubLike); err != nil {
				b.Fatal(err)
			}
		}
	})
}
