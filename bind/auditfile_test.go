package bind

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// AuditFile reports what Audit reports of the one path, whatever the
// path is: a program and a library of this machine, a file cut short, a
// file that is not ELF, a directory, a symbolic link, a missing path;
// under a cancelled context both say the audit is incomplete.
func TestAuditFileAsAudit(t *testing.T) {
	dir := t.TempDir()
	prog, err := os.Executable() // this test binary: a program of this machine
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(prog)
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
	truncated := write("truncated", b[:300])
	text := write("notes.txt", []byte("not ELF\n"))
	sub := filepath.Join(dir, "tree")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	write("tree/copy", b)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(prog, link); err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{"program": prog, "truncated": truncated, "not elf": text, "directory": sub, "symbolic link": link, "missing": filepath.Join(dir, "missing")}
	for _, sh := range []string{"/bin/sh", "/usr/bin/env"} {
		if _, err := os.Stat(sh); err == nil {
			paths["dynamic program"] = sh
			break
		}
	}
	for _, lib := range []string{"/lib/x86_64-linux-gnu/libc.so.6", "/lib64/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6"} {
		if _, err := os.Stat(lib); err == nil {
			paths["library"] = lib
			break
		}
	}
	for name, p := range paths {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			want, got := New(Options{Workers: 1}).Audit(ctx, []string{p}), New(Options{Workers: 1}).AuditFile(ctx, p)
			wj, _ := json.Marshal(want)
			gj, _ := json.Marshal(got)
			if string(wj) != string(gj) {
				t.Errorf("AuditFile:\n%s\nAudit:\n%s", gj, wj)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if want, got := New(Options{Workers: 1}).Audit(ctx, []string{prog}), New(Options{Workers: 1}).AuditFile(ctx, prog); !want.Incomplete || !got.Incomplete || len(got.Files) != 0 {
		t.Errorf("cancelled: Audit incomplete %v, AuditFile incomplete %v with %d files", want.Incomplete, got.Incomplete, len(got.Files))
	}
}

// Every program and library of this machine (files nobody here wrote)
// gets from AuditFile, named alone, the report Audit gives it in its
// directory: the loader agreement bench/bind-agree.sh measures for
// Audit holds for the compiler wrapper's proof too.
func TestAuditFileAsAuditReal(t *testing.T) {
	if testing.Short() {
		t.Skip("reads every ELF file of /usr/bin and the system library directory; skipped with -short")
	}
	ctx := context.Background()
	compared := 0
	for _, dir := range []string{"/usr/bin", "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu"} {
		if _, err := os.Stat(dir); err != nil {
			continue
		}
		// Not recursive: a directory's own files, as a link's output is.
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, e := range entries {
			if e.Type().IsRegular() {
				paths = append(paths, filepath.Join(dir, e.Name()))
			}
		}
		a := New(Options{})
		whole := a.Audit(ctx, paths)
		for _, want := range whole.Files {
			got := a.AuditFile(ctx, want.Path)
			if len(got.Files) != 1 {
				t.Errorf("%s named alone: %d reports", want.Path, len(got.Files))
				continue
			}
			wj, _ := json.Marshal(want)
			gj, _ := json.Marshal(got.Files[0])
			if string(wj) != string(gj) {
				t.Errorf("%s named alone:\n%s\nin its directory:\n%s", want.Path, gj, wj)
			}
			compared++
		}
	}
	t.Logf("compared %d ELF files", compared)
	if compared < 50 {
		t.Fatalf("only %d ELF files compared; the comparison would prove little", compared)
	}
}

// FuzzAuditFileAsAudit: whatever a file holds, AuditFile reports of it
// what Audit reports.
func FuzzAuditFileAsAudit(f *testing.F) {
	for _, b := range smallELFs() {
		f.Add(b)
	}
	dir := f.TempDir()
	a := New(Options{Workers: 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "input")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		want, got := a.Audit(ctx, []string{p}), a.AuditFile(ctx, p)
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		if string(wj) != string(gj) {
			t.Fatalf("AuditFile:\n%s\nAudit:\n%s", gj, wj)
		}
	})
}
