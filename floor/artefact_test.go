package floor

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/artefact"
	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/fixture"
)

// reports maps each ELF file's path below root (or below "ARTEFACT!")
// to its report as JSON, the path left out.
func reports(t *testing.T, res *Result, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range res.Files {
		name := strings.TrimPrefix(strings.TrimPrefix(f.Path, root), "!")
		if f.Error != nil {
			t.Errorf("%s: %v", f.Path, f.Error)
			continue
		}
		f.Path = ""
		b, _ := json.Marshal(f)
		out["/"+strings.TrimLeft(name, "/")] = string(b)
	}
	return out
}

// sameFloors scans the artefact and the tree extracted from it by hand,
// and wants the same reports, member by member.
func sameFloors(t *testing.T, art, tree string, min int) {
	t.Helper()
	a := reports(t, Scan(context.Background(), []string{art}, Options{Why: true}), art)
	d := reports(t, Scan(context.Background(), []string{tree}, Options{Why: true}), tree)
	if len(a) < min {
		t.Errorf("%s: %d ELF members, want at least %d", art, len(a), min)
	}
	for name, want := range d {
		if got, ok := a[name]; !ok {
			t.Errorf("%s: %s is not among the artefact's members", art, name)
		} else if got != want {
			t.Errorf("%s!%s:\n got %s\nwant %s", art, name, got, want)
		}
	}
	for name := range a {
		if _, ok := d[name]; !ok {
			t.Errorf("%s: member %s is not in the extracted tree", art, name)
		}
	}
	t.Logf("%s: %d ELF members, same floors as the extracted tree", filepath.Base(art), len(a))
}

func run(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, b)
	}
}

// TestArtefactFloors packs compiled files with the system's own tools
// (tar with each compressor, dpkg-deb), and scans each in place.
func TestArtefactFloors(t *testing.T) {
	fixture.Compiler(t, "gcc")
	tree := t.TempDir()
	os.MkdirAll(filepath.Join(tree, "usr/bin"), 0o755)
	os.MkdirAll(filepath.Join(tree, "usr/lib"), 0o755)
	fixture.Build(t, "gcc", filepath.Join(tree, "usr/lib"), "l.c", "#include <string.h>\n#include <threads.h>\nint f(char*d,const char*s){thrd_yield();return strlen(strcpy(d,s));}\n", "libf.so", "-shared", "-fPIC")
	fixture.Build(t, "gcc", filepath.Join(tree, "usr/bin"), "m.c", "#include <stdio.h>\nint main(void){puts(\"x\");return 0;}\n", "prog")
	os.Remove(filepath.Join(tree, "usr/lib/l.c"))
	os.Remove(filepath.Join(tree, "usr/bin/m.c"))
	out := t.TempDir()
	for _, c := range []struct{ name, tool, flag string }{
		{"a.tgz", "gzip", "-z"}, {"a.tar.xz", "xz", "-J"}, {"a.tar.zst", "zstd", "--zstd"}, {"a.tar.bz2", "bzip2", "-j"}, {"a.tar", "tar", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := exec.LookPath(c.tool); err != nil {
				t.Skipf("%s is not installed", c.tool)
			}
			art := filepath.Join(out, c.name)
			args := []string{"-C", tree, "-cf", art, "."}
			if c.flag != "" {
				args = append([]string{c.flag}, args...)
			}
			run(t, tree, "tar", args...)
			sameFloors(t, art, tree, 2)
		})
	}
	t.Run("deb", func(t *testing.T) {
		fixture.Need(t, "dpkg-deb")
		pkg := t.TempDir()
		run(t, pkg, "cp", "-a", tree+"/.", pkg)
		os.MkdirAll(filepath.Join(pkg, "DEBIAN"), 0o755)
		os.WriteFile(filepath.Join(pkg, "DEBIAN/control"), []byte("Package: p\nVersion: 1\nArchitecture: amd64\nMaintainer: x <x@example.org>\nDescription: x\n"), 0o644)
		art := filepath.Join(out, "p.deb")
		run(t, out, "dpkg-deb", "--root-owner-group", "-Zxz", "--build", pkg, art)
		sameFloors(t, art, tree, 2)
	})
}

// TestRealArtefacts fetches native npm packages and a Debian package
// from the registries, extracts each by hand, and wants the same floors
// from the artefact read in place. It skips when a registry is out of
// reach.
func TestRealArtefacts(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches packages")
	}
	dir := t.TempDir()
	for _, pkg := range []string{"@rollup/rollup-linux-x64-gnu", "@rollup/rollup-linux-x64-musl"} {
		t.Run(pkg, func(t *testing.T) {
			fixture.Need(t, "npm")
			cmd := exec.Command("npm", "pack", "--silent", "--pack-destination", dir, pkg)
			cmd.Dir = dir
			b, err := cmd.Output()
			if err != nil {
				t.Skipf("npm pack %s (registry out of reach?): %v", pkg, err)
			}
			art := filepath.Join(dir, strings.TrimSpace(string(b)))
			tree := t.TempDir()
			run(t, tree, "tar", "-xzf", art)
			sameFloors(t, art, tree, 1)
			res := Scan(context.Background(), []string{art}, Options{})
			want := "glibc"
			if strings.HasSuffix(pkg, "musl") {
				want = "musl"
			}
			for _, f := range res.Files {
				if !strings.Contains(f.Path, ".tgz!/package/") || f.Libc != want {
					t.Errorf("%s: libc %q, want %q", f.Path, f.Libc, want)
				}
			}
			// Its package.json's cpu and libc hold.
			if vs := claimed(t, art); len(vs) != 0 {
				t.Errorf("claims broken: %+v", vs)
			}
		})
	}
	t.Run("coreutils.deb", func(t *testing.T) {
		for _, tool := range []string{"apt-get", "dpkg-deb"} {
			if _, err := exec.LookPath(tool); err != nil {
				t.Skipf("%s is not installed", tool)
			}
		}
		cmd := exec.Command("apt-get", "download", "coreutils")
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("apt-get download coreutils (archive out of reach?): %v\n%s", err, b)
		}
		debs, _ := filepath.Glob(filepath.Join(dir, "coreutils_*.deb"))
		if len(debs) != 1 {
			t.Fatalf("downloaded %v", debs)
		}
		tree := t.TempDir()
		run(t, dir, "dpkg-deb", "-x", debs[0], tree)
		sameFloors(t, debs[0], tree, 50)
		// Its Depends: libc6 (>= X) holds its binaries' GLIBC floor.
		if vs := claimed(t, debs[0]); len(vs) != 0 {
			t.Errorf("claims broken: %+v", vs)
		}
	})
}

// TestSparseMembers: a large member keeps only its non-executable parts;
// the floors and the symbols behind them, read from what is kept, are
// those of the whole file. Every member is made "large" here.
func TestSparseMembers(t *testing.T) {
	var libs []string
	for _, pat := range []string{"/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/usr/lib/x86_64-linux-gnu/libLLVM*.so*", "/usr/lib/aarch64-linux-gnu/libc.so.6", "/usr/bin/ls", "/usr/bin/gcc"} {
		m, _ := filepath.Glob(pat)
		for _, l := range m {
			if r, err := filepath.EvalSymlinks(l); err == nil && !slices.Contains(libs, r) {
				libs = append(libs, r)
			}
		}
	}
	if len(libs) == 0 {
		t.Skip("no system libraries to read")
	}
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, l := range libs {
		data, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		tw.WriteHeader(&tar.Header{Name: l[1:], Size: int64(len(data)), Mode: 0o755, Typeflag: tar.TypeReg})
		tw.Write(data)
	}
	tw.Close()
	seen := 0
	tarPath := filepath.Join(t.TempDir(), "sparse.tar")
	if err := os.WriteFile(tarPath, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	err := artefact.Walk(context.Background(), tarPath, artefact.Options{SparseOver: 1}, func(m *artefact.Member) error {
		if m.Err != nil {
			t.Errorf("%s: %v", m.Name, m.Err)
			return nil
		}
		if m.Content == nil {
			return nil
		}
		seen++
		sp, _ := m.Content.(*artefact.Sparse)
		if sp == nil {
			t.Errorf("%s: read whole", m.Name)
			return nil
		}
		f, err := elfx.NewFile(m.Content, m.Size)
		if err != nil {
			t.Errorf("%s from its kept parts: %v", m.Name, err)
			return nil
		}
		got, _ := Analyze(f, m.Name, FileOptions{Why: true})
		whole, err := elfx.Open(m.Name) // the member's name is the file's
		if err != nil {
			t.Fatal(err)
		}
		defer whole.Close()
		want, _ := Analyze(whole, m.Name, FileOptions{Why: true})
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		if string(gj) != string(wj) {
			t.Errorf("%s:\n kept %s\nwhole %s", m.Name, gj, wj)
		}
		t.Logf("%s: kept %d of %d bytes, in %d", m.Name, sp.Kept(), m.Size, sp.Held())
		return nil
	})
	if err != nil || seen == 0 {
		t.Fatalf("walk: %v, %d members", err, seen)
	}
}

// TestRealWheel builds a wheel from a small C extension with Debian's
// python3-setuptools, python3-wheel and python3-dev, wants the floors of
// its members to be those of the unzipped tree, then retags it to
// manylinux_2_17_x86_64, a tag it does not meet (it calls
// getrandom@GLIBC_2.25).
func TestRealWheel(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import setuptools, wheel, sysconfig, os; assert os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h'))").Run(); err != nil {
		t.Skipf("%s with setuptools, wheel and Python.h (python3-setuptools, python3-wheel, python3-dev) is not installed: %v", py, err)
	}
	fixture.Compiler(t, "gcc")
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "setup.py"), []byte(`from setuptools import setup, Extension
setup(name="tiny", version="1.0", ext_modules=[Extension("tiny", ["tiny.c"])])
`), 0o644)
	os.WriteFile(filepath.Join(src, "tiny.c"), []byte(`#include <Python.h>
#include <sys/random.h>
static PyObject *seed(PyObject *self, PyObject *unused) {
	unsigned long v = 0;
	if (getrandom(&v, sizeof v, 0) != sizeof v) return NULL;
	return PyLong_FromUnsignedLong(v);
}
static PyMethodDef methods[] = {{"seed", seed, METH_NOARGS, ""}, {0}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "tiny", "", -1, methods};
PyMODINIT_FUNC PyInit_tiny(void) { return PyModule_Create(&mod); }
`), 0o644)
	dist := t.TempDir()
	run(t, src, py, "setup.py", "-q", "bdist_wheel", "-d", dist)
	whls, _ := filepath.Glob(filepath.Join(dist, "tiny-1.0-*.whl"))
	if len(whls) != 1 {
		t.Fatalf("built %v", whls)
	}
	tree := t.TempDir()
	run(t, tree, py, "-m", "zipfile", "-e", whls[0], tree)
	sameFloors(t, whls[0], tree, 1)
	if vs := claimed(t, whls[0]); len(vs) != 0 { // linux_x86_64 claims nothing
		t.Errorf("%s: %+v", whls[0], vs)
	}
	retagged := filepath.Join(dist, strings.Replace(filepath.Base(whls[0]), "linux_x86_64", "manylinux_2_17_x86_64", 1))
	b, _ := os.ReadFile(whls[0])
	os.WriteFile(retagged, b, 0o644)
	vs := claimed(t, retagged)
	found := false
	for _, v := range vs {
		if v.Target == "manylinux_2_17_x86_64" && v.Namespace == "GLIBC" && v.Required == "2.25" {
			found = true
		}
	}
	if !found {
		t.Errorf("%s: no GLIBC 2.25 > 2.17 violation naming the tag: %+v", filepath.Base(retagged), vs)
	}
}

// TestRealRPM builds rpms with rpmbuild (Debian's rpm package) around a
// compiled library: the floors are those of the tree rpm2cpio | cpio
// extracts, the Requires rpm generates hold them, and Requires written
// by hand below the floor break the claim.
func TestRealRPM(t *testing.T) {
	for _, tool := range []string{"rpmbuild", "rpm2cpio", "cpio"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (Debian's rpm and cpio)", tool)
		}
	}
	cc := fixture.Compiler(t, "gcc")
	src := t.TempDir()
	fixture.Build(t, cc, src, "new.c", "#include <string.h>\nvoid copy(char *d, const char *s, size_t n) { memcpy(d, s, n); }\n", "libnew.so", "-shared", "-fPIC")
	for _, c := range []struct {
		name, requires string
		want           int
	}{
		{"generated", "", 0},
		{"by hand", "AutoReq: no\nRequires: libc.so.6(GLIBC_2.2.5)(64bit)\n", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			top := t.TempDir()
			spec := filepath.Join(top, "tiny.spec")
			os.WriteFile(spec, []byte("%global debug_package %{nil}\n%global __os_install_post %{nil}\nName: tiny\nVersion: 1.0\nRelease: 1\nSummary: t\nLicense: MIT\n"+c.requires+
				"%description\nt\n%install\nmkdir -p %{buildroot}/usr/lib64\ncp %{_sourcedir}/libnew.so %{buildroot}/usr/lib64/\n%files\n/usr/lib64/libnew.so\n"), 0o644)
			run(t, top, "rpmbuild", "-bb", "--nodeps", "--define", "_topdir "+top, "--define", "_sourcedir "+src, spec)
			rpms, _ := filepath.Glob(filepath.Join(top, "RPMS/*/tiny-1.0-1.*.rpm"))
			if len(rpms) != 1 {
				t.Fatalf("built %v", rpms)
			}
			tree := t.TempDir()
			run(t, tree, "sh", "-c", "rpm2cpio \"$1\" | cpio -idm --quiet", "sh", rpms[0])
			sameFloors(t, rpms[0], tree, 1)
			vs := claimed(t, rpms[0])
			if len(vs) != c.want {
				t.Errorf("claims: %+v, want %d", vs, c.want)
			} else if c.want > 0 && (vs[0].Required != "2.14" || vs[0].Allowed != "2.2.5" || !strings.Contains(vs[0].Target, "GLIBC_2.2.5")) {
				t.Errorf("%+v", vs[0])
			}
		})
	}
}

// TestArtefactProgress: the members of one large artefact move the
// progress count, which would otherwise stand still on it.
func TestArtefactProgress(t *testing.T) {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for i := range 1000 {
		tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("f%d", i), Size: 1, Mode: 0o644, Typeflag: tar.TypeReg})
		tw.Write([]byte("x"))
	}
	tw.Close()
	art := filepath.Join(t.TempDir(), "many.tar")
	os.WriteFile(art, b.Bytes(), 0o644)
	var most int64
	res := Scan(context.Background(), []string{art}, Options{Progress: func(files, elf int64) { most = max(most, files) }})
	if most < 768 || res.Stats.Files != 1001 {
		t.Errorf("progress reached %d files, stats %d; want >= 768 and 1001", most, res.Stats.Files)
	}
}
