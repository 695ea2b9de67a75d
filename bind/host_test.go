package bind

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
)

// hostTree builds prog (in bin/) with a search path of $ORIGIN/../lib/priv,
// and lib/priv/libA.so, which needs lib/priv/libB.so and has no search
// path of its own: libA finds libB only through prog. With dtags
// "--enable-new-dtags" prog's path is a RUNPATH, which does not reach
// libA's own dependencies, so prog needs libB itself (as systemd needs
// libsystemd-shared); with "--disable-new-dtags" it is an RPATH, which
// does, and prog needs libA alone.
func hostTree(t *testing.T, dtags string) string {
	t.Helper()
	cc := fixture.Compiler(t, "gcc")
	dir := t.TempDir()
	priv := filepath.Join(dir, "lib", "priv")
	if err := os.MkdirAll(priv, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(cc, args...)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gcc %v: %v\n%s", args, err, b)
		}
	}
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b.c", "int b(void) { return 1; }\n")
	write("a.c", "int b(void);\nint a(void) { return b(); }\n")
	write("prog.c", "int a(void);\nint b(void);\nint main(void) { return a() + b() - 2; }\n")
	run("-shared", "-fPIC", "-Wl,-soname,libB.so", "-o", "lib/priv/libB.so", "b.c")
	run("-shared", "-fPIC", "-Wl,-soname,libA.so", "-o", "lib/priv/libA.so", "a.c", "-Llib/priv", "-lB")
	libs := []string{"-lA", "-lB"}
	if dtags == "--disable-new-dtags" {
		write("prog.c", "int a(void);\nint main(void) { return a() - 1; }\n")
		libs = []string{"-lA"}
	}
	run(append([]string{"-o", "bin/prog", "prog.c", "-Wl,--no-as-needed", "-Wl," + dtags, "-Wl,-rpath,$ORIGIN/../lib/priv", "-Wl,-rpath-link,lib/priv", "-Llib/priv"}, libs...)...)
	// The real loader runs it: the tree is sound.
	if out, err := exec.Command(filepath.Join(dir, "bin", "prog")).CombinedOutput(); err != nil {
		t.Fatalf("prog does not run: %v\n%s", err, out)
	}
	return dir
}

func TestLibraryFoundViaHost(t *testing.T) {
	for _, dtags := range []string{"--enable-new-dtags", "--disable-new-dtags"} {
		t.Run(dtags, func(t *testing.T) {
			dir := hostTree(t, dtags)
			libA := filepath.Join(dir, "lib", "priv", "libA.so")
			libB := filepath.Join(dir, "lib", "priv", "libB.so")
			prog := filepath.Join(dir, "bin", "prog")

			// The tree: libA is fine, libB found via prog.
			res := New(Options{}).Audit(context.Background(), []string{dir})
			seen := 0
			for _, f := range res.Files {
				if f.DiesAtStart || f.Error != nil {
					t.Errorf("%s: dies %v (%s), error %v", f.Path, f.DiesAtStart, f.Reason, f.Error)
				}
				if f.Path == libA {
					seen++
					if len(f.ViaHost) != 1 || f.ViaHost[0].Name != "libB.so" || f.ViaHost[0].Host != prog || f.ViaHost[0].Path != libB {
						t.Errorf("libA in the tree: via_host %+v, want libB.so found via %s", f.ViaHost, prog)
					}
					if len(f.MissingLibraries) != 0 || len(f.Unresolved) != 0 {
						t.Errorf("libA in the tree: missing %v, unresolved %v", f.MissingLibraries, f.Unresolved)
					}
				}
			}
			if seen != 1 {
				t.Fatalf("libA not in the audit: %+v", res.Files)
			}

			// libA alone: libB lies beside it, found only via its host.
			res = New(Options{}).Audit(context.Background(), []string{libA})
			f := res.Files[0]
			if f.DiesAtStart || f.Error != nil || len(f.MissingLibraries) != 0 {
				t.Errorf("libA alone: dies %v (%s), error %v, missing %v", f.DiesAtStart, f.Reason, f.Error, f.MissingLibraries)
			}
			if len(f.ViaHost) != 1 || f.ViaHost[0].Host != "" || f.ViaHost[0].Path != libB {
				t.Errorf("libA alone: via_host %+v, want libB.so beside it, no host", f.ViaHost)
			}
		})
	}
}

// A dependency that is nowhere, not even beside, is still a death.
func TestLibraryMissingDepStillDies(t *testing.T) {
	dir := hostTree(t, "--enable-new-dtags")
	if err := os.Remove(filepath.Join(dir, "lib", "priv", "libB.so")); err != nil {
		t.Fatal(err)
	}
	f := New(Options{}).Audit(context.Background(), []string{filepath.Join(dir, "lib", "priv", "libA.so")}).Files[0]
	if !f.DiesAtStart || len(f.MissingLibraries) != 1 || len(f.ViaHost) != 0 {
		t.Errorf("dies %v, missing %v, via_host %v; want a death for libB.so", f.DiesAtStart, f.MissingLibraries, f.ViaHost)
	}
}

// The case of #11: systemd's private libraries, when this machine has them
// (/usr/lib/systemd on most distributions, the multiarch directory on
// Debian), alone and with systemd as their host.
func TestSystemdCoreViaHost(t *testing.T) {
	var cores []string
	for _, g := range []string{"/usr/lib/systemd/libsystemd-core-*.so", "/usr/lib/*-linux-gnu/systemd/libsystemd-core-*.so"} {
		m, _ := filepath.Glob(g)
		cores = append(cores, m...)
	}
	if len(cores) == 0 {
		t.Skip("no libsystemd-core-*.so in /usr/lib/systemd or /usr/lib/*-linux-gnu/systemd on this machine")
	}
	f := New(Options{}).Audit(context.Background(), cores[:1]).Files[0]
	if f.DiesAtStart || f.Error != nil {
		t.Errorf("%s alone: dies %v (%s), error %v", cores[0], f.DiesAtStart, f.Reason, f.Error)
	}
	if len(f.ViaHost) == 0 || f.ViaHost[0].Host != "" {
		t.Errorf("%s alone: via_host %+v, want a found-only-via-its-host note", cores[0], f.ViaHost)
	}
	host := "/usr/lib/systemd/systemd"
	if _, err := os.Stat(host); err != nil {
		t.Skipf("no %s to load it: %v", host, err)
	}
	res := New(Options{}).Audit(context.Background(), []string{host, cores[0]})
	f = res.Files[1]
	if f.DiesAtStart || len(f.ViaHost) == 0 || f.ViaHost[0].Host != host {
		t.Errorf("%s with %s: dies %v, via_host %+v; want found via %s", cores[0], host, f.DiesAtStart, f.ViaHost, host)
	}
}
