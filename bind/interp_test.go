package bind

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

const helloC = "#include <stdio.h>\nint main(void) { puts(\"started\"); return 0; }\n"

// hostLoader is this machine's x86_64 glibc loader and libc, which the
// root fixtures copy; the test skips elsewhere.
func hostLoader(t *testing.T) (ldso, libc []byte) {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		t.Skip("the root fixtures are x86_64")
	}
	ldso, err1 := os.ReadFile("/lib64/ld-linux-x86-64.so.2")
	libc, err2 := os.ReadFile("/lib/x86_64-linux-gnu/libc.so.6")
	if err1 != nil || err2 != nil {
		t.Skip("this machine's x86_64 glibc is not at /lib64 and /lib/x86_64-linux-gnu")
	}
	return ldso, libc
}

// TestInterpreter: a program whose PT_INTERP names a loader the system
// lacks never starts (the kernel's ENOENT: "cannot execute: required
// file not found"), on this machine, under a sysroot and in an image; its
// twin with the system's loader starts. The host verdicts are held
// against a real execve.
func TestInterpreter(t *testing.T) {
	gcc := needCC(t)
	ldso, libc := hostLoader(t)
	dir := t.TempDir()
	src := write(t, dir, "hello.c", helloC)
	musl, typo := filepath.Join(dir, "musl"), filepath.Join(dir, "typo")
	twin := filepath.Join(dir, "twin")
	cc(t, gcc, "-o", musl, src, "-Wl,--dynamic-linker=/lib/ld-musl-x86_64.so.1")
	cc(t, gcc, "-o", typo, src, "-Wl,--dynamic-linker=/lib64/ld-linux-x86_64.so.2")
	cc(t, gcc, "-o", twin, src)
	if _, err := os.Stat("/lib/ld-musl-x86_64.so.1"); err == nil {
		t.Skip("this machine has a musl loader")
	}

	t.Run("host", func(t *testing.T) {
		for _, c := range []struct {
			exe, interp string
		}{{musl, "/lib/ld-musl-x86_64.so.1"}, {typo, "/lib64/ld-linux-x86_64.so.2"}} {
			rep := audit1(t, Options{}, c.exe)
			want := "interpreter " + c.interp + " not found"
			if !rep.DiesAtStart || rep.Reason != want || !strings.Contains(rep.Message, "required file not found") {
				t.Errorf("%s: dies %v, reason %q, message %q: want %q", c.exe, rep.DiesAtStart, rep.Reason, rep.Message, want)
			}
			err := exec.Command(c.exe).Run()
			if !errors.Is(err, syscall.ENOENT) {
				t.Errorf("%s: the kernel says %v, want ENOENT", c.exe, err)
			}
		}
		if rep := audit1(t, Options{}, twin); rep.DiesAtStart {
			t.Errorf("twin: %s", rep.Reason)
		}
		if out, err := exec.Command(twin).Output(); err != nil || !strings.Contains(string(out), "started") {
			t.Errorf("twin does not run: %v", err)
		}
	})

	// A root with glibc's loader and libc, none of musl's.
	root := t.TempDir()
	put := func(p string, b []byte) {
		t.Helper()
		os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755)
		if err := os.WriteFile(filepath.Join(root, p), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	put("lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", ldso)
	put("lib/x86_64-linux-gnu/libc.so.6", libc)
	os.MkdirAll(filepath.Join(root, "lib64"), 0o755)
	os.Symlink("/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", filepath.Join(root, "lib64/ld-linux-x86-64.so.2"))
	for _, exe := range []string{musl, twin} {
		b, _ := os.ReadFile(exe)
		put("usr/bin/"+filepath.Base(exe), b)
	}
	// The link to the loader is absolute: resolved inside the root, not
	// on this machine.
	t.Run("sysroot", func(t *testing.T) {
		rep := audit1(t, Options{Sysroot: root}, filepath.Join(root, "usr/bin/musl"))
		if !rep.DiesAtStart || rep.Reason != "interpreter /lib/ld-musl-x86_64.so.1 not found" {
			t.Errorf("musl: dies %v, reason %q", rep.DiesAtStart, rep.Reason)
		}
		rep = audit1(t, Options{Sysroot: root}, filepath.Join(root, "usr/bin/twin"))
		if rep.DiesAtStart || rep.Error != nil {
			t.Errorf("twin: %s %v", rep.Message, rep.Error)
		}
		// The root's loader link, broken: the twin no longer starts.
		os.Remove(filepath.Join(root, "lib64/ld-linux-x86-64.so.2"))
		defer os.Symlink("/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", filepath.Join(root, "lib64/ld-linux-x86-64.so.2"))
		rep = audit1(t, Options{Sysroot: root}, filepath.Join(root, "usr/bin/twin"))
		if !rep.DiesAtStart || !strings.HasPrefix(rep.Reason, "interpreter /lib64/ld-linux-x86-64.so.2") {
			t.Errorf("twin without the root's loader: dies %v, reason %q", rep.DiesAtStart, rep.Reason)
		}
	})
	// A loader of another machine is refused (the kernel's ELIBBAD).
	t.Run("wrong machine", func(t *testing.T) {
		other := t.TempDir()
		b, _ := os.ReadFile(twin)
		os.MkdirAll(filepath.Join(other, "lib64"), 0o755)
		os.MkdirAll(filepath.Join(other, "usr/bin"), 0o755)
		os.WriteFile(filepath.Join(other, "usr/bin/twin"), b, 0o755)
		os.WriteFile(filepath.Join(other, "lib64/ld-linux-x86-64.so.2"), []byte("#!/bin/sh\n"), 0o755)
		rep := audit1(t, Options{Sysroot: other}, filepath.Join(other, "usr/bin/twin"))
		if !rep.DiesAtStart || !strings.Contains(rep.Reason, "interpreter /lib64/ld-linux-x86-64.so.2: ") {
			t.Errorf("dies %v, reason %q", rep.DiesAtStart, rep.Reason)
		}
	})
	t.Run("image", func(t *testing.T) {
		mb, _ := os.ReadFile(musl)
		tb, _ := os.ReadFile(twin)
		l := layerTar(t, []imgEnt{
			{name: "usr/bin/musl", data: mb},
			{name: "usr/bin/twin", data: tb},
			{name: "usr/lib/x86_64-linux-gnu/libc.so.6", data: libc},
			{name: "usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", data: ldso},
			{name: "lib", link: "usr/lib"},
			{name: "lib64/ld-linux-x86-64.so.2", link: "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"},
		})
		imgDir := filepath.Join(t.TempDir(), "img")
		writeImage(t, imgDir, imgDir+".tar", l)
		img, err := LoadImage(context.Background(), imgDir+".tar", 0)
		if err != nil {
			t.Fatal(err)
		}
		res := New(Options{Image: img}).Audit(context.Background(), []string{"/usr/bin/musl", "/usr/bin/twin"})
		if len(res.Files) != 2 {
			t.Fatalf("%d reports", len(res.Files))
		}
		if f := res.Files[0]; !f.DiesAtStart || f.Reason != "interpreter /lib/ld-musl-x86_64.so.1 not found" {
			t.Errorf("musl: dies %v, reason %q", f.DiesAtStart, f.Reason)
		}
		if f := res.Files[1]; f.DiesAtStart || f.Error != nil {
			t.Errorf("twin: %s %v", f.Message, f.Error)
		}
	})
}

// TestPLTNoneBindNow: a program linked with
// --unresolved-symbols=ignore-all keeps PLT relocations of type NONE.
// Linked lazily the loader refuses it at start; with -z now it starts and
// crashes at the first call. Both are failures, held against the real
// loader; a twin that links the symbol loads.
func TestPLTNoneBindNow(t *testing.T) {
	gcc := needCC(t)
	dir := t.TempDir()
	src := write(t, dir, "u.c", "#include <stdio.h>\nextern int nosuch(int);\nint main(void) { puts(\"started\"); fflush(stdout); return nosuch(3); }\n")
	lazy, now := filepath.Join(dir, "lazy"), filepath.Join(dir, "now")
	cc(t, gcc, "-pie", "-fPIE", "-o", lazy, src, "-Wl,--unresolved-symbols=ignore-all", "-Wl,-z,lazy")
	cc(t, gcc, "-pie", "-fPIE", "-o", now, src, "-Wl,--unresolved-symbols=ignore-all", "-Wl,-z,now")

	res := New(Options{}).Audit(context.Background(), []string{lazy, now})
	if len(res.Files) != 2 {
		t.Fatalf("%d reports", len(res.Files))
	}
	l, n := res.Files[0], res.Files[1]
	if l.PLTNone == 0 || n.PLTNone == 0 {
		t.Skipf("this linker left no PLT relocation of type NONE (lazy %d, now %d)", l.PLTNone, n.PLTNone)
	}
	if !l.DiesAtStart || l.Reason != "unexpected PLT reloc type 0x00" {
		t.Errorf("lazy: dies %v, reason %q", l.DiesAtStart, l.Reason)
	}
	if n.DiesAtStart || !n.BindNow {
		t.Errorf("now: dies %v (%s), bind now %v: want a start", n.DiesAtStart, n.Reason, n.BindNow)
	}
	if !res.Fails(false) {
		t.Error("PLT relocations of type NONE under BIND_NOW do not fail the audit")
	}
	// The real loader: the lazy one never starts, the other crashes.
	if o := runReal(t, nil, lazy); o.started || !strings.Contains(o.stderr, l.Reason) {
		t.Errorf("lazy under the loader: started %v, %q", o.started, o.stderr)
	}
	if o := runReal(t, nil, now); !o.started || o.code == 0 {
		t.Errorf("now under the loader: started %v, exit %d: want a crash after start", o.started, o.code)
	}
	var text strings.Builder
	(&Result{Files: []FileReport{n}}).WriteText(&text, TextOptions{})
	if !strings.Contains(text.String(), "crashes at the first call through a PLT entry") {
		t.Errorf("text:\n%s", text.String())
	}
	var ju strings.Builder
	(&Result{Files: []FileReport{n}}).WriteJUnit(&ju, false)
	if !strings.Contains(ju.String(), "bind/plt-none") {
		t.Errorf("junit has no failure:\n%s", ju.String())
	}
}

// TestNonMergedRoot: in a Debian root without merged /usr (Debian 11's
// libc6 unpacked alone), the libraries are in /lib/<triplet> and
// /usr/lib/<triplet> does not exist; with no ld.so.cache, the loader's
// default search still finds them there.
func TestNonMergedRoot(t *testing.T) {
	gcc := needCC(t)
	ldso, libc := hostLoader(t)
	dir := t.TempDir()
	exe := filepath.Join(dir, "hello")
	cc(t, gcc, "-o", exe, write(t, dir, "hello.c", helloC))
	root := t.TempDir()
	b, _ := os.ReadFile(exe)
	for p, data := range map[string][]byte{"lib/x86_64-linux-gnu/ld-linux-x86-64.so.2": ldso, "lib/x86_64-linux-gnu/libc.so.6": libc, "usr/bin/hello": b} {
		os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755)
		if err := os.WriteFile(filepath.Join(root, p), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(root, "lib64"), 0o755)
	os.Symlink("/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", filepath.Join(root, "lib64/ld-linux-x86-64.so.2"))
	rep := audit1(t, Options{Sysroot: root}, filepath.Join(root, "usr/bin/hello"))
	if rep.DiesAtStart || rep.Error != nil || len(rep.Libraries) == 0 || rep.Libraries[0] != "/lib/x86_64-linux-gnu/libc.so.6" {
		t.Errorf("dies %v (%s), error %v, libraries %v: want libc.so.6 from /lib/x86_64-linux-gnu", rep.DiesAtStart, rep.Message, rep.Error, rep.Libraries)
	}
}

// TestGoLinkerBindNow: "BIND_NOW (Go linker)" only when the Go linker
// asked for it (-ldflags=-bindnow, a program that may load plugins), not
// when the user passed -z now to the external linker.
func TestGoLinkerBindNow(t *testing.T) {
	needCC(t)
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH: cannot build the Go fixtures")
	}
	dir := t.TempDir()
	write(t, dir, "go.mod", "module gobn\n\ngo 1.21\n")
	write(t, dir, "cgo/main.go", "package main\n\n// static int one(void) { return 1; }\nimport \"C\"\n\nfunc main() { println(C.one()) }\n")
	write(t, dir, "plug/main.go", "package main\n\nimport (\n\t\"os\"\n\t\"plugin\"\n)\n\nfunc main() {\n\tif len(os.Args) > 5 {\n\t\tplugin.Open(os.Args[1])\n\t}\n}\n")
	build := func(out, pkg string, args ...string) string {
		t.Helper()
		exe := filepath.Join(dir, out)
		cmd := exec.Command(gobin, append(append([]string{"build", "-o", exe}, args...), pkg)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "CGO_ENABLED=1", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("the toolchain cannot build the cgo fixture: %v\n%s", err, out)
		}
		return exe
	}
	for _, c := range []struct {
		exe       string
		bindNow   bool
		goBindNow bool
	}{
		{build("plain", "./cgo"), false, false},
		{build("extld", "./cgo", "-ldflags=-extldflags=-Wl,-z,now"), true, false},
		{build("bindnow", "./cgo", "-ldflags=-bindnow"), true, true},
		{build("plugins", "./plug"), true, true},
	} {
		rep := audit1(t, Options{}, c.exe)
		if !rep.Go || rep.BindNow != c.bindNow || rep.GoBindNow != c.goBindNow {
			t.Errorf("%s: go %v, bind now %v, Go linker's %v: want %v, %v", filepath.Base(c.exe), rep.Go, rep.BindNow, rep.GoBindNow, c.bindNow, c.goBindNow)
		}
		var text strings.Builder
		(&Result{Files: []FileReport{rep}}).WriteText(&text, TextOptions{})
		if got := strings.Contains(text.String(), "(Go linker)"); got != c.goBindNow {
			t.Errorf("%s: text says Go linker %v:\n%s", filepath.Base(c.exe), got, text.String())
		}
	}
}

// TestBindNowMatchesLoader: the --bind-now verdict of each form of the
// go-nvml pattern is what the real loader does under LD_BIND_NOW=1, with
// the driver present (dlopen'd after start, too late) and absent; the
// lazily linked ones start as linked, and IfBindNow says so.
func TestBindNowMatchesLoader(t *testing.T) {
	gcc := needCC(t)
	dir := t.TempDir()
	drv := filepath.Join(dir, "drv", "libnvidia-ml.so.1")
	os.MkdirAll(filepath.Dir(drv), 0o755)
	cc(t, gcc, "-shared", "-fPIC", "-o", drv, write(t, dir, "drv.c", driverC))
	src := write(t, dir, "app.c", appC)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"lazy-rdynamic", []string{"-rdynamic", "-Wl,-z,lazy"}},
		{"now-rdynamic", []string{"-rdynamic", "-Wl,-z,now"}},
		{"lazy-pie", []string{"-pie", "-Wl,-z,lazy"}},
		{"plain", []string{"-DPLAIN"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			exe := filepath.Join(dir, c.name)
			s := src
			if c.name == "plain" {
				s = write(t, dir, "plain.c", "#include <stdio.h>\nint main(void) { puts(\"started\"); return 0; }\n")
			}
			cc(t, gcc, append([]string{"-o", exe, s, "-ldl", "-Wl,--unresolved-symbols=ignore-in-object-files"}, c.args...)...)
			linked := audit1(t, Options{}, exe)
			rep := audit1(t, Options{BindNow: true}, exe)
			for _, arg := range []string{drv, filepath.Join(dir, "absent.so")} {
				o := runReal(t, []string{"LD_BIND_NOW=1"}, exe, arg)
				if rep.DiesAtStart == o.started {
					t.Fatalf("--bind-now: dies %v (%s); LD_BIND_NOW=1: started %v, stderr %q", rep.DiesAtStart, rep.Reason, o.started, o.stderr)
				}
				if rep.DiesAtStart && !strings.Contains(o.stderr, rep.Reason) {
					t.Errorf("reason %q not in the loader's %q", rep.Reason, o.stderr)
				}
			}
			if want := rep.DiesAtStart && !linked.DiesAtStart; rep.IfBindNow != want {
				t.Errorf("if_bind_now %v, want %v (as linked: dies %v)", rep.IfBindNow, want, linked.DiesAtStart)
			}
		})
	}
}
