package cause_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
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
		{"dl", "libc-merge", "#include <dlfcn.h>\nvoid *f(const char *p) { return dlopen(p, RTLD_NOW); }\n", "2.17",
			nil, nil, false},
		{"res", "libc-merge", "#include <resolv.h>\nint f(unsigned char *b) { return res_search(\"example.org\", 1, 1, b, 512); }\n", "2.17",
			nil, nil, false},
		{"isoc23-strtol", "c23-headers", "#include <stdlib.h>\nlong f(const char *s) { return strtol(s, 0, 10); }\n", "2.17",
			[]string{"-std=gnu2x"}, []string{"-std=gnu17"}, false},
		{"isoc23-sscanf", "c23-headers", "#include <stdio.h>\nint f(const char *s) { int x; return sscanf(s, \"%d\", &x) == 1 ? x : -1; }\n", "2.17",
			[]string{"-std=gnu2x"}, []string{"-std=gnu17"}, false},
		{"single-threaded", "libstdcxx-headers", "#include <memory>\nstd::shared_ptr<int> g;\nstd::shared_ptr<int> f() { return g; }\n", "2.17",
			nil, nil, true},
		{"memcpy", "memcpy", "#include <string.h>\nvoid f(char *d, const char *s, unsigned long n) { memcpy(d, s, n); }\n",
			"2.12", nil, nil, false},
		{"polyfill", "polyfill", "#include <stdlib.h>\nunsigned f(void) { return arc4random(); }\n", "2.17",
			nil, nil, false},
		{"new", cause.NewFunction, "#include <sys/pidfd.h>\nint f(void) { return pidfd_open(1, 0); }\n", "2.17",
			nil, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"-O2", "-shared", "-fPIC"}, tc.args...)
			compiler, ext, sub := cc, ".c", "cc"
			if tc.cxx {
				compiler, ext, sub = fixture.Compiler(t, "g++"), ".cc", "c++"
			}
			if !fixture.Supports(compiler, tc.args...) {
				t.Skipf("%s does not take %v", compiler, tc.args)
			}
			lib := fixture.Build(t, compiler, dir, tc.name+ext, tc.src, tc.name+".so", args...)
			ver, refs := glibcFloor(t, lib)
			of := func(refs []string) []string {
				var got []string
				for _, r := range refs {
					c, ok := cause.Of(r, "x86_64", cause.Limit{Glibc: tc.glibc})
					if ok && c.Class == tc.class {
						got = append(got, r)
					}
				}
				return got
			}
			got := of(refs)
			fix := tc.fix
			if len(got) == 0 && tc.class == "c23-headers" && symver.Compare(ver, "2.38") < 0 {
				// Only glibc 2.38 headers and later redirect to
				// __isoc23_, and this host's are older: their
				// redirect is declared as theirs does it (for
				// C2x), and the program linked against 2.38 by
				// abifloor cc, as a 2.38 host's gcc would.
				shim := filepath.Join(dir, "c23.h")
				if err := os.WriteFile(shim, []byte(c23Redirect), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, "-include", shim)
				fix = append(slices.Clone(tc.fix), "-include", shim)
				lib = abifloorCC(t, dir, "cc", "2.38", compiler, tc.name+"-238"+ext, tc.src, args)
				ver, refs = glibcFloor(t, lib)
				got = of(refs)
				t.Logf("this host's glibc headers are older than 2.38: their C2x redirect declared by hand")
			}
			if len(got) == 0 {
				t.Fatalf("floor %s from %v: none of class %s", ver, refs, tc.class)
			}
			t.Logf("floor %s from %v: %s", ver, got, tc.class)
			if tc.class == cause.NewFunction {
				return // nothing lowers a new function's floor but not calling it
			}
			var fixed string
			if fix != nil {
				fixed = fixture.Build(t, compiler, dir, tc.name+"-fixed"+ext, tc.src, tc.name+"-fixed.so", append([]string{"-O2", "-shared", "-fPIC"}, fix...)...)
			} else {
				fixed = abifloorCC(t, dir, sub, tc.glibc, compiler, tc.name+"-cc"+ext, tc.src, args)
			}
			fixes := []string{fixed}
			if fix != nil && tc.class == "c23-headers" {
				// The other fix: the same flags, built by abifloor
				// cc, which binds __isoc23_ to the old names.
				fixes = append(fixes, abifloorCC(t, dir, sub, tc.glibc, compiler, tc.name+"-cc"+ext, tc.src, args))
			}
			for _, fixed := range fixes {
				after, refs2 := glibcFloor(t, fixed)
				if symver.Compare(after, ver) >= 0 || slices.ContainsFunc(refs2, func(r string) bool { return slices.Contains(got, r) }) {
					t.Errorf("%s: fix left the floor at %s (%v), was %s", filepath.Base(fixed), after, refs2, ver)
				}
				t.Logf("%s: floor %s", filepath.Base(fixed), after)
			}
		})
	}
}

// c23Redirect declares strtol and sscanf as glibc 2.38's headers do in
// C2x mode: bound to __isoc23_strtol and __isoc23_sscanf.
const c23Redirect = `#if defined __STDC_VERSION__ && __STDC_VERSION__ > 201710L
extern long int strtol(const char *__restrict, char **__restrict, int) __asm__("__isoc23_strtol");
extern int sscanf(const char *__restrict, const char *__restrict, ...) __asm__("__isoc23_sscanf");
#endif
`

// abifloorCC builds src into a shared library with abifloor cc (or c++)
// for glibc, with args, and returns its path.
func abifloorCC(t *testing.T, dir, sub, glibc, compiler, name, src string, args []string) string {
	t.Helper()
	af := abifloor(t, dir)
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := strings.TrimSuffix(path, filepath.Ext(path)) + ".so"
	cmd := exec.Command(af, append([]string{sub, "--glibc", glibc, "--", compiler}, append(slices.Clone(args), "-o", out, path)...)...)
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("abifloor %s --glibc %s: %v\n%s", sub, glibc, err, b)
	}
	return out
}
