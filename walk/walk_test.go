package walk

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func collect(t *testing.T, roots []string, opt Options) ([]string, []error, *Stats) {
	t.Helper()
	var st Stats
	var paths []string
	var errs []error
	for f := range Walk(context.Background(), roots, opt, &st) {
		if f.Err != nil {
			errs = append(errs, f.Err)
			continue
		}
		paths = append(paths, f.Path)
	}
	sort.Strings(paths)
	return paths, errs, &st
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestWalk(t *testing.T) {
	dir := t.TempDir()
	write(t, dir+"/a/one", "1")
	write(t, dir+"/a/b/two", "2")
	write(t, dir+"/three", "3")
	if err := syscall.Mkfifo(dir+"/a/pipe", 0o644); err != nil {
		t.Fatal(err)
	}
	os.Symlink("..", dir+"/a/b/up")        // a directory loop through a link
	os.Symlink("three", dir+"/three.link") // a link to a file
	os.Symlink("nowhere", dir+"/dangling")
	os.Link(dir+"/three", dir+"/three.hard")

	paths, errs, st := collect(t, []string{dir}, Options{})
	want := []string{dir + "/a/b/two", dir + "/a/one", dir + "/three", dir + "/three.hard"}
	if len(errs) != 0 || !slices.Equal(paths, want) {
		t.Fatalf("paths %v errs %v, want %v", paths, errs, want)
	}
	if st.Special.Load() != 1 || st.Symlinks.Load() != 3 {
		t.Errorf("special %d symlinks %d, want 1 and 3", st.Special.Load(), st.Symlinks.Load())
	}

	// Following links: the file link is listed, the loop is cut, the
	// dangling link is counted.
	paths, errs, st = collect(t, []string{dir}, Options{Follow: true})
	want = append(want, dir+"/three.link")
	sort.Strings(want)
	if len(errs) != 0 || !slices.Equal(paths, want) {
		t.Fatalf("--follow: paths %v errs %v, want %v", paths, errs, want)
	}
	if st.Dups.Load() != 1 {
		t.Errorf("--follow: %d directories reached twice, want 1 (the loop)", st.Dups.Load())
	}
}

func TestRoots(t *testing.T) {
	dir := t.TempDir()
	write(t, dir+"/f", "x")
	os.Symlink("f", dir+"/link")
	syscall.Mkfifo(dir+"/pipe", 0o644)
	os.Symlink("loop", dir+"/loop")
	paths, errs, _ := collect(t, []string{dir + "/link", dir + "/pipe", dir + "/loop", dir + "/missing"}, Options{})
	// A named link is resolved (find -H); the others are errors.
	if !slices.Equal(paths, []string{dir + "/link"}) || len(errs) != 3 {
		t.Fatalf("paths %v errs %v", paths, errs)
	}
}

func TestKeep(t *testing.T) {
	dir := t.TempDir()
	write(t, dir+"/elf", "\x7fELF rest")
	write(t, dir+"/text", "hello")
	var got []File
	for f := range Walk(context.Background(), []string{dir}, Options{Keep: func(h []byte) bool { return len(h) > 0 && h[0] == 0x7f }, HeadSize: 16}, nil) {
		got = append(got, f)
	}
	if len(got) != 1 || got[0].Path != dir+"/elf" || string(got[0].Head) != "\x7fELF rest" {
		t.Fatalf("got %+v", got)
	}
}

func TestParseDirentsRejectsBadLengths(t *testing.T) {
	// A record length running past the buffer ends parsing quietly.
	b := make([]byte, 40)
	binary := []byte{0xff, 0xff}
	copy(b[16:], binary)
	n := 0
	parseDirents(b, func(uint64, uint8, string) { n++ })
	if n != 0 {
		t.Fatalf("parsed %d entries from a broken buffer", n)
	}
}

// TestPseudoFS mounts a proc file system inside a tree: the walk must not
// enter it (reading /proc files can block), unless it is named as a root.
func TestPseudoFS(t *testing.T) {
	dir := t.TempDir()
	write(t, dir+"/bin/app", "x")
	mnt := dir + "/proc"
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("proc", mnt, "proc", 0, ""); err != nil {
		t.Skipf("cannot mount proc here (needs root in a mount namespace that allows it): %v", err)
	}
	defer syscall.Unmount(mnt, syscall.MNT_DETACH)
	paths, errs, st := collect(t, []string{dir}, Options{})
	if len(errs) != 0 || !slices.Equal(paths, []string{dir + "/bin/app"}) || st.Pseudo.Load() != 1 {
		t.Fatalf("paths %v errs %v pseudo %d", paths, errs, st.Pseudo.Load())
	}
}

func TestPathsAreClean(t *testing.T) {
	dir := t.TempDir()
	write(t, dir+"/sub/f", "x")
	t.Chdir(dir)
	for root, want := range map[string]string{".": "sub/f", "./": "sub/f", "sub/": "sub/f", "./sub//": "sub/f", dir + "/": dir + "/sub/f"} {
		paths, _, _ := collect(t, []string{root}, Options{})
		if len(paths) != 1 || paths[0] != want {
			t.Errorf("walk %q: %v, want %s", root, paths, want)
		}
	}
}

// TestFollowWithin: with Within set, a followed link stays in the tree;
// links out of it (absolute, or climbing with ..) are not followed.
func TestFollowWithin(t *testing.T) {
	base := t.TempDir()
	root, outside := base+"/root", base+"/outside"
	write(t, root+"/usr/bin/app", "app")
	write(t, root+"/opt/tool", "tool")
	write(t, outside+"/secret", "secret")
	os.Symlink("../../opt", root+"/usr/bin/optdir")        // inside: followed
	os.Symlink(outside, root+"/usr/bin/abs")               // absolute, out
	os.Symlink("../../../outside", root+"/usr/bin/climb")  // climbs out
	os.Symlink("../../opt/tool", root+"/usr/bin/toollink") // a file inside

	paths, errs, st := collect(t, []string{root + "/usr/bin"}, Options{Follow: true, Within: root})
	want := []string{root + "/usr/bin/app", root + "/usr/bin/optdir/tool", root + "/usr/bin/toollink"}
	if len(errs) != 0 || !slices.Equal(paths, want) {
		t.Fatalf("paths %v errs %v, want %v", paths, errs, want)
	}
	if st.Symlinks.Load() != 2 {
		t.Errorf("links not followed: %d, want 2", st.Symlinks.Load())
	}
	// Without Within a followed link stays inside the root it was met
	// under (issue 17 item 6: "inside the root only"): the host's file is
	// not reached.
	paths, _, _ = collect(t, []string{root + "/usr/bin"}, Options{Follow: true})
	if slices.Contains(paths, root+"/usr/bin/abs/secret") {
		t.Errorf("without Within, %v reached outside/secret", paths)
	}
	paths, _, _ = collect(t, []string{root}, Options{Follow: true})
	if !slices.Contains(paths, root+"/usr/bin/toollink") || slices.Contains(paths, root+"/usr/bin/abs/secret") {
		t.Errorf("the root %s: %v", root, paths)
	}
}

// TestFollowKeep (issue 17 item 6): with Follow and Keep, a link to a
// regular file is read (its head) where it resolves, not refused as "too
// many levels of symbolic links" by the O_NOFOLLOW open.
func TestFollowKeep(t *testing.T) {
	root := t.TempDir()
	write(t, root+"/lib/libx.so.1", "\x7fELF....")
	os.Symlink("libx.so.1", root+"/lib/libx.so")
	os.Symlink("/etc/passwd", root+"/lib/host")
	keep := func(h []byte) bool { return len(h) >= 4 && string(h[:4]) == "\x7fELF" }
	var got []string
	for f := range Walk(context.Background(), []string{root}, Options{Follow: true, Keep: keep, HeadSize: 64}, nil) {
		if f.Err != nil {
			t.Errorf("%s: %v", f.Path, f.Err)
			continue
		}
		if !keep(f.Head) {
			t.Errorf("%s: head %q", f.Path, f.Head)
		}
		got = append(got, f.Path)
	}
	sort.Strings(got)
	if want := []string{root + "/lib/libx.so", root + "/lib/libx.so.1"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// A worker stuck in a file does not hold back the results of the others
// once ctx is cancelled: Process returns what finished, and drops the
// stuck file's result when it comes late.
func TestProcessAbandonsStuckWorker(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	files := make(chan File)
	stuck := make(chan struct{})
	defer close(stuck)
	go func() {
		for _, p := range []string{"a", "b", "stuck"} {
			files <- File{Path: p}
		}
		cancel()
		for _, p := range []string{"c", "d"} {
			select {
			case files <- File{Path: p}:
			case <-time.After(10 * time.Millisecond):
			}
		}
		close(files)
	}()
	got := Process(ctx, files, 2, func() func(File) (string, bool) {
		return func(f File) (string, bool) {
			if f.Path == "stuck" {
				<-stuck
			}
			return f.Path, true
		}
	})
	var paths []string
	for _, it := range got {
		paths = append(paths, it.Value)
	}
	// a and b finished before the cancel unless the scheduler held
	// their worker past it; the stuck file and those after the cancel
	// are never there.
	if got := strings.Join(paths, ","); got != "a,b" && got != "a" && got != "b" && got != "" {
		t.Errorf("Process after cancel = %v, want at most [a b]: the stuck file dropped, nothing taken after the cancel", paths)
	}
}

// Process keeps every result of a large run: its blocks grow to 1024
// results and stay there (60,000 results once overflowed the capacity
// of the 60th block).
func TestProcessManyResults(t *testing.T) {
	const n = 60000
	files := make(chan File, 1024)
	go func() {
		for i := range n {
			files <- File{Path: strconv.Itoa(i)}
		}
		close(files)
	}()
	got := Process(context.Background(), files, 4, func() func(File) (int, bool) {
		return func(File) (int, bool) { return 1, true }
	})
	if len(got) != n {
		t.Errorf("%d results, want %d", len(got), n)
	}
}

// TestClaim: a root directory Claim takes is sent as one File with Dir
// set and not listed; other roots, and directories inside a tree, are
// walked as before, and Claim is never asked about a file.
func TestClaim(t *testing.T) {
	dir := t.TempDir()
	write(t, dir+"/layout/oci-layout", "{}")
	write(t, dir+"/layout/blobs/x", "x")
	write(t, dir+"/tree/layout/oci-layout", "{}")
	write(t, dir+"/file", "f")
	var asked []string
	claim := func(d string) bool {
		asked = append(asked, d)
		return filepath.Base(d) == "layout"
	}
	var files, dirs []string
	for f := range Walk(context.Background(), []string{dir + "/layout", dir + "/tree", dir + "/file"}, Options{Claim: claim}, nil) {
		switch {
		case f.Err != nil:
			t.Errorf("error: %v", f.Err)
		case f.Dir:
			dirs = append(dirs, f.Path)
		default:
			files = append(files, f.Path)
		}
	}
	sort.Strings(files)
	if want := []string{dir + "/file", dir + "/tree/layout/oci-layout"}; !slices.Equal(files, want) {
		t.Errorf("files %v, want %v", files, want)
	}
	if want := []string{dir + "/layout"}; !slices.Equal(dirs, want) {
		t.Errorf("claimed %v, want %v", dirs, want)
	}
	if want := []string{dir + "/layout", dir + "/tree"}; !slices.Equal(asked, want) {
		t.Errorf("Claim asked about %v, want the root directories %v", asked, want)
	}
}

// TestProcessOrder: whichever worker finishes first, results come out
// by root, then path, each with its own value.
func TestProcessOrder(t *testing.T) {
	var in []File
	for root := 0; root < 7; root++ {
		for _, name := range []string{"m", "a", "z", "b", "y", "c"} {
			in = append(in, File{Root: root, Path: name + strings.Repeat("x", root)})
		}
	}
	for seed := int64(0); seed < 20; seed++ {
		shuffled := slices.Clone(in)
		for i := len(shuffled) - 1; i > 0; i-- {
			j := int((seed*7919 + int64(i)*104729) % int64(i+1))
			shuffled[i], shuffled[j] = shuffled[j], shuffled[i]
		}
		files := make(chan File, len(shuffled))
		for _, f := range shuffled {
			files <- f
		}
		close(files)
		got := Process(context.Background(), files, 3, func() func(File) (string, bool) {
			return func(f File) (string, bool) { return f.Path, f.Path[0] != 'y' }
		})
		var want []string
		for root := 0; root < 7; root++ {
			for _, name := range []string{"a", "b", "c", "m", "z"} {
				want = append(want, name+strings.Repeat("x", root))
			}
		}
		var paths []string
		for i, it := range got {
			if it.Value != it.Path {
				t.Fatalf("seed %d: item %d holds %q for %q", seed, i, it.Value, it.Path)
			}
			if i > 0 && got[i-1].Root > it.Root {
				t.Fatalf("seed %d: root %d after %d", seed, it.Root, got[i-1].Root)
			}
			paths = append(paths, it.Path)
		}
		if !slices.Equal(paths, want) {
			t.Fatalf("seed %d: %q, want %q", seed, paths, want)
		}
	}
}
