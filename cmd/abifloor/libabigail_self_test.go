package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLibabigailSelfDiff runs `abifloor diff X X` on every ELF file under
// libabigail's tests/data (gated like TestLibabigailTables, by
// ABIFLOOR_LIBABIGAIL) and fails where a file differs from itself: the
// exit status must be 0, or 1 with a message for a file that cannot be
// read or has nothing to compare (a bogus ELF, a debug file without
// symbols), never a change (4, 12).
//
//	ABIFLOOR_LIBABIGAIL=/tmp/libabigail go test ./cmd/abifloor -run TestLibabigailSelfDiff -v
func TestLibabigailSelfDiff(t *testing.T) {
	root := os.Getenv("ABIFLOOR_LIBABIGAIL")
	if root == "" {
		t.Skip("ABIFLOOR_LIBABIGAIL is not set (a libabigail checkout whose tests/ to run)")
	}
	self, err := exec.LookPath("abifloor")
	if err != nil {
		t.Skip("no abifloor on PATH:", err)
	}
	data := filepath.Join(root, "tests", "data")
	var files []string
	err = filepath.WalkDir(data, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && isELFFile(p) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no ELF file under %s", data)
	}
	var zero, unreadable int
	for _, f := range files {
		got, _, rss, out := runMeasured(t, self, "diff", f, f)
		name, _ := filepath.Rel(data, f)
		if rss > 256<<20 {
			t.Errorf("%s: %d MB", name, rss>>20)
		}
		switch {
		case got == 0:
			zero++
		case got == 1 && strings.Contains(out, "abifloor diff:"):
			unreadable++
			t.Logf("%s: exit 1: %s", name, firstLines(out, 2))
		default:
			t.Errorf("%s: diff with itself exits %d:\n%s", name, got, firstLines(out, 12))
		}
	}
	t.Logf("libabigail self-diff: %d ELF files, %d exit 0, %d unreadable or nothing to compare (exit 1)", len(files), zero, unreadable)
}
