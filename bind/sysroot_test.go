package bind

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResolveInSysroot is a table of escape attempts: whatever the image
// holds, a path resolved inside it stays inside it, as if root were "/".
func TestResolveInSysroot(t *testing.T) {
	root := t.TempDir()
	mk := func(p string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ln := func(target, p string) {
		t.Helper()
		os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755)
		if err := os.Symlink(target, filepath.Join(root, p)); err != nil {
			t.Fatal(err)
		}
	}
	mk("usr/lib/x/libz.so")
	mk("lib/x86_64-linux-gnu/libc.so.6")
	mk("etc/ld.so.cache")
	ln("/usr/lib", "lib64")                                    // absolute: inside the image
	ln("../../lib64/x", "usr/lib/y")                           // relative
	ln("/etc/passwd", "usr/lib/x/evil")                        // absolute target missing in the image
	ln("../../../../../../../etc/ld.so.cache", "usr/lib/x/up") // relative .. chain
	ln("nonexistent/../../../../../../../../lib/x86_64-linux-gnu/libc.so.6", "usr/lib/x86_64-linux-gnu/libc.so.6")
	ln("/nonexistent/../etc/ld.so.cache", "etc/cache-abs")
	ln("loop", "loop")
	ln("b", "a")
	ln("a", "b")
	ln("/", "rootlink")              // a link to the image root
	ln("../../..", "usr/lib/dotdot") // a symlinked directory above root
	ln("libz.so", "usr/lib/x/file")  // a file used as a directory below
	for _, c := range []struct{ in, want string }{
		{"/usr/lib/x/libz.so", "usr/lib/x/libz.so"},
		{"/lib64/x/libz.so", "usr/lib/x/libz.so"},
		{"/usr/lib/y/libz.so", "usr/lib/x/libz.so"},
		{"/usr/lib/x/evil", "etc/passwd"}, // missing last component: the open fails
		{"/../../usr/lib/x/libz.so", "usr/lib/x/libz.so"},
		{"usr/lib/x/libz.so", "usr/lib/x/libz.so"},
		{"/usr/lib/x/up", "etc/ld.so.cache"},
		{"/usr/lib/dotdot/etc/ld.so.cache", "etc/ld.so.cache"},
		{"/rootlink/rootlink/lib/x86_64-linux-gnu/libc.so.6", "lib/x86_64-linux-gnu/libc.so.6"},
		{"/usr/lib/x/missing.so", "usr/lib/x/missing.so"},
		{"/", ""},
		// The attack: a missing component then a chain of "..".
		{"/usr/lib/x86_64-linux-gnu/libc.so.6", "!no such file"},
		{"/etc/cache-abs", "!no such file"},
		{"/nonexistent/../lib/x86_64-linux-gnu/libc.so.6", "!no such file"},
		{"/loop/x", "!too many levels"},
		{"/loop", "!too many levels"},
		{"/a", "!too many levels"},
		{"/usr/lib/x/libz.so/../../../../etc/ld.so.cache", "!not a directory"},
		{"/usr/lib/x/file/x", "!not a directory"},
	} {
		got, err := resolveIn(root, c.in)
		if want, ok := strings.CutPrefix(c.want, "!"); ok {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("resolveIn(%s) = %q, %v; want an error %q", c.in, got, err, want)
			}
			continue
		}
		if err != nil || got != filepath.Join(root, c.want) {
			t.Errorf("resolveIn(%s) = %q, %v; want %s", c.in, got, err, filepath.Join(root, c.want))
		}
		if err == nil && got != root && !strings.HasPrefix(got, root+"/") {
			t.Errorf("resolveIn(%s) = %s escapes %s", c.in, got, root)
		}
	}
}

// TestSysrootCacheEscape: an image whose ld.so.cache is a link that climbs
// out through a missing directory must not get this machine's cache.
func TestSysrootCacheEscape(t *testing.T) {
	if _, err := os.Stat("/etc/ld.so.cache"); err != nil {
		t.Skip("this machine has no /etc/ld.so.cache to leak")
	}
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "etc"), 0o755)
	if err := os.Symlink("nonexistent/../../../../../../../../etc/ld.so.cache", filepath.Join(root, "etc/ld.so.cache")); err != nil {
		t.Fatal(err)
	}
	a := New(Options{Sysroot: root})
	if c := a.cache(); c != nil {
		t.Fatalf("the host's ld.so.cache was read through the image's link (%d entries)", c.Len())
	}
	if err := a.CacheError(); err != nil {
		t.Fatalf("a dangling cache link is a missing cache, got %v", err)
	}
}
