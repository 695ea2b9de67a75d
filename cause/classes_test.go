package cause_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/abifloor/abifloor/cause"
	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/floor"
	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/abifloor/abifloor/symver"
)

// The header classes are compiled with this host's headers and their
// floors read by package floor, which imports cause: so they are tested
// from outside the package.

// glibcFloor is the GLIBC floor of path and the symbols behind it, as
// check --why computes them.
func glibcFloor(t *testing.T, path string) (string, []string) {
	t.Helper()
	f, err := elfx.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, _ := floor.Analyze(f, path, floor.FileOptions{Why: true})
	if r.Error != nil {
		t.Fatal(r.Error)
	}
	var refs []string
	for _, s := range r.Why["GLIBC"] {
		refs = append(refs, s.String())
	}
	return r.Floors["GLIBC"], refs
}

// abifloor builds the command once, for the fixes that are `abifloor cc`.
func abifloor(t *testing.T, dir string) string {
	t.Helper()
	fixture.Need(t, "go")
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not found: cannot build abifloor for its cc")
	}
	out := filepath.Join(dir, "abifloor")
	if _, err := os.Stat(out); err == nil {
		return out
	}
	cmd := exec.Command(goTool, "build", "-o", out, "github.com/abifloor/abifloor/cmd/abifloor")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	return out
}

// TestHeaderClasses compiles each class with this host's headers, holds
// the symbol behind the floor to its class, then applies the fix (the
// flag, or abifloor cc) and checks with the floor itself that the floor
// went down.
func TestHeaderClasses(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles and builds abifloor")
	}
	cc := fixture.Compiler(t, "gcc")
	dir := t.TempDir()
	for _, tc := range []struct {
		name, class, src string
		glibc            string   // the limit abifloor cc builds for
		args             []string // how the class arises
		fix              []string // the flag fix: args without the cause; nil: abifloor cc
		cxx              bool
	}{
		{"lfs", "lfs-headers", "#include <fcntl.h>\nint f(int fd) { return fcntl(fd, F_GETFL); }\n", "2.17",
			[]string{"-D_FILE_OFFSET_BITS=64"}, []string{}, false},
		{"fortify", "fortify", "#include <sys/select.h>\nint f(int fd, fd_set *s) { FD_SET(fd, s); return FD_ISSET(fd, s); }\n", "2.17",
			[]string{"-D_FORTIFY_SOURCE=2"}, []string{"-D_FORTIFY_SOURCE=0"}, false},
		{"stat", "stat-headers", "#include <sys/stat.h>\nlong f(const char *p) { struct stat st; return stat(p, &st) ? -1 : st.st_size; }\n", "2.17",
			nil, nil, false},
		{"merge", "libc-merge", "#include <pthread.h>\nstatic void *g(void *a) { return a; }\nint f(void) { pthread_t t; return pthread_create(&t, 0, g, 0); }\n", "2.17",
			nil, nil, false},
		{"memcpy", "memcpy", "#include <string.h>\nvoid f(char *d, const char *s, unsigned long n) { memcpy(d, s, n); }\n",
			"2.12", nil, nil, false},
		{"new", cause.NewFunction, "#include <stdlib.h>\nunsigned f(void) { return arc4random(); }\n", "2.17",
			nil, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"-O2", "-shared", "-fPIC"}, tc.args...)
			lib := fixture.Build(t, cc, dir, tc.name+".c", tc.src, tc.name+".so", args...)
			ver, refs := glibcFloor(t, lib)
			var got []string
			for _, r := range refs {
				c, ok := cause.Of(r, "x86_64", cause.Limit{Glibc: tc.glibc})
				if ok && c.Class == tc.class {
					got = append(got, r)
				}
			}
			if len(got) == 0 {
				t.Fatalf("floor %s from %v: none of class %s", ver, refs, tc.class)
			}
			t.Logf("floor %s from %v: %s", ver, got, tc.class)
			if tc.class == cause.NewFunction {
				return // nothing lowers a new function's floor but not calling it
			}
			var fixed string
			if tc.fix != nil {
				fixed = fixture.Build(t, cc, dir, tc.name+"-fixed.c", tc.src, tc.name+"-fixed.so", append([]string{"-O2", "-shared", "-fPIC"}, tc.fix...)...)
			} else {
				af := abifloor(t, dir)
				src := filepath.Join(dir, tc.name+"-cc.c")
				if err := os.WriteFile(src, []byte(tc.src), 0o644); err != nil {
					t.Fatal(err)
				}
				fixed = filepath.Join(dir, tc.name+"-cc.so")
				cmd := exec.Command(af, append([]string{"cc", "--glibc", tc.glibc, "--", cc}, append(args, "-o", fixed, src)...)...)
				cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
				if b, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("abifloor cc: %v\n%s", err, b)
				}
			}
			after, refs2 := glibcFloor(t, fixed)
			if symver.Compare(after, ver) >= 0 || slices.ContainsFunc(refs2, func(r string) bool { return slices.Contains(got, r) }) {
				t.Errorf("fix left the floor at %s (%v), was %s", after, refs2, ver)
			}
			t.Logf("fixed: floor %s", after)
		})
	}
}
