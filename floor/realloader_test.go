package floor_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/abifloor/abifloor/bind"
	"github.com/abifloor/abifloor/ccwrap"
	"github.com/abifloor/abifloor/floor"
	"github.com/abifloor/abifloor/internal/fixture"
)

// runtimeRoot is Debian suite's C and C++ runtime as .ci/fetch-runtime.sh
// unpacks it ($ABIFLOOR_RUNTIME/SUITE), or skips t.
func runtimeRoot(t *testing.T, suite string) string {
	t.Helper()
	dir := os.Getenv("ABIFLOOR_RUNTIME")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache/abifloor/runtime")
	}
	dir = filepath.Join(dir, suite)
	if _, err := os.Stat(filepath.Join(dir, "lib/x86_64-linux-gnu/libc.so.6")); err != nil {
		t.Skipf("no %s runtime under %s: run .ci/fetch-runtime.sh %s", suite, dir, suite)
	}
	return dir
}

// assembleRoot copies the suite's runtime into a fresh root, with /proc
// mounted (the loader finds $ORIGIN through /proc/self/exe) and
// unmounted when the test ends, and a /t for the fixtures.
func assembleRoot(t *testing.T, suite string) string {
	t.Helper()
	src := runtimeRoot(t, suite)
	root := filepath.Join(t.TempDir(), suite)
	if out, err := exec.Command("cp", "-a", src, root).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	for _, d := range []string{"proc", "t", "tmp"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("mount", "-t", "proc", "proc", filepath.Join(root, "proc")).CombinedOutput(); err != nil {
		t.Skipf("cannot mount /proc in the root: %v %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", filepath.Join(root, "proc")).CombinedOutput(); err != nil {
			t.Errorf("umount: %v %s", err, out)
		}
	})
	return root
}

// inRoot runs argv in root with chroot, bounded in time.
func inRoot(t *testing.T, root string, argv ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "chroot", append([]string{root}, argv...)...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LANG=C"}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

const driverC = `#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
	if (!h) { printf("dlopen: %s\n", dlerror()); return 2; }
	int (*f)(void) = (int (*)(void))dlsym(h, argv[2]);
	if (!f) { printf("dlsym: %s\n", dlerror()); return 3; }
	printf("ok %d\n", f());
	return 0;
}
`

// relrC reads a pointer DT_RELR relocates: unrelocated, it points into
// nowhere.
const relrC = "static int x = 42; int *p[] = {&x, &x, &x, &x};\nint get(void) { return *p[2]; }\n"

// TestRealLoader holds check --target and bind --sysroot to the real
// loaders of Debian 11 and 12, assembled from Debian's own libc6,
// libgcc-s1 and libstdc++6: each hazard and its safe twin is copied into
// the root and run there with chroot, libraries through a dlopen(RTLD_NOW)
// driver that then calls into them. Every verdict must agree with what
// the loader did, in both directions.
func TestRealLoader(t *testing.T) {
	if runtime.GOARCH != "amd64" || runtime.GOOS != "linux" {
		t.Skip("the roots are Debian amd64")
	}
	if os.Geteuid() != 0 {
		t.Skip("chroot and mount need root")
	}
	if _, err := exec.LookPath("chroot"); err != nil {
		t.Skip("chroot is not installed")
	}
	gcc := fixture.Compiler(t, "gcc")
	roots := map[string]string{"debian-11": assembleRoot(t, "bullseye"), "debian-12": assembleRoot(t, "bookworm")}

	dir := t.TempDir()
	build := func(name, src string, args ...string) string {
		return fixture.Build(t, gcc, dir, name+".c", src, name, args...)
	}
	// Programs that must run on glibc 2.31 are linked by abifloor cc.
	cc := func(name, src string, args ...string) string {
		t.Helper()
		w, err := ccwrap.New(ccwrap.Options{Glibc: "2.31", CacheDir: filepath.Join(dir, "cache"), Stdout: io.Discard, Stderr: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		srcPath := filepath.Join(dir, name+".c")
		os.WriteFile(srcPath, []byte(src), 0o644)
		out := filepath.Join(dir, name)
		res, err := w.Run(context.Background(), append([]string{gcc, "-o", out, srcPath}, args...))
		if err != nil || res.Code != 0 || res.Proof == nil || !res.Proof.OK() {
			t.Fatalf("abifloor cc %s: %v, code %d, proof %+v", name, err, res.Code, res.Proof)
		}
		return out
	}
	drv := cc("drv", driverC, "-ldl")

	type fix struct {
		path string
		sym  string // a library: the function the driver calls
		want string // what a good run prints
		on   []string
	}
	relr := fixture.Supports(gcc, "-Wl,-z,pack-relative-relocs")
	fixes := []fix{
		{build("libres.so", floor.ResC, "-shared", "-fPIC", "-Wl,-soname,libres.so"), "run", "ok 7", nil},
		{build("librestwin.so", floor.ResC, "-shared", "-fPIC", "-Wl,-soname,librestwin.so", "-Wl,--no-as-needed", "-lresolv"), "run", "ok 7", nil},
		{build("libthr.so", floor.PthreadC, "-shared", "-fPIC", "-Wl,-soname,libthr.so"), "run", "ok 7", nil},
		{build("libthrtwin.so", floor.PthreadC, "-shared", "-fPIC", "-Wl,-soname,libthrtwin.so", "-Wl,--no-as-needed", "-l:libpthread.so.0"), "run", "ok 7", nil},
		{build("libnorelr.so", relrC, "-shared", "-fPIC", "-nostdlib", "-Wl,-z,nopack-relative-relocs"), "get", "ok 42", nil},
		{cc("runhost", floor.HelloC, "-Wl,--dynamic-linker=/run/host/usr/lib64/ld-linux-x86-64.so.2"), "", "started", nil},
		{cc("hello", floor.HelloC), "", "started", nil},
		// Built here (glibc 2.36): for Debian 12 only.
		{build("nvml-now", floor.NvmlC, "-rdynamic", "-Wl,--unresolved-symbols=ignore-in-object-files", "-Wl,-z,now"), "", "started", []string{"debian-12"}},
		{build("nvml-lazy", floor.NvmlC, "-rdynamic", "-Wl,--unresolved-symbols=ignore-in-object-files", "-Wl,-z,lazy"), "", "started", []string{"debian-12"}},
	}
	if relr {
		fixes = append(fixes, fix{build("librelr.so", relrC, "-shared", "-fPIC", "-nostdlib", "-Wl,-z,pack-relative-relocs"), "get", "ok 42", nil})
	} else {
		t.Log("this linker cannot make DT_RELR: the DT_RELR hazard is not held to the loader")
	}
	for target, root := range roots {
		paths := []string{drv}
		for _, f := range fixes {
			paths = append(paths, f.path)
		}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, "t", filepath.Base(p)), b, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		for _, f := range fixes {
			if f.on != nil && !contains(f.on, target) {
				continue
			}
			name := filepath.Base(f.path)
			t.Run(target+"/"+name, func(t *testing.T) {
				argv := []string{"/t/" + name}
				if f.sym != "" {
					argv = []string{"/t/drv", "/t/" + name, f.sym}
				}
				out, err := inRoot(t, root, argv...)
				loads := err == nil && strings.Contains(out, f.want)
				t.Logf("loader: loads %v (%v) %q", loads, err, out)
				// check --target
				var viol []string
				for _, v := range floor.CheckTargets(t, f.path, target) {
					viol = append(viol, v.Cause())
				}
				if passes := len(viol) == 0; passes != loads {
					t.Errorf("check --target %s passes %v %q; the loader: loads %v (%v) %q", target, passes, viol, loads, err, out)
				}
				// Where the loader names a symbol, check names the same.
				if _, sym, ok := strings.Cut(out, "undefined symbol: "); ok && len(viol) > 0 {
					sym, _, _ = strings.Cut(strings.TrimSpace(sym), ",")
					if !strings.Contains(viol[0], "undefined symbol: "+sym+" ") && !strings.Contains(viol[0], "undefined symbol: "+sym+":") {
						t.Errorf("check says %q; the loader says undefined symbol: %s", viol[0], sym)
					}
				}
				// bind --sysroot (RTLD_NOW binds everything at once: --bind-now).
				// DT_RELR is not bind's to model.
				if strings.Contains(name, "relr") {
					return
				}
				in, err := bind.ArgPath(root, "/t/"+name)
				if err != nil {
					t.Fatal(err)
				}
				res := bind.New(bind.Options{Sysroot: root, BindNow: f.sym != ""}).Audit(context.Background(), []string{in})
				if len(res.Files) != 1 || res.Files[0].Error != nil {
					t.Fatalf("bind: %+v", res.Files)
				}
				r := res.Files[0]
				if ok := !r.DiesAtStart && r.PLTNone == 0; ok != loads {
					t.Errorf("bind --sysroot: loads %v (%s); the loader: loads %v %q", ok, r.Message, loads, out)
				}
				if r.DiesAtStart && strings.HasPrefix(r.Reason, "undefined symbol") && !strings.Contains(out, r.Reason) {
					t.Errorf("bind says %q; the loader %q", r.Reason, out)
				}
			})
		}
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
