package bind

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
)

// traceLoader asks the real loader for a program's libraries (what ldd
// prints): name → path, or "not found".
func traceLoader(t *testing.T, exe string, env ...string) map[string]string {
	t.Helper()
	cmd := exec.Command(exe)
	cmd.Env = append([]string{"LD_TRACE_LOADED_OBJECTS=1"}, env...)
	out, _ := cmd.Output()
	m := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 3 && f[1] == "=>" {
			if f[2] == "not" {
				m[f[0]] = "not found"
			} else {
				m[f[0]] = f[2]
			}
		}
	}
	return m
}

// sameLibraries checks the audit found each library the loader found, at
// the same path.
func sameLibraries(t *testing.T, rep FileReport, real map[string]string) {
	t.Helper()
	got := map[string]bool{}
	for _, l := range rep.Libraries {
		got[filepath.Clean(l)] = true
	}
	for name, p := range real {
		if p == "not found" {
			if !contains(rep.MissingLibraries, name) {
				t.Errorf("loader: %s not found; audit: missing %v", name, rep.MissingLibraries)
			}
			continue
		}
		if !got[filepath.Clean(p)] {
			// Same file through another directory (merged /usr) is fine.
			if rp, err := filepath.EvalSymlinks(p); err == nil && sameFileIn(rep.Libraries, rp) {
				continue
			}
			t.Errorf("loader took %s => %s; audit loaded %v", name, p, rep.Libraries)
		}
	}
}

func sameFileIn(paths []string, p string) bool {
	a, err := os.Stat(p)
	if err != nil {
		return false
	}
	for _, q := range paths {
		if b, err := os.Stat(q); err == nil && os.SameFile(a, b) {
			return true
		}
	}
	return false
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

func TestSearchOrderMatchesLoader(t *testing.T) {
	gcc := needCC(t)
	dir := t.TempDir()
	dA, dB := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.MkdirAll(dA, 0o755)
	os.MkdirAll(dB, 0o755)
	cc(t, gcc, "-shared", "-fPIC", "-o", filepath.Join(dA, "libsel.so"), write(t, dir, "sa.c", "int sel(void){return 1;}\n"))
	cc(t, gcc, "-shared", "-fPIC", "-o", filepath.Join(dB, "libsel.so"), write(t, dir, "sb.c", "int sel(void){return 2;}\n"))
	// libmid needs libsel and has no search path of its own: it is found
	// only through the RPATH its loader passes down.
	cc(t, gcc, "-shared", "-fPIC", "-o", filepath.Join(dA, "libmid.so"), write(t, dir, "mid.c", "int sel(void);\nint mid(void){return sel();}\n"), "-L"+dA, "-lsel")
	main := write(t, dir, "main.c", "int mid(void);\nint main(void){return mid();}\n")
	for _, tc := range []struct {
		name string
		tags string
	}{{"rpath", "-Wl,--disable-new-dtags"}, {"runpath", "-Wl,--enable-new-dtags"}} {
		exe := filepath.Join(dir, "app-"+tc.name)
		cc(t, gcc, "-o", exe, main, tc.tags, "-Wl,-rpath,"+dA, "-L"+dA, "-lmid")
		for _, lp := range []string{"", dB} {
			var env []string
			var opt Options
			if lp != "" {
				env = []string{"LD_LIBRARY_PATH=" + lp}
				opt.LibraryPath = []string{lp}
			}
			real := traceLoader(t, exe, env...)
			rep := audit1(t, opt, exe)
			t.Logf("%s LD_LIBRARY_PATH=%q: loader libsel.so => %s; audit %v missing %v", tc.name, lp, real["libsel.so"], rep.Libraries, rep.MissingLibraries)
			sameLibraries(t, rep, real)
			if rep.Error != nil {
				t.Errorf("error: %s", rep.Error)
			}
		}
	}
}

func TestOriginCycleMissingMatchLoader(t *testing.T) {
	gcc := needCC(t)
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib")
	os.MkdirAll(lib, 0o755)
	ca := write(t, dir, "ca.c", "int cb(void);\nint ca(void){return 0;}\nint use_b(void){return cb();}\n")
	cb := write(t, dir, "cb.c", "int ca(void);\nint cb(void){return ca();}\n")
	// A DT_NEEDED cycle: libcyca needs libcycb needs libcyca.
	cc(t, gcc, "-shared", "-fPIC", "-o", filepath.Join(lib, "libcyca.so"), write(t, dir, "stub.c", "int ca(void){return 0;}\n"))
	cc(t, gcc, "-shared", "-fPIC", "-o", filepath.Join(lib, "libcycb.so"), cb, "-L"+lib, "-lcyca", "-Wl,--enable-new-dtags,-rpath,$ORIGIN")
	cc(t, gcc, "-shared", "-fPIC", "-o", filepath.Join(lib, "libcyca.so"), ca, "-L"+lib, "-lcycb", "-Wl,--enable-new-dtags,-rpath,$ORIGIN")
	exe := filepath.Join(dir, "bin", "app")
	os.MkdirAll(filepath.Dir(exe), 0o755)
	cc(t, gcc, "-o", exe, write(t, dir, "m.c", "int ca(void);\nint main(void){return ca();}\n"), "-L"+lib, "-lcyca", "-Wl,--enable-new-dtags,-rpath,$ORIGIN/../lib")
	if r := runReal(t, nil, exe); r.code != 0 {
		t.Fatalf("fixture does not run: %d %s", r.code, r.stderr)
	}
	rep := audit1(t, Options{}, exe)
	if rep.DiesAtStart || len(rep.MissingLibraries) > 0 || rep.Error != nil {
		t.Fatalf("audit: %+v", rep)
	}
	sameLibraries(t, rep, traceLoader(t, exe))

	// The same program with libcycb gone: the loader cannot start it.
	os.Remove(filepath.Join(lib, "libcycb.so"))
	r := runReal(t, nil, exe)
	rep = audit1(t, Options{}, exe)
	if !rep.DiesAtStart || r.code == 0 || !strings.Contains(r.stderr, rep.Reason) {
		t.Fatalf("missing library: audit %v %q; loader %d %q", rep.DiesAtStart, rep.Reason, r.code, r.stderr)
	}
	if !contains(rep.MissingLibraries, "libcycb.so") {
		t.Errorf("missing_libraries = %v", rep.MissingLibraries)
	}
}

func TestVersionNotFoundMatchesLoader(t *testing.T) {
	gcc := needCC(t)
	dir := t.TempDir()
	lib := filepath.Join(dir, "libver.so")
	v2 := write(t, dir, "v2.map", "VER_1 { global: f1; local: *; };\nVER_2 { global: f2; } VER_1;\n")
	v1 := write(t, dir, "v1.map", "VER_1 { global: f1; local: *; };\n")
	cc(t, gcc, "-shared", "-fPIC", "-o", lib, write(t, dir, "v2.c", "int f1(void){return 0;}\nint f2(void){return 0;}\n"), "-Wl,--version-script="+v2)
	exe := filepath.Join(dir, "app")
	cc(t, gcc, "-o", exe, write(t, dir, "m.c", "int f2(void);\nint main(void){return f2();}\n"), "-L"+dir, "-lver", "-Wl,-rpath,"+dir)
	if rep := audit1(t, Options{}, exe); rep.DiesAtStart {
		t.Fatalf("new library: %+v", rep)
	}
	// An older library without VER_2.
	cc(t, gcc, "-shared", "-fPIC", "-o", lib, write(t, dir, "v1.c", "int f1(void){return 0;}\n"), "-Wl,--version-script="+v1)
	r := runReal(t, nil, exe)
	rep := audit1(t, Options{}, exe)
	if !rep.DiesAtStart || r.started || !strings.Contains(r.stderr, rep.Reason) {
		t.Fatalf("audit %v %q; loader %q", rep.DiesAtStart, rep.Reason, r.stderr)
	}
}

func TestSysroot(t *testing.T) {
	gcc := needCC(t)
	host := traceLoader(t, "/bin/true")
	libc := host["libc.so.6"]
	if libc == "" {
		t.Skip("cannot find this machine's libc.so.6 through the loader")
	}
	root := t.TempDir()
	multi := filepath.Join(root, "usr/lib/x86_64-linux-gnu")
	os.MkdirAll(multi, 0o755)
	copyFile(t, libc, filepath.Join(multi, "libc.so.6"))
	// Absolute links, to be followed inside the image.
	os.Symlink("/usr/lib", filepath.Join(root, "lib"))
	os.MkdirAll(filepath.Join(root, "opt/foo"), 0o755)
	src := write(t, root, "src/foo.c", "int foo(void){return 0;}\n")
	cc(t, gcc, "-shared", "-fPIC", "-o", filepath.Join(multi, "libfoo.so"), src)
	exe := filepath.Join(root, "app")
	cc(t, gcc, "-o", exe, write(t, root, "src/m.c", "int foo(void);\nint main(void){return foo();}\n"), "-L"+multi, "-lfoo")

	rep := audit1(t, Options{Sysroot: root}, exe)
	if !contains(rep.Libraries, "/lib/x86_64-linux-gnu/libfoo.so") || !contains(rep.Libraries, "/lib/x86_64-linux-gnu/libc.so.6") {
		t.Errorf("without a cache, the default directories of the image: %v (missing %v)", rep.Libraries, rep.MissingLibraries)
	}
	if rep.DiesAtStart && rep.Reason != "" && !strings.Contains(rep.Reason, "ld-linux") {
		t.Errorf("unexpected verdict: %s", rep.Reason)
	}
	// Outside the image, libfoo.so does not exist.
	if rep := audit1(t, Options{}, exe); !contains(rep.MissingLibraries, "libfoo.so") {
		t.Errorf("without --sysroot libfoo.so must be missing: %v", rep.Libraries)
	}

	// With an ld.so.cache in the image that points elsewhere.
	os.Rename(filepath.Join(multi, "libfoo.so"), filepath.Join(root, "opt/foo/libfoo.so"))
	os.MkdirAll(filepath.Join(root, "etc"), 0o755)
	os.WriteFile(filepath.Join(root, "etc/ld.so.cache"), cacheImage([][2]string{{"libfoo.so", "/opt/foo/libfoo.so"}}, 0x0303), 0o644)
	rep = audit1(t, Options{Sysroot: root}, exe)
	if !contains(rep.Libraries, "/opt/foo/libfoo.so") {
		t.Errorf("cache in the image not used: %v (missing %v)", rep.Libraries, rep.MissingLibraries)
	}

	// A malformed cache is an error naming it; the audit goes on.
	os.WriteFile(filepath.Join(root, "etc/ld.so.cache"), []byte(newCacheMagic+"\xff\xff\xff\xff"), 0o644)
	rep = audit1(t, Options{Sysroot: root}, exe)
	if !strings.Contains(rep.ErrorMessage(), "ld.so.cache") {
		t.Errorf("malformed cache: error %v", rep.Error)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestCopyRelocation: a non-PIE program that reads a library's variable
// holds a copy of it (R_X86_64_COPY); the executable defines the symbol,
// but the loader must still find it in a library, or the program dies.
func TestCopyRelocation(t *testing.T) {
	gcc := needCC(t)
	dir := t.TempDir()
	lib := filepath.Join(dir, "libd.so")
	cc(t, gcc, "-shared", "-fPIC", "-o", lib, write(t, dir, "d.c", "int dval = 42;\nint f(void){return 0;}\n"))
	exe := filepath.Join(dir, "app")
	cc(t, gcc, "-no-pie", "-o", exe, write(t, dir, "m.c", "extern int dval;\nint main(void){return dval - 42;}\n"), "-L"+dir, "-ld", "-Wl,-rpath,"+dir)
	if rep := audit1(t, Options{}, exe); rep.DiesAtStart || runReal(t, nil, exe).code != 0 {
		t.Fatalf("with the variable: %+v", rep)
	}
	cc(t, gcc, "-shared", "-fPIC", "-o", lib, write(t, dir, "d2.c", "int f(void){return 0;}\n"))
	r := runReal(t, nil, exe)
	rep := audit1(t, Options{}, exe)
	if !rep.DiesAtStart || r.started || !strings.Contains(r.stderr, rep.Reason) {
		t.Fatalf("audit %v %q; loader %q", rep.DiesAtStart, rep.Reason, r.stderr)
	}
	if len(rep.Unresolved) != 1 || !strings.HasSuffix(rep.Unresolved[0].Relocation, "_COPY") {
		t.Errorf("unresolved: %+v", rep.Unresolved)
	}
}

// TestSkippedCandidates: a library of another architecture is passed over
// and "not found" as ld.so says, and the report keeps why; a file that is
// no library at all ends the load, in ld.so's words.
func TestSkippedCandidates(t *testing.T) {
	gcc := needCC(t)
	dir := t.TempDir()
	foo := write(t, dir, "foo.c", "int foo(void){return 0;}\n")
	lib := filepath.Join(dir, "lib", "libfoo.so")
	os.MkdirAll(filepath.Dir(lib), 0o755)
	cc(t, gcc, "-shared", "-fPIC", "-o", lib, foo)
	exe := filepath.Join(dir, "app")
	cc(t, gcc, "-o", exe, write(t, dir, "m.c", "int foo(void);\nint main(void){return foo();}\n"), "-L"+filepath.Dir(lib), "-lfoo", "-Wl,-rpath,$ORIGIN/lib")

	// A candidate ld.so cannot pass over ends the search, and the load,
	// with ld.so's words for it.
	for _, tc := range []struct{ body, reason string }{
		{"\x7fELF\x02\x01\x01", lib + ": file too short"},
		{strings.Repeat("not an ELF file\n", 8), lib + ": invalid ELF header"},
	} {
		os.WriteFile(lib, []byte(tc.body), 0o644)
		r := runReal(t, nil, exe)
		rep := audit1(t, Options{}, exe)
		if !rep.DiesAtStart || rep.Reason != tc.reason || !strings.Contains(r.stderr, rep.Reason) {
			t.Errorf("broken candidate: audit %v %q; loader %q", rep.DiesAtStart, rep.Reason, r.stderr)
		}
	}

	fixture.Need(t, "aarch64-linux-gnu-gcc")
	cross, err := exec.LookPath("aarch64-linux-gnu-gcc")
	if err != nil {
		t.Skip("aarch64-linux-gnu-gcc is not installed: no library of another architecture to skip")
	}
	cc(t, cross, "-shared", "-fPIC", "-o", lib, foo)
	r := runReal(t, nil, exe)
	rep := audit1(t, Options{}, exe)
	if !rep.DiesAtStart || !strings.Contains(r.stderr, rep.Reason) {
		t.Errorf("wrong architecture: audit %v %q; loader %q", rep.DiesAtStart, rep.Reason, r.stderr)
	}
	if want := lib + ": wrong architecture aarch64"; len(rep.Skipped) != 1 || rep.Skipped[0] != want {
		t.Errorf("skipped %q, want %q", rep.Skipped, want)
	}
	// A library to dlopen that is not found says why, naming no flag.
	rep = audit1(t, Options{Dlopen: []string{lib}}, exe)
	if msg := rep.ErrorMessage(); !strings.Contains(msg, "skipped "+lib+": wrong architecture aarch64") || strings.Contains(msg, "--") {
		t.Errorf("dlopen error %q", msg)
	}
}
