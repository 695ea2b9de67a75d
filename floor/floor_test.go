package floor

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/elfgen"
	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/abifloor/abifloor/symver"
)

func analyzeFile(t *testing.T, path string, why bool, limits Limits) (FileReport, []Violation) {
	t.Helper()
	f, err := elfx.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return Analyze(f, path, FileOptions{Why: why, Limits: limits})
}

const pinnedC = `
#include <string.h>
#include <stdio.h>
#ifdef PIN
__asm__(".symver memcpy,memcpy@" PIN);
#endif
int copy(char *d, const char *s, size_t n) { memcpy(d, s, n); return puts(d); }
`

// TestPinnedFloors compiles shared libraries whose memcpy is pinned to an
// exact version, for x86_64 and aarch64, and checks floors, --why and
// violations.
func TestPinnedFloors(t *testing.T) {
	for _, tc := range []struct {
		cc, goarch, pin, floor, sym string
	}{
		{"gcc", "amd64", "GLIBC_2.2.5", "2.2.5", "memcpy"},
		{"gcc", "amd64", "", "2.14", "memcpy"},
		{"aarch64-linux-gnu-gcc", "", "GLIBC_2.17", "2.17", "memcpy"},
		// i386 shared objects reference __cxa_finalize@GLIBC_2.1.3.
		{"i686-linux-gnu-gcc", "", "GLIBC_2.0", "2.1.3", "__cxa_finalize"},
		{"s390x-linux-gnu-gcc", "", "GLIBC_2.2", "2.2", "memcpy"},
	} {
		t.Run(tc.cc+"/"+tc.floor, func(t *testing.T) {
			if tc.goarch != "" && tc.goarch != runtime.GOARCH {
				t.Skipf("the fixture pins x86_64 versions; this is %s", runtime.GOARCH)
			}
			args := []string{"-shared", "-fPIC", "-O0"}
			if tc.pin != "" {
				args = append(args, `-DPIN="`+tc.pin+`"`)
			}
			lib := fixture.Build(t, tc.cc, t.TempDir(), "pin.c", pinnedC, "libpin.so", args...)
			r, viol := analyzeFile(t, lib, true, nil)
			if r.Error != nil || r.Floors["GLIBC"] != tc.floor {
				t.Fatalf("floors %v (error %v), want GLIBC %s", r.Floors, r.Error, tc.floor)
			}
			if len(viol) != 0 {
				t.Fatalf("violations without limits: %v", viol)
			}
			want := tc.sym + "@GLIBC_" + tc.floor
			if !slices.Contains(refStrings(r.Why["GLIBC"]), want) {
				t.Errorf("why GLIBC = %v, want %s", r.Why["GLIBC"], want)
			}
			// One step below the floor is a violation naming memcpy.
			_, viol = analyzeFile(t, lib, false, Limits{"GLIBC": "1.0"})
			if len(viol) != 1 || viol[0].Required != tc.floor || !slices.Contains(refStrings(viol[0].Symbols), want) {
				t.Fatalf("violations = %+v", viol)
			}
			if _, viol = analyzeFile(t, lib, false, Limits{"GLIBC": tc.floor, "GLIBCXX": "3.4"}); len(viol) != 0 {
				t.Fatalf("within the limit, yet violations %+v", viol)
			}
		})
	}
}

const cxxSrc = `
#include <string>
#include <stdexcept>
std::string greet(const std::string &who) {
	if (who.empty()) throw std::runtime_error("nobody");
	return "hello " + who;
}
`

// TestCxxFloors links C++ so libstdc++ (GLIBCXX, CXXABI) and libgcc_s (GCC)
// versions appear, and checks them against the versions the library has.
func TestCxxFloors(t *testing.T) {
	for _, cc := range []string{"g++", "aarch64-linux-gnu-g++"} {
		t.Run(cc, func(t *testing.T) {
			lib := fixture.Build(t, cc, t.TempDir(), "greet.cc", cxxSrc, "libgreet.so", "-shared", "-fPIC", "-O1")
			r, _ := analyzeFile(t, lib, true, nil)
			if r.Error != nil {
				t.Fatal(r.Error)
			}
			if symver.Compare(r.Floors["GLIBCXX"], "3.4.21") < 0 || symver.Compare(r.Floors["CXXABI"], "1.3") < 0 {
				t.Fatalf("floors %v: want GLIBCXX >= 3.4.21 (the C++11 std::string) and CXXABI", r.Floors)
			}
			if len(r.Why["GLIBCXX"]) == 0 {
				t.Errorf("no symbol explains GLIBCXX %s", r.Floors["GLIBCXX"])
			}
			_, viol := analyzeFile(t, lib, false, Limits{"GLIBCXX": "3.4.20"})
			if len(viol) != 1 || viol[0].Namespace != "GLIBCXX" {
				t.Fatalf("GLIBCXX limit 3.4.20: violations %+v", viol)
			}
		})
	}
}

// TestRelr links with DT_RELR where the toolchain can, which must raise the
// glibc floor to 2.36 through GLIBC_ABI_DT_RELR.
func TestRelr(t *testing.T) {
	cc := fixture.Compiler(t, "gcc")
	if !fixture.Supports(cc, "-Wl,-z,pack-relative-relocs") {
		t.Skip("this linker cannot make DT_RELR (-z pack-relative-relocs needs binutils 2.38)")
	}
	src := "static int x; int *p[] = {&x, &x, &x, &x};\nint main(void) { return *p[0]; }\n"
	exe := fixture.Build(t, "gcc", t.TempDir(), "relr.c", src, "relr", "-pie", "-fPIE", "-Wl,-z,pack-relative-relocs")
	r, viol := analyzeFile(t, exe, true, Limits{"GLIBC": "2.35"})
	if r.Floors["GLIBC"] != "2.36" && symver.Compare(r.Floors["GLIBC"], "2.36") < 0 {
		t.Fatalf("GLIBC floor %s, want at least 2.36 for DT_RELR", r.Floors["GLIBC"])
	}
	if len(r.Notes) == 0 {
		t.Error("no note explains the DT_RELR floor")
	}
	if len(viol) != 1 || !slices.Contains(refStrings(viol[0].Symbols), "GLIBC_ABI_DT_RELR") {
		t.Fatalf("violations %+v: want one naming GLIBC_ABI_DT_RELR", viol)
	}
}

// TestRelrWithoutLibc: a library linked with DT_RELR and without libc
// (-nostdlib) carries no GLIBC_ABI_DT_RELR marker, yet a loader before
// glibc 2.36 still maps it with its pointers unrelocated. DT_RELR itself
// sets the floor, and a note says the marker is absent. Its twin without
// DT_RELR has no floor.
func TestRelrWithoutLibc(t *testing.T) {
	cc := fixture.Compiler(t, "gcc")
	if !fixture.Supports(cc, "-Wl,-z,pack-relative-relocs") {
		t.Skip("this linker cannot make DT_RELR (-z pack-relative-relocs needs binutils 2.38)")
	}
	src := "static int x = 42; int *p[] = {&x, &x, &x, &x};\nint get(void) { return *p[2]; }\n"
	dir := t.TempDir()
	lib := fixture.Build(t, "gcc", dir, "relr.c", src, "librelr.so", "-shared", "-fPIC", "-nostdlib", "-Wl,-z,pack-relative-relocs")
	twin := fixture.Build(t, "gcc", dir, "relr.c", src, "libtwin.so", "-shared", "-fPIC", "-nostdlib", "-Wl,-z,nopack-relative-relocs")
	r, viol := analyzeFile(t, lib, true, Limits{"GLIBC": "2.31"})
	if r.Error != nil {
		t.Fatal(r.Error)
	}
	if len(r.Needed) != 0 {
		t.Fatalf("fixture needs %v: want no library at all", r.Needed)
	}
	if r.Floors["GLIBC"] != "2.36" {
		t.Fatalf("GLIBC floor %q, want 2.36 for DT_RELR without libc", r.Floors["GLIBC"])
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "without a GLIBC_ABI_DT_RELR requirement") || !strings.Contains(r.Notes[0], "needs no libc.so.6") {
		t.Errorf("notes %q: want one saying the marker is absent and why", r.Notes)
	}
	if len(viol) != 1 || viol[0].Required != "2.36" || !slices.Contains(refStrings(viol[0].Symbols), "DT_RELR") {
		t.Fatalf("violations %+v: want one naming DT_RELR", viol)
	}
	if got := r.Why["GLIBC"]; len(got) != 1 || got[0].Name != "DT_RELR" {
		t.Errorf("why %v: want DT_RELR", got)
	}
	r, viol = analyzeFile(t, twin, false, Limits{"GLIBC": "2.31"})
	if len(r.Floors) != 0 || len(viol) != 0 || len(r.Notes) != 0 {
		t.Errorf("twin without DT_RELR: floors %v, violations %v, notes %q: want none", r.Floors, viol, r.Notes)
	}
}

// TestScanTree checks ordering, hard-link dedupe and error reporting over
// a small tree.
func TestScanTree(t *testing.T) {
	dir := t.TempDir()
	lib := fixture.Build(t, "gcc", dir, "pin.c", pinnedC, "libb.so", "-shared", "-fPIC")
	must(t, os.Link(lib, filepath.Join(dir, "liba.so")))
	must(t, os.WriteFile(filepath.Join(dir, "broken.so"), []byte("\x7fELF\x02\x01\x01\x00"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello"), 0o644))
	must(t, os.Symlink("libb.so", filepath.Join(dir, "libb.so.1")))
	res := Scan(context.Background(), []string{dir}, Options{})
	var paths []string
	for _, f := range res.Files {
		paths = append(paths, filepath.Base(f.Path))
	}
	// liba.so and libb.so are one inode: only one is listed.
	if len(paths) != 2 || paths[0] != "broken.so" || (paths[1] != "liba.so" && paths[1] != "libb.so") {
		t.Fatalf("files %v", paths)
	}
	broken := res.Files[0]
	var fe *elfx.FormatError
	if !errors.As(broken.Error, &fe) || broken.Floors != nil {
		t.Errorf("broken.so: error %v (want an *elfx.FormatError), floors %v", broken.Error, broken.Floors)
	}
	// The JSON names the file once, in "path".
	b, err := json.Marshal(broken)
	must(t, err)
	var back struct{ Path, Error string }
	must(t, json.Unmarshal(b, &back))
	if back.Path != broken.Path || !strings.HasPrefix(back.Error, "malformed ELF: ") {
		t.Errorf("JSON %s", b)
	}
	if res.Stats.Errors != 1 || res.Stats.Symlinks != 1 || res.Stats.HardDups != 1 {
		t.Errorf("stats %+v", res.Stats)
	}
	if !reflect.DeepEqual(res.Floors, res.Files[1].Floors) {
		t.Errorf("tree floor %v, want the one good file's %v", res.Floors, res.Files[1].Floors)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestNameBomb (issue 10, item 4): scan --why of a small file whose
// symbol names all point at one long string costs what the file costs,
// and reports it as malformed.
func TestNameBomb(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bomb.so")
	must(t, os.WriteFile(p, elfgen.NameBomb(10000, 128<<10), 0o644))
	var res *Result
	n := elfgen.Allocated(func() { res = Scan(context.Background(), []string{p}, Options{Why: true}) })
	var fe *elfx.FormatError
	if len(res.Files) != 1 || !errors.As(res.Files[0].Error, &fe) {
		t.Fatalf("files %+v", res.Files)
	}
	if n > 32<<20 {
		t.Errorf("scan --why of a 400 KB file allocated %d MB", n>>20)
	}
}
