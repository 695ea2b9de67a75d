package glibc

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/abifloor/abifloor/symver"
)

// prog uses a versioned function (memcpy@GLIBC_2.14 by default today),
// stat and fstat (libc functions since 2.33, static wrappers before), a
// thread (libpthread before 2.34), data objects reached by copy relocation
// (stdout, environ) and thread-local storage (errno, and its own).
const prog = `#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <pthread.h>
#include <sys/stat.h>
extern char **environ;
static __thread int tl = 3;
static void *run(void *a) { tl++; return a; }
int main(int argc, char **argv) {
	char buf[256]; struct stat st; pthread_t t;
	size_t n = strlen(argv[0]) + 1;
	memcpy(buf, argv[0], n < sizeof buf ? n : 1);
	if (stat(argv[0], &st) != 0 || fstat(1, &st) != 0) return 3;
	if (pthread_create(&t, 0, run, 0) != 0) return 4;
	pthread_join(t, 0);
	errno = 0;
	fprintf(stdout, "ok environ=%d tls=%d\n", environ != 0 && environ[0] != 0, tl);
	return errno;
}
`

// floorOf is the highest GLIBC version path needs, read here rather than
// through floor, which imports this package.
func floorOf(t *testing.T, path string) string {
	t.Helper()
	f, err := elfx.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	needs, err := f.VersionNeeds()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	floor := ""
	for _, n := range needs {
		for _, v := range n.Versions {
			if ns, ver, ok := symver.Split(v.Name); ok && ns == "GLIBC" && (floor == "" || symver.Compare(ver, floor) > 0) {
				floor = ver
			}
		}
	}
	return floor
}

func TestStubsLinkAndRun(t *testing.T) {
	gcc := fixture.Compiler(t, "gcc")
	dir := t.TempDir()
	plain := fixture.Build(t, gcc, dir, "prog.c", prog, "plain", "-O2", "-pthread")
	if f := floorOf(t, plain); symver.Compare(f, "2.17") <= 0 {
		t.Fatalf("without stubs the floor is %s; the test needs a host newer than 2.17", f)
	}
	for _, target := range []string{"2.17", "2.28"} {
		// A space in the path: the linker script quotes it.
		stubs := filepath.Join(dir, "stubs "+target)
		if err := mkdir(stubs); err != nil {
			t.Fatal(err)
		}
		if err := WriteStubs(context.Background(), stubs, StubOptions{Arch: "x86_64", Target: target, CC: gcc}); err != nil {
			t.Fatal(err)
		}
		bin := fixture.Build(t, gcc, dir, "prog.c", prog, "prog-"+target, "-O2", "-pthread", "-L"+stubs)
		if f := floorOf(t, bin); symver.Compare(f, target) > 0 {
			t.Errorf("%s: linked against %s stubs, floor is %s", bin, target, f)
		}
		// Wrappers a program does not call add nothing to its floor.
		if target == "2.17" {
			small := fixture.Build(t, gcc, dir, "small.c", "int main(void) { return 0; }\n", "small", "-L"+stubs)
			if f := floorOf(t, small); f != "2.2.5" {
				t.Errorf("%s: floor %s, want 2.2.5", small, f)
			}
		}
		out, err := exec.Command(bin).CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "ok environ=1 tls=3" {
			t.Errorf("%s: %v: %q", bin, err, out)
		}
	}
}

func TestStubsCrossAarch64(t *testing.T) {
	cc := fixture.Compiler(t, "aarch64-linux-gnu-gcc")
	dir := t.TempDir()
	stubs := filepath.Join(dir, "stubs")
	if err := mkdir(stubs); err != nil {
		t.Fatal(err)
	}
	if err := WriteStubs(context.Background(), stubs, StubOptions{Arch: "aarch64", Target: "2.17"}); err != nil {
		t.Fatal(err)
	}
	bin := fixture.Build(t, cc, dir, "prog.c", prog, "prog", "-O2", "-pthread", "-L"+stubs)
	if f := floorOf(t, bin); f != "2.17" {
		t.Errorf("aarch64 floor %s, want 2.17", f)
	}
	plain := fixture.Build(t, cc, dir, "prog.c", prog, "plain", "-O2", "-pthread")
	if f := floorOf(t, plain); symver.Compare(f, "2.17") <= 0 {
		t.Errorf("aarch64 without stubs: floor %s", f)
	}
}

// A compiler for another machine builds no stubs for this one: they would
// be stored under the wrong key (#10.9).
func TestStubsWrongCompiler(t *testing.T) {
	gcc := fixture.Compiler(t, "gcc")
	c, err := ProbeCompiler(context.Background(), gcc)
	if err != nil {
		t.Fatal(err)
	}
	other := "aarch64"
	if c.Arch == "aarch64" {
		other = "x86_64"
	}
	err = WriteStubs(context.Background(), t.TempDir(), StubOptions{Arch: other, Target: "2.17", CC: gcc})
	if err == nil || !strings.Contains(err.Error(), "targets "+c.Triple+", not "+other) {
		t.Errorf("err = %v", err)
	}
	o, a, err := StubOptions{Arch: c.Arch, Target: "2.17", Compiler: c}.Resolve(false)
	if err != nil {
		t.Fatal(err)
	}
	k1 := o.Key(a)
	o.Compiler = &Compiler{Triple: c.Triple, ID: "another compiler"}
	if o.Key(a) == k1 {
		t.Error("two compilers share a key")
	}
}

func TestStubsMissingCompiler(t *testing.T) {
	err := WriteStubs(context.Background(), t.TempDir(), StubOptions{Arch: "x86_64", Target: "2.17", CC: "no-such-cc-abifloor"})
	if err == nil || !strings.Contains(err.Error(), `"no-such-cc-abifloor" not found`) {
		t.Errorf("err = %v", err)
	}
}

func mkdir(p string) error { return os.MkdirAll(p, 0o755) }

// Resolve returns the options with their defaults and leaves its receiver
// as it was (issue 9): a caller may resolve one StubOptions for several
// architectures.
func TestResolveKeepsReceiver(t *testing.T) {
	o := StubOptions{Target: "2.17"}
	r, a, err := o.Resolve(false)
	if err != nil {
		t.Fatal(err)
	}
	if o != (StubOptions{Target: "2.17"}) {
		t.Errorf("Resolve changed its receiver: %+v", o)
	}
	if r.Arch != HostArch() || r.Arch != a.Name || r.CC == "" || r.Target == "" {
		t.Errorf("Resolve = %+v, arch %s", r, a.Name)
	}
}
