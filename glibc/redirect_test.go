package glibc

import (
	"bytes"
	"context"
	"debug/elf"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/abifloor/abifloor/internal/run"
)

// TestRedirects: the redirects come from the database: fcntl64 at 2.17 is
// fcntl (on i386 too, fcntl@GLIBC_2.0, the pass-through to the kernel's
// fcntl64 before 2.28), res_search is libresolv's __res_search before 2.34
// and nothing at 2.34, the C23 names before 2.38 are the plain ones, and
// __longjmp_chk before 2.11 is longjmp.
func TestRedirects(t *testing.T) {
	for _, tt := range []struct {
		arch, target string
		want         map[string]Redirect
		absent       []string
	}{
		{"x86_64", "2.17", map[string]Redirect{
			"fcntl64":         {From: "fcntl64", To: "fcntl", Soname: "libc.so.6", Version: "GLIBC_2.2.5"},
			"res_search":      {From: "res_search", To: "__res_search", Soname: "libresolv.so.2", Version: "GLIBC_2.2.5"},
			"__isoc23_strtol": {From: "__isoc23_strtol", To: "strtol", Soname: "libc.so.6", Version: "GLIBC_2.2.5"},
			"__isoc23_sscanf": {From: "__isoc23_sscanf", To: "sscanf", Soname: "libc.so.6", Version: "GLIBC_2.2.5"},
		}, nil},
		{"x86_64", "2.34", map[string]Redirect{"__isoc23_strtol": {From: "__isoc23_strtol", To: "strtol", Soname: "libc.so.6", Version: "GLIBC_2.2.5"}}, []string{"res_search", "fcntl64"}},
		{"x86_64", "2.41", nil, []string{"__isoc23_strtol", "res_search", "fcntl64"}},
		{"i386", "2.17", map[string]Redirect{"fcntl64": {From: "fcntl64", To: "fcntl", Soname: "libc.so.6", Version: "GLIBC_2.0"}}, nil},
		{"i386", "2.28", nil, []string{"fcntl64"}},
		{"x86_64", "2.10", map[string]Redirect{"__longjmp_chk": {From: "__longjmp_chk", To: "longjmp", Soname: "libc.so.6", Version: "GLIBC_2.2.5"}}, nil},
		{"x86_64", "2.11", nil, []string{"__longjmp_chk"}},
	} {
		a, err := LoadArch(tt.arch, true)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]Redirect{}
		for _, r := range a.Redirects(tt.target) {
			got[r.From] = r
		}
		for from, w := range tt.want {
			if got[from] != w {
				t.Errorf("%s %s: redirect of %s = %+v, want %+v", tt.arch, tt.target, from, got[from], w)
			}
		}
		for _, n := range tt.absent {
			if r, ok := got[n]; ok {
				t.Errorf("%s %s: %s redirected (%+v), want not", tt.arch, tt.target, n, r)
			}
		}
	}
}

// TestPolyfills: a polyfill is built for a target that lacks its name and
// has everything it calls, as the database says.
func TestPolyfills(t *testing.T) {
	for _, tt := range []struct {
		arch, target string
		want         map[string]string // name → the release that added it
		absent       []string
	}{
		{"x86_64", "2.17", map[string]string{
			"__explicit_bzero_chk": "2.25", "explicit_bzero": "2.25", "__libc_single_threaded": "2.32",
			"stat": "2.33", "fstatat64": "2.33", "mknod": "2.33", "mknodat": "2.33",
			"getrandom": "2.25", "getentropy": "2.25", "arc4random": "2.36", "arc4random_buf": "2.36", "arc4random_uniform": "2.36",
		}, []string{
			"__fdelt_chk", "__poll_chk", // in 2.17 already
			"__strlcpy_chk", // would call strlcpy (2.38)
			"memfd_create",  // no polyfill
		}},
		{"x86_64", "2.12", map[string]string{"__fdelt_chk": "2.15", "__poll_chk": "2.16", "__ppoll_chk": "2.16"}, []string{"__fread_chk"}},
		{"x86_64", "2.5", map[string]string{"__fread_chk": "2.7", "__asprintf_chk": "2.8", "__obstack_vprintf_chk": "2.8"}, []string{"__readlinkat_chk"}},
		// Before 2.3.4 there is no __chk_fail to call, nor fstatat's __fxstatat (2.4).
		{"x86_64", "2.3", map[string]string{"__vasprintf_chk": "2.8", "stat": "2.33"}, []string{"__fdelt_chk", "__fread_chk", "fstatat"}},
		{"x86_64", "2.33", map[string]string{"arc4random": "2.36"}, []string{"__libc_single_threaded", "stat", "mknod", "getrandom", "getentropy"}},
		{"x86_64", "2.41", nil, []string{"stat", "__libc_single_threaded", "explicit_bzero", "arc4random"}},
		{"i386", "2.17", map[string]string{"stat64": "2.33", "mknod": "2.33", "__explicit_bzero_chk": "2.25"}, nil},
		{"aarch64", "2.17", map[string]string{"stat": "2.33", "__libc_single_threaded": "2.32", "getrandom": "2.25", "arc4random_buf": "2.36"}, []string{"__fdelt_chk"}},
	} {
		a, err := LoadArch(tt.arch, true)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]Polyfill{}
		for _, p := range a.Polyfills(tt.target) {
			got[p.Name] = p
		}
		for name, added := range tt.want {
			p, ok := got[name]
			if !ok || p.Added != added {
				t.Errorf("%s %s: polyfill of %s = %+v (present %v), want added in %s", tt.arch, tt.target, name, p, ok, added)
			}
		}
		for _, n := range tt.absent {
			if p, ok := got[n]; ok {
				t.Errorf("%s %s: %s polyfilled (%+v), want not", tt.arch, tt.target, n, p)
			}
		}
	}
}

// TestCompatCompiles builds the compat archive of an old target with each
// architecture's compiler found here: every polyfill and thunk compiles,
// and the archive defines each name once.
func TestCompatCompiles(t *testing.T) {
	for _, tt := range []struct{ arch, target, cc string }{
		{"x86_64", "2.5", "x86_64-linux-gnu-gcc"},
		{"i386", "2.5", "i686-linux-gnu-gcc"},
		{"aarch64", "2.17", "aarch64-linux-gnu-gcc"},
		{"s390x", "2.5", "s390x-linux-gnu-gcc"},
		// c++ builds its stubs with the C++ driver, which takes a -x
		// for one file only: the polyfills are C all the same.
		{"x86_64", "2.5", "g++"},
	} {
		t.Run(tt.cc, func(t *testing.T) {
			ctx := context.Background()
			cc, comp, a := compilerFor(t, tt.cc, tt.arch)
			dir := t.TempDir()
			work := filepath.Join(dir, "work")
			if err := mkdir(work); err != nil {
				t.Fatal(err)
			}
			b := &builder{ctx: ctx, cc: cc, comp: comp, arch: a.Name, sem: make(chan struct{}, 4)}
			redirects := a.Redirects(tt.target)
			lib, err := b.compat(a, tt.target, redirects, work, dir)
			if err != nil {
				t.Fatal(err)
			}
			if !b.polyfillsShared {
				t.Errorf("the polyfills were compiled one by one, not cut out of one unit")
			}
			nm, err := run.LookPath(strings.TrimSuffix(strings.TrimSuffix(tt.cc, "gcc"), "g++") + "nm")
			if err != nil {
				t.Skipf("no nm for %s: %v", tt.arch, err)
			}
			out, err := run.Output(ctx, nm, "-P", filepath.Join(dir, lib))
			if err != nil {
				t.Fatal(err)
			}
			defined := map[string]int{}
			for _, l := range strings.Split(string(out), "\n") {
				f := strings.Fields(l)
				if len(f) >= 2 && strings.ContainsAny(f[1], "TDBR") {
					defined[f[0]]++
				}
			}
			// Every member, thunks assembled alone included, says it
			// needs no executable stack, or the link editor would give
			// the program one.
			data, err := os.ReadFile(filepath.Join(dir, lib))
			if err != nil {
				t.Fatal(err)
			}
			objs, _, err := readArchive(data)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range objs {
				f, err := elf.NewFile(bytes.NewReader(o.data))
				if err != nil {
					t.Fatalf("%s: %v", o.name, err)
				}
				if s := f.Section(".note.GNU-stack"); s == nil || s.Flags&elf.SHF_EXECINSTR != 0 {
					t.Errorf("%s: no .note.GNU-stack, or an executable one", o.name)
				}
			}
			members := compatMembers(a, tt.target, redirects)
			if len(objs) != len(members) {
				t.Errorf("%d objects for %d members", len(objs), len(members))
			}
			if len(members) < 20 {
				t.Errorf("%d members, want the stat family, FORTIFY's checks, ...", len(members))
			}
			for name := range members {
				if defined[name] != 1 {
					t.Errorf("%s is defined %d times in %s", name, defined[name], lib)
				}
			}
		})
	}
}

// TestPolyfillTable: every name the table defines or calls is glibc's on
// every architecture (a misspelt name would silently never be built).
func TestPolyfillTable(t *testing.T) {
	for _, arch := range []string{"x86_64", "i386", "aarch64", "s390x"} {
		a, err := LoadArch(arch, true)
		if err != nil {
			t.Fatal(err)
		}
		ix := a.Index(a.Newest)
		for _, d := range polyfillDefs {
			for _, n := range append([]string{d.name}, d.calls...) {
				if _, ok := ix.Lookup(n); !ok {
					t.Errorf("%s: %s (polyfill %s) is not a glibc symbol", arch, n, d.name)
				}
			}
			if _, ok := statVer[arch]; d.xstat && !ok {
				t.Errorf("%s: no _STAT_VER for %s", arch, d.name)
			}
			if _, ok := mknodVer[arch]; d.xstat && !ok {
				t.Errorf("%s: no _MKNOD_VER for %s", arch, d.name)
			}
		}
	}
}

// compilerFor finds the compiler cc (skipping without it) and the
// database's arch, with symbols.
func compilerFor(t *testing.T, cc, arch string) (string, *Compiler, *Arch) {
	t.Helper()
	cc = fixture.Compiler(t, cc)
	comp, err := ProbeCompiler(context.Background(), cc)
	if err != nil {
		t.Fatal(err)
	}
	a, err := LoadArch(arch, true)
	if err != nil {
		t.Fatal(err)
	}
	return cc, comp, a
}
