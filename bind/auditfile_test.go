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
