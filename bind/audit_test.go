package bind

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// TestLibrariesParsedOnce audits a real directory twice with one Auditor:
// the second pass parses nothing, and results come in path order.
func TestLibrariesParsedOnce(t *testing.T) {
	dir := "/usr/bin"
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no %s here", dir)
	}
	a := New(Options{Workers: 4})
	ctx := context.Background()
	first := a.Audit(ctx, []string{dir})
	n := a.Parsed()
	if len(first.Files) == 0 || n == 0 {
		t.Fatalf("%d files, %d parsed", len(first.Files), n)
	}
	second := a.Audit(ctx, []string{dir})
	if a.Parsed() != n {
		t.Errorf("second pass parsed %d more files", a.Parsed()-n)
	}
	if len(second.Files) != len(first.Files) {
		t.Fatalf("%d then %d files", len(first.Files), len(second.Files))
	}
	for i := range first.Files {
		f, s := first.Files[i], second.Files[i]
		if f.Path != s.Path || f.DiesAtStart != s.DiesAtStart || len(f.Unresolved) != len(s.Unresolved) {
			t.Fatalf("file %d differs: %s %v vs %s %v", i, f.Path, f.DiesAtStart, s.Path, s.DiesAtStart)
		}
		if i > 0 && first.Files[i-1].Path >= f.Path {
			t.Fatalf("not in path order: %s before %s", first.Files[i-1].Path, f.Path)
		}
	}
	// Every library a binary of a healthy system needs is found.
	for _, f := range first.Files {
		if f.Path == "/usr/bin/ls" && (f.DiesAtStart || len(f.Libraries) == 0) {
			t.Errorf("/usr/bin/ls: %+v", f)
		}
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := New(Options{}).Audit(ctx, []string{"/usr/bin"})
	if len(res.Files) > 64 {
		t.Errorf("a cancelled audit still read %d files", len(res.Files))
	}
}

// Preload reads ahead what an audit will read, and nothing it changes
// shows in the audit: the libraries are not parsed again, a path that
// does not exist stays an absence, and the reports are those of an
// auditor that preloaded nothing.
func TestPreload(t *testing.T) {
	const prog = "/usr/bin/ls"
	if _, err := os.Stat(prog); err != nil {
		t.Skipf("no %s here", prog)
	}
	ctx := context.Background()
	want := New(Options{Workers: 1}).Audit(ctx, []string{prog})
	if len(want.Files) != 1 || len(want.Files[0].Libraries) == 0 {
		t.Fatalf("audit of %s without preloading: %+v", prog, want.Files)
	}
	a := New(Options{Workers: 1})
	a.Preload(append(want.Files[0].Libraries, "/nonexistent/libc.so.6")...)
	n := a.Parsed()
	if n != len(want.Files[0].Libraries) {
		t.Errorf("preloading %d libraries parsed %d", len(want.Files[0].Libraries), n)
	}
	got := a.Audit(ctx, []string{prog})
	if a.Parsed() != n+1 {
		t.Errorf("the audit parsed %d files after preloading, want 1 (the program)", a.Parsed()-n)
	}
	g, w := got.Files[0], want.Files[0]
	if fmt.Sprint(g.Libraries, g.Unresolved, g.MissingLibraries, g.DiesAtStart, g.Error) != fmt.Sprint(w.Libraries, w.Unresolved, w.MissingLibraries, w.DiesAtStart, w.Error) {
		t.Errorf("preloaded audit differs:\n got %+v\nwant %+v", g, w)
	}
}
