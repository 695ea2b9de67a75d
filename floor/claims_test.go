package floor

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/abifloor/abifloor/symver"
)

func TestClaimResolve(t *testing.T) {
	for _, c := range []struct {
		path, control, want string
	}{
		{"p.deb", "Package: p\nDepends: libc6 (>= 2.34), libselinux1 (>= 3.1~)\n", "GLIBC=2.34"},
		{"p.deb", "Package: p\nPre-Depends: libc6 (>= 2.17)\n", "GLIBC=2.17"},
		{"p.deb", "Package: p\nDepends: zlib1g\n", ""},
		{"p.rpm", "libc.so.6(GLIBC_2.2.5)(64bit)\nlibc.so.6(GLIBC_2.14)(64bit)\nlibc.so.6(GLIBC_2.3.4)(64bit)\nrtld(GNU_HASH)\n", "GLIBC=2.14"},
		// Two tags naming one policy claim it once (issue 17 item 4:
		// every violation was reported twice).
		{"numpy-2.0.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", "", "manylinux_2_17_x86_64"},
		// Every libc relation form (issue 17 item 4).
		{"p.deb", "Package: p\nDepends: libc6 (>> 2.36), libc6 (<< 2.37)\n", "GLIBC=2.36"},
		{"p.deb", "Package: p\nDepends: libc6 (= 2.36-9+deb12u4)\n", "GLIBC=2.36"},
		{"p.deb", "Package: p\nDepends: libc6 (<< 2.40)\n", "GLIBC="},
		{"p.deb", "Package: p\nDepends: libc6\n", "GLIBC="},
		{"p.deb", "Package: p\nDepends: libc6 (>= 1:2.31-0ubuntu9)\n", "GLIBC=2.31"},
		{"p.deb", "Package: p\nDepends: libc6-i386 (>= 2.34), libc6 (>= 2.17)\n", "i386:GLIBC=2.34 GLIBC=2.17"},
		{"p.deb", "Package: p\nDepends: libc6 (>= 2.34) | libc6.1 (>= 2.30)\n", "GLIBC=2.30"},
		{"p.deb", "Package: p\nDepends: libc6:amd64 (>= 2.28),\n libstdc++6 (>= 12), libc6 (>= 2.34)\n", "GLIBC=2.34"},
		{"p.deb", "Package: p\nDepends: libc6-dev (>= 2.40)\n", ""},
		// A cross toolchain's libraries claim the cross libc of their
		// architecture; its -dev package is no runtime.
		{"p.deb", "Package: libasan8-arm64-cross\nDepends: gcc-12-cross-base (>= 12.2.0-14), libc6-arm64-cross (>= 2.36), libgcc-s1-arm64-cross (>= 3.3)\n", "aarch64:GLIBC=2.36"},
		{"p.deb", "Package: p\nDepends: libc6-s390x-cross (>= 2.34), libc6-i386-cross (>= 2.17)\n", "s390x:GLIBC=2.34 i386:GLIBC=2.17"},
		{"p.deb", "Package: p\nDepends: libc6-dev-arm64-cross (= 2.36-8cross1), libc6-nosucharch-cross (>= 2.1)\n", ""},
		{"x-1.0-py3-none-musllinux_1_2_aarch64.whl", "", "musllinux_1_2_aarch64"},
		{"x-1.0-py3-none-linux_x86_64.whl", "", ""},
	} {
		cl := claims{control: c.control}
		cl.resolve(c.path, nil)
		var got []string
		for _, l := range cl.libc {
			a := ""
			if l.arch != "" {
				a = l.arch + ":"
			}
			got = append(got, a+"GLIBC="+l.version)
		}
		for _, t := range cl.targets {
			got = append(got, t.Name)
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%s %q: %q, want %q", c.path, c.control, g, c.want)
		}
	}
}

// claimed scans art in check mode and returns the claim violations.
func claimed(t *testing.T, art string) []Violation {
	t.Helper()
	res := Scan(context.Background(), []string{art}, Options{Limits: Limits{}})
	var out []Violation
	for _, f := range res.Files {
		if f.Error != nil {
			t.Errorf("%s: %v", f.Path, f.Error)
		}
	}
	for _, v := range res.Violations {
		if v.Rule == RuleClaim || strings.HasPrefix(v.Target, "manylinux") {
			out = append(out, v)
		}
	}
	return out
}

func TestClaims(t *testing.T) {
	cc := fixture.Compiler(t, "gcc")
	dir := t.TempDir()
	lib := fixture.Build(t, cc, dir, "new.c", "#include <string.h>\nvoid copy(char *d, const char *s, size_t n) { memcpy(d, s, n); }\n", "libnew.so", "-shared", "-fPIC")
	so, _ := os.ReadFile(lib)

	t.Run("deb", func(t *testing.T) {
		fixture.Need(t, "dpkg-deb")
		for _, c := range []struct {
			dep  string
			want int
		}{{"2.2.5", 1}, {"2.14", 0}} {
			pkg := t.TempDir()
			os.MkdirAll(filepath.Join(pkg, "DEBIAN"), 0o755)
			os.MkdirAll(filepath.Join(pkg, "usr/lib"), 0o755)
			os.WriteFile(filepath.Join(pkg, "usr/lib/libnew.so"), so, 0o644)
			os.WriteFile(filepath.Join(pkg, "DEBIAN/control"), []byte("Package: p\nVersion: 1\nArchitecture: amd64\nMaintainer: x <x@example.org>\nDepends: libc6 (>= "+c.dep+")\nDescription: x\n"), 0o644)
			art := filepath.Join(t.TempDir(), "p.deb")
			run(t, pkg, "dpkg-deb", "--root-owner-group", "--build", pkg, art)
			vs := claimed(t, art)
			if len(vs) != c.want {
				t.Fatalf("Depends libc6 (>= %s): %+v", c.dep, vs)
			}
			if c.want > 0 && (vs[0].Required != "2.14" || vs[0].Allowed != "2.2.5" || !strings.Contains(vs[0].Target, "libc6")) {
				t.Errorf("%+v", vs[0])
			}
		}
	})

	t.Run("npm", func(t *testing.T) {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		tw := tar.NewWriter(zw)
		for _, f := range []struct {
			name string
			data []byte
		}{{"package/package.json", []byte(`{"name":"x","cpu":["arm64"],"libc":["musl"]}`)}, {"package/x.node", so}} {
			tw.WriteHeader(&tar.Header{Name: f.name, Size: int64(len(f.data)), Mode: 0o644, Typeflag: tar.TypeReg})
			tw.Write(f.data)
		}
		tw.Close()
		zw.Close()
		art := filepath.Join(t.TempDir(), "x-1.0.0.tgz")
		os.WriteFile(art, b.Bytes(), 0o644)
		vs := claimed(t, art)
		if len(vs) != 2 || !strings.Contains(vs[0].Target+vs[1].Target, "cpu [arm64]") || !strings.Contains(vs[0].Target+vs[1].Target, "libc [musl]") {
			t.Errorf("%+v", vs)
		}
	})

	t.Run("wheel", func(t *testing.T) {
		var b bytes.Buffer
		zw := zip.NewWriter(&b)
		w, _ := zw.Create("pkg/_native.so")
		w.Write(so)
		w, _ = zw.Create("pkg-1.0.dist-info/WHEEL")
		w.Write([]byte("Wheel-Version: 1.0\nTag: cp311-cp311-manylinux_2_5_x86_64\n"))
		zw.Close()
		art := filepath.Join(t.TempDir(), "pkg-1.0-cp311-cp311-manylinux_2_5_x86_64.whl")
		os.WriteFile(art, b.Bytes(), 0o644)
		vs := claimed(t, art)
		if len(vs) == 0 || vs[0].Target != "manylinux_2_5_x86_64" || vs[0].Required != "2.14" {
			t.Errorf("%+v", vs)
		}
	})
}

// FuzzDebLibcClaims: any control text parses without panicking, in time
// linear in its size, and every claim has a source and a valid version.
func FuzzDebLibcClaims(f *testing.F) {
	for _, s := range []string{
		"Depends: libc6 (>= 2.34), libselinux1 (>= 3.1~)\n",
		"Pre-Depends: libc6 (>> 1:2.36-9+deb12u4) | libc6.1 (= 2.30)\n",
		"Depends: libc6-i386 (>= 2.34),\n libc6 (<< 2.40), libc6:amd64\n",
		"Depends: libc6-dev (>= 2.40), libc0.1\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, control string) {
		for _, c := range debLibcClaims(control) {
			if c.source == "" || (c.version != "" && !symver.Valid(c.version)) {
				t.Fatalf("%q: claim %+v", control, c)
			}
		}
	})
}
