package floor_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/abifloor/abifloor/bind"
	"github.com/abifloor/abifloor/ccwrap"
	"github.com/abifloor/abifloor/floor"
	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/abifloor/abifloor/targets"
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
	// A Debian 12 whose system libstdc++ is Debian 11's (GLIBCXX_3.4.28):
	// a bundle that ships its own newer copy still loads there.
	oldCxx := assembleRoot(t, "bookworm")
	old11 := filepath.Join(runtimeRoot(t, "bullseye"), "usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.28")
	sys12, _ := filepath.EvalSymlinks(filepath.Join(oldCxx, "usr/lib/x86_64-linux-gnu/libstdc++.so.6"))
	if out, err := exec.Command("sh", "-c", `rm -f "$2" && cp "$1" "$(dirname "$2")/" && ln -sf libstdc++.so.6.0.28 "$(dirname "$2")/libstdc++.so.6"`, "sh", old11, sys12).CombinedOutput(); err != nil {
		t.Fatalf("replacing libstdc++: %v %s", err, out)
	}
	roots["debian-12-oldcxx"] = oldCxx

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
		run  string // a bundle (path is its directory): the program to run, under it
	}
	relr := fixture.Supports(gcc, "-Wl,-z,pack-relative-relocs")
	fixes := []fix{
		{build("libres.so", floor.ResC, "-shared", "-fPIC", "-Wl,-soname,libres.so"), "run", "ok 7", nil, ""},
		{build("librestwin.so", floor.ResC, "-shared", "-fPIC", "-Wl,-soname,librestwin.so", "-Wl,--no-as-needed", "-lresolv"), "run", "ok 7", nil, ""},
		{build("libthr.so", floor.PthreadC, "-shared", "-fPIC", "-Wl,-soname,libthr.so"), "run", "ok 7", nil, ""},
		{build("libthrtwin.so", floor.PthreadC, "-shared", "-fPIC", "-Wl,-soname,libthrtwin.so", "-Wl,--no-as-needed", "-l:libpthread.so.0"), "run", "ok 7", nil, ""},
		{build("libnorelr.so", relrC, "-shared", "-fPIC", "-nostdlib", "-Wl,-z,nopack-relative-relocs"), "get", "ok 42", nil, ""},
		{cc("runhost", floor.HelloC, "-Wl,--dynamic-linker=/run/host/usr/lib64/ld-linux-x86-64.so.2"), "", "started", nil, ""},
		{cc("hello", floor.HelloC), "", "started", nil, ""},
		// Built here (glibc 2.36): for Debian 12 only.
		{build("nvml-now", floor.NvmlC, "-rdynamic", "-Wl,--unresolved-symbols=ignore-in-object-files", "-Wl,-z,now"), "", "started", []string{"debian-12"}, ""},
		{build("nvml-lazy", floor.NvmlC, "-rdynamic", "-Wl,--unresolved-symbols=ignore-in-object-files", "-Wl,-z,lazy"), "", "started", []string{"debian-12"}, ""},
	}
	// Bundles: a C++ program (built for glibc 2.31, needing GCC 12's
	// GLIBCXX_3.4.29) reaching libraries through RUNPATH $ORIGIN/../lib.
	cxx := fixture.Compiler(t, "g++")
	bundle := func(name string, ship ...string) string {
		t.Helper()
		w, err := ccwrap.New(ccwrap.Options{Glibc: "2.31", CXX: true, CXXRuntime: "shared", CacheDir: filepath.Join(dir, "cache"), Stdout: io.Discard, Stderr: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		b := filepath.Join(dir, name)
		os.MkdirAll(filepath.Join(b, "bin"), 0o755)
		os.MkdirAll(filepath.Join(b, "lib"), 0o755)
		src := filepath.Join(dir, name+".cc")
		os.WriteFile(src, []byte(cxxAppC), 0o644)
		args := []string{cxx, "-o", filepath.Join(b, "bin/app"), src, "-Wl,-rpath,$ORIGIN/../lib", "-Wl,--enable-new-dtags"}
		if slices.Contains(ship, "libz.so.1") {
			args = append(args, "-DWITH_Z", "-Wl,--no-as-needed", "-l:libz.so.1")
		}
		res, err := w.Run(context.Background(), args)
		if err != nil || res.Code != 0 {
			t.Fatalf("abifloor c++ %s: %v, code %d", name, err, res.Code)
		}
		for _, lib := range ship {
			if lib == "libz.so.1" && !slices.Contains(ship, "ship-z") {
				continue
			}
			if lib == "ship-z" {
				lib = "libz.so.1"
			}
			b2, err := os.ReadFile(filepath.Join("/usr/lib/x86_64-linux-gnu", lib))
			if err != nil {
				t.Skipf("no %s on this machine: %v", lib, err)
			}
			os.WriteFile(filepath.Join(b, "lib", lib), b2, 0o644)
		}
		return b
	}
	fixes = append(fixes,
		// The shipped libstdc++ (this machine's: GLIBC 2.36) decides:
		// refused on Debian 11, loads on Debian 12 even where the
		// system's libstdc++ is too old for the program.
		fix{path: bundle("cxxbundle", "libstdc++.so.6"), want: "started", run: "bin/app"},
		// Its twin without the copy needs the system's.
		fix{path: bundle("cxxplain"), want: "started", run: "bin/app"},
		// A library outside the base system: refused where the root
		// lacks it (not_in_base, an error under --strict); shipped on
		// the RUNPATH, it loads.
		fix{path: bundle("zsys", "libz.so.1"), want: "started", run: "bin/app"},
		fix{path: bundle("zship", "libz.so.1", "ship-z"), want: "started", run: "bin/app"},
		fix{path: cc("musl", floor.HelloC, "-Wl,--dynamic-linker=/lib/ld-musl-x86_64.so.1"), want: "started"},
	)
	if relr {
		fixes = append(fixes, fix{build("librelr.so", relrC, "-shared", "-fPIC", "-nostdlib", "-Wl,-z,pack-relative-relocs"), "get", "ok 42", nil, ""})
	} else {
		t.Log("this linker cannot make DT_RELR: the DT_RELR hazard is not held to the loader")
	}
	for _, target := range []string{"debian-11", "debian-12", "debian-12-oldcxx"} {
		root := roots[target]
		paths := []string{drv}
		for _, f := range fixes {
			paths = append(paths, f.path)
		}
		for _, p := range paths {
			if out, err := exec.Command("cp", "-a", p, filepath.Join(root, "t")).CombinedOutput(); err != nil {
				t.Fatalf("cp: %v %s", err, out)
			}
		}
		for _, f := range fixes {
			if (f.on != nil && !contains(f.on, target)) || (target == "debian-12-oldcxx" && f.run == "") {
				continue
			}
			name := filepath.Base(f.path)
			t.Run(target+"/"+name, func(t *testing.T) {
				argv := []string{"/t/" + name}
				if f.sym != "" {
					argv = []string{"/t/drv", "/t/" + name, f.sym}
				}
				if f.run != "" {
					argv = []string{"/t/" + name + "/" + f.run}
				}
				out, err := inRoot(t, root, argv...)
				loads := err == nil && strings.Contains(out, f.want)
				t.Logf("loader: loads %v (%v) %q", loads, err, out)
				// check --target (what the loader needs beyond the base
				// system is an error here, as under --strict; a lazily
				// bound symbol a later dlopen could provide only warns).
				var viol []string
				res := checkStrict(t, f.path, target)
				for _, v := range res.Violations {
					viol = append(viol, v.Cause())
				}
				for _, v := range res.Advisories {
					if v.Rule == floor.RuleNotInBase {
						viol = append(viol, v.Cause())
					}
				}
				if name == "nvml-lazy" && !slices.ContainsFunc(res.Advisories, func(v floor.Violation) bool {
					return v.Rule == floor.RuleLazyUndefined && len(v.Symbols) > 0 && v.Symbols[0].Name == "nvmlInit_v2"
				}) {
					t.Errorf("nvml-lazy: no lazy_undefined warning naming nvmlInit_v2: %+v", res.Advisories)
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
				in, err := bind.ArgPath(root, "/t/"+name+strings.TrimSuffix("/"+f.run, "/"))
				if err != nil {
					t.Fatal(err)
				}
				bres := bind.New(bind.Options{Sysroot: root, BindNow: f.sym != ""}).Audit(context.Background(), []string{in})
				if len(bres.Files) != 1 || bres.Files[0].Error != nil {
					t.Fatalf("bind: %+v", bres.Files)
				}
				r := bres.Files[0]
				if ok := !r.DiesAtStart && r.PLTNone == 0 && len(r.RelrIgnored) == 0; ok != loads {
					t.Errorf("bind --sysroot: loads %v (%s); the loader: loads %v %q", ok, r.Message, loads, out)
				}
				if r.DiesAtStart && strings.HasPrefix(r.Reason, "undefined symbol") && !strings.Contains(out, r.Reason) {
					t.Errorf("bind says %q; the loader %q", r.Reason, out)
				}
			})
		}
	}
}

// cxxAppC needs GLIBCXX_3.4.29 (std::string::reserve(), GCC 11), and
// with WITH_Z a zlib function.
const cxxAppC = `#include <string>
#include <cstdio>
#ifdef WITH_Z
extern "C" const char *zlibVersion(void);
#endif
int main() {
	std::string s = "started";
	s.reserve();
#ifdef WITH_Z
	if (!zlibVersion()) return 1;
#endif
	std::puts(s.c_str());
}
`

// checkStrict is check --target on path with the loader's warnings kept
// apart.
func checkStrict(t *testing.T, path, target string) *floor.CheckResult {
	t.Helper()
	var rq floor.Requirements
	if tg, err := targets.Lookup(target); err == nil {
		rq.Targets = append(rq.Targets, tg)
	}
	if target == "debian-12-oldcxx" {
		// Debian 12 with Debian 11's libstdc++: what a user who knows
		// the system's is older checks with.
		tg, _ := targets.Lookup("debian-12")
		rq.Targets = []targets.Target{tg}
		rq.Add("GLIBCXX", "3.4.28", "--max")
	}
	res, err := floor.Check(context.Background(), []string{path}, rq, floor.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Files {
		if f.Error != nil {
			t.Fatalf("%s: %v", f.Path, f.Error)
		}
	}
	return res
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
