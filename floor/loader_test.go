package floor

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/abifloor/abifloor/targets"
)

// Hazard fixtures of the loader's checks, each with its safe twin. The
// sources are shared with the real-loader test (realloader_test.go).
const (
	// resC calls __res_search unversioned (libc.so.6 2.36 has it only as
	// a compat symbol, so the link leaves it unversioned): before 2.34 it
	// is in libresolv.so.2 alone.
	resC = `extern int __res_search(const char *, int, int, unsigned char *, int);
extern int puts(const char *);
int run(void) { unsigned char b[512]; puts("res"); __res_search("localhost", 1, 1, b, sizeof b); return 7; }
`
	// pthreadC binds pthread_create to libc.so.6's GLIBC_2.2.5, as a
	// library built against 2.34's libc and pinned to the old version
	// does: before 2.34 that version is libpthread's.
	pthreadC = `#include <pthread.h>
__asm__(".symver pthread_create,pthread_create@GLIBC_2.2.5");
__asm__(".symver pthread_join,pthread_join@GLIBC_2.2.5");
static void *f(void *a) { return a; }
int run(void) { pthread_t t; if (pthread_create(&t, 0, f, 0)) return 1; pthread_join(t, 0); return 7; }
`
	// nvmlC is go-nvml's pattern: functions of a library dlopen()ed later.
	nvmlC = `#include <stdio.h>
int nvmlInit_v2(void);
int main(int argc, char **argv) { puts("started"); fflush(stdout); if (argc > 5) return nvmlInit_v2(); return 0; }
`
	helloC = "#include <stdio.h>\nint main(void) { puts(\"started\"); return 0; }\n"
)

// checkOne checks path against the named targets.
func checkOne(t *testing.T, path string, names ...string) []Violation {
	t.Helper()
	return CheckTargets(t, path, names...)
}

// CheckTargets is checkOne for the real-loader test (package floor_test).
func CheckTargets(t *testing.T, path string, names ...string) []Violation {
	t.Helper()
	var rq Requirements
	for _, n := range names {
		tg, err := targets.Lookup(n)
		if err != nil {
			t.Fatal(err)
		}
		rq.Targets = append(rq.Targets, tg)
	}
	res, err := Check(context.Background(), []string{path}, rq, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Files {
		if f.Error != nil {
			t.Fatalf("%s: %v", path, f.Error)
		}
	}
	return res.Violations
}

func rules(vs []Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Rule)
	}
	return out
}

func TestLoaderChecks(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the fixtures pin x86_64 versions")
	}
	gcc := fixture.Compiler(t, "gcc")
	dir := t.TempDir()
	build := func(name, src string, args ...string) string {
		return fixture.Build(t, gcc, dir, name+".c", src, name, args...)
	}
	res := build("libres.so", resC, "-shared", "-fPIC", "-Wl,-soname,libres.so")
	resTwin := build("librestwin.so", resC, "-shared", "-fPIC", "-Wl,--no-as-needed", "-lresolv")
	thr := build("libthr.so", pthreadC, "-shared", "-fPIC")
	thrTwin := build("libthrtwin.so", pthreadC, "-shared", "-fPIC", "-Wl,--no-as-needed", "-l:libpthread.so.0")
	interp := build("runhost", helloC, "-Wl,--dynamic-linker=/run/host/usr/lib64/ld-linux-x86-64.so.2")
	hello := build("hello", helloC)
	now := build("nvml-now", nvmlC, "-rdynamic", "-Wl,--unresolved-symbols=ignore-in-object-files", "-Wl,-z,now")
	lazy := build("nvml-lazy", nvmlC, "-rdynamic", "-Wl,--unresolved-symbols=ignore-in-object-files", "-Wl,-z,lazy")

	for _, c := range []struct {
		path, target string
		want         []string // rules of the loader's violations
		cause        string
	}{
		{res, "debian-11", []string{RuleUndefined}, "undefined symbol: __res_search (in libresolv.so.2 before glibc 2.34: add -lresolv) on debian-11"},
		{res, "debian-12", nil, ""},
		{resTwin, "debian-11", nil, ""},
		{thr, "debian-11", []string{RuleUndefined}, "undefined symbol: pthread_create (in libpthread.so.0 before glibc 2.34: add -lpthread) on debian-11"},
		{thr, "debian-12", nil, ""},
		{thrTwin, "debian-11", nil, ""},
		{interp, "debian-12", []string{RuleInterpreter}, "interpreter /run/host/usr/lib64/ld-linux-x86-64.so.2: not on debian-12"},
		{hello, "debian-12", nil, ""},
		{now, "debian-12", []string{RuleBindNow}, "undefined symbol: nvmlInit_v2: linked with -z now"},
		{lazy, "debian-12", nil, ""},
	} {
		t.Run(filepath.Base(c.path)+"@"+c.target, func(t *testing.T) {
			var got []Violation
			for _, v := range checkOne(t, c.path, c.target) {
				if v.Rule != "" {
					got = append(got, v) // the loader's, not the floor's
				}
			}
			if !slices.Equal(rules(got), c.want) {
				t.Fatalf("violations %+v, want rules %v", got, c.want)
			}
			if c.cause != "" && !strings.HasPrefix(got[0].Cause(), c.cause) {
				t.Errorf("cause %q, want %q", got[0].Cause(), c.cause)
			}
			if len(got) > 0 && got[0].Target != c.target {
				t.Errorf("target %q", got[0].Target)
			}
		})
	}
	// A program whose relocation table cannot be read: which of its
	// unresolved symbols the loader binds is unknown, so the file is an
	// error, never a pass.
	broken := filepath.Join(dir, "nvml-broken")
	b, err := os.ReadFile(now)
	if err != nil {
		t.Fatal(err)
	}
	ef, err := elf.Open(now)
	if err != nil {
		t.Fatal(err)
	}
	dyn := ef.Section(".dynamic")
	for off := dyn.Offset; off+16 <= dyn.Offset+dyn.Size; off += 16 {
		if elf.DynTag(binary.LittleEndian.Uint64(b[off:])) == elf.DT_PLTRELSZ {
			binary.LittleEndian.PutUint64(b[off+8:], 1<<40)
		}
	}
	ef.Close()
	if err := os.WriteFile(broken, b, 0o755); err != nil {
		t.Fatal(err)
	}
	tg, _ := targets.Lookup("debian-12")
	br, err := Check(context.Background(), []string{broken}, Requirements{Targets: []targets.Target{tg}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if br.Stats.Errors != 1 || br.Verdict() != Error {
		t.Errorf("broken relocations: %d errors, verdict %v; want the file an error", br.Stats.Errors, br.Verdict())
	}

	// --max GLIBC= names a release: the merge is the loader's, whatever
	// names it; the interpreter needs a system to judge.
	var rq Requirements
	rq.Add("GLIBC", "2.31", "--max")
	r, err := Check(context.Background(), []string{res, interp}, rq, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := rules(r.Violations); !slices.Contains(got, RuleUndefined) || slices.Contains(got, RuleInterpreter) {
		t.Errorf("--max GLIBC=2.31: rules %v", got)
	}
	for _, v := range r.Violations {
		if v.Rule == RuleUndefined && !strings.HasSuffix(v.Cause(), "on glibc 2.31") {
			t.Errorf("cause %q: want it to name glibc 2.31", v.Cause())
		}
	}
}

// The fixtures' sources, for the real-loader test (package floor_test).
var ResC, PthreadC, NvmlC, HelloC = resC, pthreadC, nvmlC, helloC
