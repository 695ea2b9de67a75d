package floor

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// ScanFile reports what Scan reports of the one path, whatever the path
// is: an ELF file (with and without violations), one cut short, a file
// that is not ELF, a directory, a symbolic link, a missing path, and
// under a cancelled context.
func TestScanFileAsScan(t *testing.T) {
	dir := t.TempDir()
	lib, err := os.ReadFile(filepath.Join("testdata", "libgrow.so"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	elf := write("libgrow.so", lib)
	truncated := write("truncated.so", lib[:200])
	text := write("notes.txt", []byte("not ELF\n"))
	sub := filepath.Join(dir, "tree")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "libgrow.so"), lib, 0o644); err != nil {
		t.Fatal(err)
	}
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	if w, err := zw.Create("grow/libgrow.so"); err != nil {
		t.Fatal(err)
	} else if _, err := w.Write(lib); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	wheel := write("grow-1.0-py3-none-manylinux_2_17_x86_64.whl", zb.Bytes())
	link := filepath.Join(dir, "link.so")
	if err := os.Symlink(elf, link); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name   string
		ctx    context.Context
		path   string
		limits Limits
		why    bool
	}{
		{"elf", context.Background(), elf, nil, false},
		{"elf over a limit", context.Background(), elf, Limits{"GLIBC": "2.0"}, false},
		{"elf within a limit", context.Background(), elf, Limits{"GLIBC": "2.99"}, false},
		{"elf, why", context.Background(), elf, Limits{"GLIBC": "2.0"}, true},
		{"wheel", context.Background(), wheel, Limits{"GLIBC": "2.0"}, false},
		{"truncated", context.Background(), truncated, nil, false},
		{"not elf", context.Background(), text, nil, false},
		{"directory", context.Background(), sub, nil, false},
		{"symbolic link", context.Background(), link, nil, false},
		{"missing", context.Background(), filepath.Join(dir, "missing.so"), nil, false},
		{"cancelled", cancelled, elf, Limits{"GLIBC": "2.0"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := Options{Limits: tc.limits, Why: tc.why, Workers: 1}
			want, got := Scan(tc.ctx, []string{tc.path}, opt), ScanFile(tc.ctx, tc.path, opt)
			wj, _ := json.Marshal(want)
			gj, _ := json.Marshal(got)
			if string(wj) != string(gj) {
				t.Errorf("ScanFile:\n%s\nScan:\n%s", gj, wj)
			}
			if (want.Err == nil) != (got.Err == nil) || want.Err != nil && want.Err.Error() != got.Err.Error() {
				t.Errorf("ScanFile's Err %v, Scan's %v", got.Err, want.Err)
			}
		})
	}
}

// FuzzScanFileAsScan: whatever a file holds, ScanFile reports of it what
// Scan reports, read with its own buffers where Scan's workers read with
// an elfx.Scratch.
func FuzzScanFileAsScan(f *testing.F) {
	if lib, err := os.ReadFile(filepath.Join("testdata", "libgrow.so")); err == nil {
		f.Add(lib)
	}
	for _, p := range []string{"/usr/bin/true", "/bin/true"} {
		if b, err := os.ReadFile(p); err == nil && len(b) < 256<<10 {
			f.Add(b)
		}
	}
	dir := f.TempDir()
	opt := Options{Limits: Limits{"GLIBC": "2.17", "GLIBCXX": "3.4.19"}, Why: true, Workers: 1}
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "input")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		want, got := Scan(ctx, []string{p}, opt), ScanFile(ctx, p, opt)
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		if string(wj) != string(gj) {
			t.Fatalf("ScanFile:\n%s\nScan:\n%s", gj, wj)
		}
	})
}
