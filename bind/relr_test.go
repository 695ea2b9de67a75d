package bind

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
)

// TestRelrIgnored: a library with DT_RELR and no libc (so no
// GLIBC_ABI_DT_RELR marker the loader could refuse it for) fails on a
// root whose glibc is older than 2.36, whose loader ignores DT_RELR, and
// loads on one of 2.36. The roots are Debian's own runtime
// (.ci/fetch-runtime.sh); TestRealLoader in floor runs it there.
func TestRelrIgnored(t *testing.T) {
	gcc := fixture.Compiler(t, "gcc")
	if !fixture.Supports(gcc, "-Wl,-z,pack-relative-relocs") {
		t.Skip("this linker cannot make DT_RELR")
	}
	dir := os.Getenv("ABIFLOOR_RUNTIME")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache/abifloor/runtime")
	}
	src := t.TempDir()
	relr := fixture.Build(t, gcc, src, "relr.c", "static int x = 42; int *p[] = {&x, &x, &x, &x};\nint get(void) { return *p[2]; }\n",
		"librelr.so", "-shared", "-fPIC", "-nostdlib", "-Wl,-z,pack-relative-relocs")
	plain := fixture.Build(t, gcc, src, "plain.c", "static int x = 42; int *p[] = {&x, &x, &x, &x};\nint get(void) { return *p[2]; }\n",
		"libplain.so", "-shared", "-fPIC", "-nostdlib", "-Wl,-z,nopack-relative-relocs")
	for _, c := range []struct {
		suite string
		fails bool
	}{{"bullseye", true}, {"bookworm", false}} {
		rt := filepath.Join(dir, c.suite)
		if _, err := os.Stat(filepath.Join(rt, "lib/x86_64-linux-gnu/libc.so.6")); err != nil {
			t.Skipf("no %s runtime under %s: run .ci/fetch-runtime.sh %s", c.suite, dir, c.suite)
		}
		root := filepath.Join(t.TempDir(), c.suite)
		if out, err := exec.Command("cp", "-a", rt, root).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v %s", err, out)
		}
		os.MkdirAll(filepath.Join(root, "t"), 0o755)
		for _, p := range []string{relr, plain} {
			b, _ := os.ReadFile(p)
			os.WriteFile(filepath.Join(root, "t", filepath.Base(p)), b, 0o644)
		}
		res := New(Options{Sysroot: root}).Audit(context.Background(), []string{filepath.Join(root, "t/librelr.so"), filepath.Join(root, "t/libplain.so")})
		if len(res.Files) != 2 {
			t.Fatalf("%s: %+v", c.suite, res.Files)
		}
		for _, fr := range res.Files {
			want := c.fails && filepath.Base(fr.Path) == "librelr.so"
			if got := len(fr.RelrIgnored) > 0; got != want || fr.Error != nil {
				t.Errorf("%s %s: relr_ignored %v (error %v), want it %v", c.suite, fr.Path, fr.RelrIgnored, fr.Error, want)
			}
			if want && !res.Fails(false) {
				t.Errorf("%s: the run does not fail", c.suite)
			}
		}
	}
}
