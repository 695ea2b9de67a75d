package bind

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
)

// TestAarch64 audits the nvml pattern cross-compiled for aarch64 against
// the cross toolchain's library directory used as an image root. There is
// no aarch64 loader to run here, so the verdicts are the documented ones.
func TestAarch64(t *testing.T) {
	fixture.Need(t, "aarch64-linux-gnu-gcc")
	gcc, err := exec.LookPath("aarch64-linux-gnu-gcc")
	if err != nil {
		t.Skip("aarch64-linux-gnu-gcc is not installed")
	}
	root := "/usr/aarch64-linux-gnu"
	if _, err := os.Stat(filepath.Join(root, "lib/libc.so.6")); err != nil {
		t.Skipf("no aarch64 libc under %s", root)
	}
	dir := t.TempDir()
	src := write(t, dir, "app.c", appC)
	lazy, now := filepath.Join(dir, "lazy"), filepath.Join(dir, "now")
	common := []string{src, "-ldl", "-rdynamic", "-Wl,--unresolved-symbols=ignore-in-object-files"}
	cc(t, gcc, append([]string{"-o", lazy, "-Wl,-z,lazy"}, common...)...)
	cc(t, gcc, append([]string{"-o", now, "-Wl,-z,now"}, common...)...)

	rep := audit1(t, Options{Sysroot: root}, lazy)
	if rep.Arch != "aarch64" || rep.DiesAtStart || len(rep.MissingLibraries) > 0 || rep.Error != nil {
		t.Fatalf("lazy: %+v", rep)
	}
	if len(rep.Unresolved) == 0 || rep.Unresolved[0].Relocation != "R_AARCH64_JUMP_SLOT" || rep.Unresolved[0].Binding != "lazy" {
		t.Errorf("lazy unresolved: %+v", rep.Unresolved)
	}
	rep = audit1(t, Options{Sysroot: root}, now)
	if !rep.DiesAtStart || rep.Reason != "undefined symbol: nvmlInit_v2" && rep.Reason != "undefined symbol: nvmlShutdown" {
		t.Errorf("now: %v %q", rep.DiesAtStart, rep.Reason)
	}
	// The host's x86_64 libraries are never taken for an aarch64 binary.
	rep = audit1(t, Options{}, lazy)
	for _, l := range rep.Libraries {
		if o, err := openObject(l); err == nil && o.Arch != "aarch64" {
			t.Errorf("%s (%s) loaded for an aarch64 binary", l, o.Arch)
		}
	}
}
