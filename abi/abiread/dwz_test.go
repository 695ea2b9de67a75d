package abiread

import (
	"context"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
)

// dwzPair compiles testdata/dwz/a.c and b.c into two libraries in a new
// directory, keeps plain copies, and runs dwz in multifile mode on them:
// the shared types go to the alternate file alt.debug, named in each
// library's .gnu_debugaltlink as link.
func dwzPair(t *testing.T, link string) (dir string) {
	return dwzBuild(t, link, "gcc", filepath.Join("testdata", "dwz", "a.c"), filepath.Join("testdata", "dwz", "b.c"))
}

// dwzBuild compiles each source with cc into liba.so and libb.so, keeps
// plain copies, and runs dwz on the pair.
func dwzBuild(t *testing.T, link, cc string, srcs ...string) (dir string) {
	t.Helper()
	for _, tool := range []string{cc, "dwz"} {
		if !fixture.Have(tool) {
			t.Skipf("%s not installed", tool)
		}
	}
	dir = t.TempDir()
	for i, n := range []string{"a", "b"} {
		out := filepath.Join(dir, "lib"+n+".so")
		if b, err := exec.Command(cc, "-shared", "-fPIC", "-g", "-O0", "-o", out, srcs[i]).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", cc, err, b)
		}
		b, _ := os.ReadFile(out)
		os.WriteFile(filepath.Join(dir, "plain-lib"+n+".so"), b, 0o644)
	}
	cmd := exec.Command("dwz", "-m", "alt.debug", "-M", link, "liba.so", "libb.so")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("dwz: %v\n%s", err, b)
	}
	return dir
}

// TestDwz: types behind DW_FORM_GNU_ref_alt and names behind
// DW_FORM_GNU_strp_alt are read from the alternate file, found by the
// path .gnu_debugaltlink names or by its build ID, and give the same ABI
// as the file before dwz.
func TestDwz(t *testing.T) {
	ctx := context.Background()
	dir := dwzPair(t, "alt.debug") // relative: next to the library
	for _, n := range []string{"a", "b"} {
		f, err := os.ReadFile(filepath.Join(dir, "lib"+n+".so"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(f), ".gnu_debugaltlink") {
			t.Fatalf("lib%s.so: dwz wrote no .gnu_debugaltlink", n)
		}
		got, err := Load(ctx, filepath.Join(dir, "lib"+n+".so"), Options{NoDefaultDebugDir: true})
		if err != nil {
			t.Fatal(err)
		}
		want, err := Load(ctx, filepath.Join(dir, "plain-lib"+n+".so"), Options{NoDefaultDebugDir: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Notes) > 0 {
			t.Errorf("lib%s.so: notes %q", n, got.Notes)
		}
		if got.Fingerprint() != want.Fingerprint() {
			t.Errorf("lib%s.so after dwz:\n%s\nbefore:\n%s", n, got.Canonical(), want.Canonical())
		}
		if _, ok := got.Types["struct big"]; !ok {
			t.Errorf("lib%s.so: struct big (in the alternate file) not read", n)
		}
	}

	// By build ID under a debug directory, when the path leads nowhere.
	alt := filepath.Join(dir, "alt.debug")
	f, err := os.ReadFile(alt)
	if err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(dir, "liba.so")
	a0, _ := Load(ctx, lib, Options{NoDefaultDebugDir: true})
	ef, err := openELF(strings.NewReader(string(f)), int64(len(f)), 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	id := hex.EncodeToString(ef.BuildID())
	dbg := filepath.Join(t.TempDir(), ".build-id", id[:2])
	os.MkdirAll(dbg, 0o755)
	if err := os.Rename(alt, filepath.Join(dbg, id[2:]+".debug")); err != nil {
		t.Fatal(err)
	}
	a1, err := Load(ctx, lib, Options{NoDefaultDebugDir: true, DebugDirs: []string{filepath.Dir(filepath.Dir(dbg))}})
	if err != nil {
		t.Fatal(err)
	}
	if a1.Fingerprint() != a0.Fingerprint() || len(a1.Notes) > 0 {
		t.Errorf("by build ID: notes %q, same ABI %v", a1.Notes, a1.Fingerprint() == a0.Fingerprint())
	}

	// Nowhere: the symbols are still read, and a note says what is missing.
	a2, err := Load(ctx, lib, Options{NoDefaultDebugDir: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(a2.Notes) != 1 || !strings.Contains(a2.Notes[0], "dwz alternate file alt.debug") || len(a2.Symbols) != 1 {
		t.Errorf("alternate missing: notes %q, %d symbols", a2.Notes, len(a2.Symbols))
	}
}

// TestDwzCxx: C++ types dwz moved to the alternate file keep their
// qualified names (the alternate file's scopes are indexed too).
func TestDwzCxx(t *testing.T) {
	fix := filepath.Join("..", "..", "abidiff", "testdata")
	dir := dwzBuild(t, "alt.debug", "g++", filepath.Join(fix, "cxx_v1.cc"), filepath.Join(fix, "cxx_v2.cc"))
	for _, n := range []string{"a", "b"} {
		got, err := Load(context.Background(), filepath.Join(dir, "lib"+n+".so"), Options{NoDefaultDebugDir: true})
		if err != nil {
			t.Fatal(err)
		}
		want, err := Load(context.Background(), filepath.Join(dir, "plain-lib"+n+".so"), Options{NoDefaultDebugDir: true})
		if err != nil {
			t.Fatal(err)
		}
		if got.Fingerprint() != want.Fingerprint() {
			t.Errorf("lib%s.so after dwz:\n%s\nbefore:\n%s", n, got.Canonical(), want.Canonical())
		}
		if _, ok := got.Types["struct lib::Reord"]; !ok {
			t.Errorf("lib%s.so: no struct lib::Reord", n)
		}
	}
}
