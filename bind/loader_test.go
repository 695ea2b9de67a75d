package bind

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
)

// These tests compile the go-nvml pattern with the system C compiler, run
// each program under the real loader, and check that the audit's verdict
// matches what the loader did.

const driverC = `
int nvmlInit_v2(void) { return 0; }
int nvmlShutdown(void) { return 0; }
int nvml_data = 42;
`

// The "older driver" lacks nvmlShutdown.
const oldDriverC = `
int nvmlInit_v2(void) { return 0; }
int nvml_data = 42;
`

const appC = `
#include <dlfcn.h>
#include <stdio.h>
int nvmlInit_v2(void);
int nvmlShutdown(void);
#ifdef DATA
extern int nvml_data;
#endif
int main(int argc, char **argv) {
	puts("started");
	fflush(stdout);
	void *h = dlopen(argc > 1 ? argv[1] : "libnvidia-ml.so.1", RTLD_NOW | RTLD_GLOBAL);
	if (!h) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 3; }
	int r = nvmlInit_v2();
	r += nvmlShutdown();
#ifdef DATA
	r += nvml_data - 42;
#endif
	return r;
}
`

func needCC(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("needs a Linux loader")
	}
	fixture.Need(t, "gcc")
	cc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc is not installed: cannot compile fixtures")
	}
	return cc
}

func write(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func cc(t *testing.T, cc string, args ...string) {
	t.Helper()
	out, err := exec.Command(cc, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", cc, strings.Join(args, " "), err, out)
	}
}

// outcome is what the real loader did with a program.
type outcome struct {
	started bool // main ran
	code    int
	stderr  string
}

func runReal(t *testing.T, env []string, prog string, args ...string) outcome {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Env = append([]string{"PATH=/usr/bin:/bin"}, env...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	o := outcome{started: strings.Contains(so.String(), "started"), stderr: se.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		o.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running %s: %v", prog, err)
	}
	return o
}

func audit1(t *testing.T, opt Options, p string) FileReport {
	t.Helper()
	res := New(opt).Audit(context.Background(), []string{p})
	if len(res.Files) != 1 {
		t.Fatalf("audit of %s: %d reports", p, len(res.Files))
	}
	return res.Files[0]
}

func TestNvmlPatternMatchesLoader(t *testing.T) {
	gcc := needCC(t)
	dir := t.TempDir()
	drv := filepath.Join(dir, "drv", "libnvidia-ml.so.1")
	old := filepath.Join(dir, "old", "libnvidia-ml.so.1")
	os.MkdirAll(filepath.Dir(drv), 0o755)
	os.MkdirAll(filepath.Dir(old), 0o755)
	cc(t, gcc, "-shared", "-fPIC", "-o", drv, write(t, dir, "drv.c", driverC))
	cc(t, gcc, "-shared", "-fPIC", "-o", old, write(t, dir, "old.c", oldDriverC))
	src := write(t, dir, "app.c", appC)
	for _, pie := range []string{"-pie", "-no-pie"} {
		for _, export := range []string{"", "-rdynamic"} {
			for _, binding := range []string{"lazy", "now", "noplt"} {
				for _, data := range []bool{false, true} {
					name := "app" + pie + export + "-" + binding
					if data {
						name += "-data"
					}
					t.Run(name, func(t *testing.T) {
						exe := filepath.Join(dir, name)
						args := []string{"-o", exe, src, pie, "-ldl", "-Wl,--unresolved-symbols=ignore-in-object-files"}
						if export != "" {
							args = append(args, export)
						}
						switch binding {
						case "lazy":
							args = append(args, "-Wl,-z,lazy")
						case "now":
							args = append(args, "-Wl,-z,now")
						case "noplt":
							args = append(args, "-fno-plt", "-Wl,-z,lazy")
						}
						if data {
							args = append(args, "-DDATA")
						}
						cc(t, gcc, args...)
						checkAgainstLoader(t, exe, drv, old)
					})
				}
			}
		}
	}
}

// checkAgainstLoader runs exe with the driver, without it, and with the
// old driver, and compares each with the audit.
func checkAgainstLoader(t *testing.T, exe, drv, old string) {
	t.Helper()
	rep := audit1(t, Options{}, exe)
	if rep.Error != nil {
		t.Fatalf("audit error: %s", rep.Error)
	}
	with := runReal(t, nil, exe, drv)
	without := runReal(t, nil, exe, filepath.Join(filepath.Dir(drv), "absent.so"))
	if rep.DiesAtStart == with.started || rep.DiesAtStart == without.started {
		t.Fatalf("audit says dies_at_start=%v (%s); loader: started=%v/%v, stderr %q", rep.DiesAtStart, rep.Reason, with.started, without.started, with.stderr)
	}
	if rep.DiesAtStart {
		// The reason is what ld.so printed.
		if !strings.Contains(with.stderr, rep.Reason) {
			t.Errorf("reason %q not in the loader's message %q", rep.Reason, with.stderr)
		}
		return
	}
	// It loads. The driver, dlopen'd, must provide every lazy symbol...
	withDrv := audit1(t, Options{Dlopen: []string{drv}}, exe)
	if len(withDrv.DlopenMissing) != 0 && with.code == 0 {
		t.Errorf("audit says the driver lacks %v, yet the program ran", withDrv.DlopenMissing)
	}
	// ...and the old driver lacks nvmlShutdown when it is bound lazily.
	withOld := audit1(t, Options{Dlopen: []string{old}}, exe)
	oldRun := runReal(t, nil, exe, old)
	lazyMissing := strings.Contains(oldRun.stderr, "undefined symbol: nvmlShutdown")
	found := false
	for _, u := range withOld.DlopenMissing {
		found = found || u.Name == "nvmlShutdown"
	}
	if found != lazyMissing {
		t.Errorf("old driver: audit dlopen_missing=%v, loader stderr %q", withOld.DlopenMissing, oldRun.stderr)
	}
	if with.code != 0 {
		// Linked without exporting the symbols, the calls go nowhere: the
		// program starts and crashes at the first call. Only the PLT NONE
		// form is visible in the file.
		t.Logf("loads, then exits %d at the first call (plt_none=%d)", with.code, rep.PLTNone)
	}
}

// TestGoCgoPattern builds the same pattern with cgo; the Go linker may add
// BIND_NOW, and the audit must agree with the loader either way.
func TestGoCgoPattern(t *testing.T) {
	gcc := needCC(t)
	fixture.Need(t, "go")
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH: cannot build the cgo fixture")
	}
	dir := t.TempDir() // C sources go in csrc/: cgo would compile them into the program
	drv := filepath.Join(dir, "drv", "libnvidia-ml.so.1")
	os.MkdirAll(filepath.Dir(drv), 0o755)
	cc(t, gcc, "-shared", "-fPIC", "-o", drv, write(t, dir, "csrc/drv.c", driverC))
	old := filepath.Join(dir, "old", "libnvidia-ml.so.1")
	os.MkdirAll(filepath.Dir(old), 0o755)
	cc(t, gcc, "-shared", "-fPIC", "-o", old, write(t, dir, "csrc/old.c", oldDriverC))
	write(t, dir, "go.mod", "module nvmlapp\n\ngo 1.21\n")
	write(t, dir, "main.go", `package main

/*
#cgo LDFLAGS: -ldl -Wl,--unresolved-symbols=ignore-in-object-files -rdynamic
#include <dlfcn.h>
#include <stdlib.h>
int nvmlInit_v2(void);
int nvmlShutdown(void);
static int run(const char *lib) {
	void *h = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
	if (!h) return 3;
	return nvmlInit_v2() + nvmlShutdown();
}
*/
import "C"

import (
	"fmt"
	"os"
	"unsafe"
)

func main() {
	fmt.Println("started")
	lib := C.CString(os.Args[1])
	defer C.free(unsafe.Pointer(lib))
	os.Exit(int(C.run(lib)))
}
`)
	exe := filepath.Join(dir, "nvmlapp")
	cmd := exec.Command(gobin, "build", "-o", exe, ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("the toolchain cannot build the cgo fixture: %v\n%s", err, out)
	}
	rep := audit1(t, Options{}, exe)
	if !rep.Go {
		t.Errorf("not recognised as a Go binary")
	}
	t.Logf("Go binary: bind_now=%v dies_at_start=%v %s", rep.BindNow, rep.DiesAtStart, rep.Reason)
	checkAgainstLoader(t, exe, drv, old)
}
