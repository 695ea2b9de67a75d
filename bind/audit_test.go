package bind

import (
	"context"
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
