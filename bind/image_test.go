package bind

import (
	"archive/tar"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/abifloor/abifloor/internal/imagetest"
)

// imgEnt is a member of a layer built by a test.
type imgEnt struct {
	name string
	data []byte
	link string
	typ  byte // a tar type other than a file or link
}

func layerTar(t testing.TB, ents []imgEnt) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, e := range ents {
		h := &tar.Header{Name: e.name, Mode: 0o755, Size: int64(len(e.data)), Typeflag: tar.TypeReg}
		if e.link != "" {
			h.Typeflag, h.Linkname, h.Size = tar.TypeSymlink, e.link, 0
		}
		if e.typ != 0 {
			h.Typeflag, h.Size = e.typ, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		tw.Write(e.data)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// writeImage writes layers (bottom first) as an OCI layout in dir and as
// a `docker save` tarball at tarPath (imagetest.Write: the first layer
// gzipped).
func writeImage(t testing.TB, dir, tarPath string, layers ...[]byte) {
	t.Helper()
	if err := os.WriteFile(tarPath, imagetest.Write(t, dir, layers...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// ImageFixture builds, from gcc-compiled files and this machine's libc,
// an image whose /usr/bin/prog needs libfoo.so from
// /usr/lib/x86_64-linux-gnu, twice: as is (ok), and with a second layer
// whose whiteout deletes libfoo.so (gone). Each is an OCI layout
// directory and a `docker save` tarball.
func imageFixture(t *testing.T) (okDir, okTar, goneDir, goneTar, opqDir string) {
	t.Helper()
	cc := needCC(t)
	if runtime.GOARCH != "amd64" {
		t.Skip("the image fixture is x86_64")
	}
	libc, err1 := os.ReadFile("/lib/x86_64-linux-gnu/libc.so.6")
	ldso, err2 := os.ReadFile("/lib64/ld-linux-x86-64.so.2")
	if err1 != nil || err2 != nil {
		t.Skip("this machine's x86_64 glibc is not at /lib/x86_64-linux-gnu and /lib64")
	}
	dir := t.TempDir()
	lib := fixture.Build(t, cc, dir, "foo.c", "int foo(void){return 42;}\n", "libfoo.so", "-shared", "-fPIC", "-Wl,-soname,libfoo.so")
	// The library after the source, which fixture.Build does not allow.
	src := filepath.Join(dir, "prog.c")
	os.WriteFile(src, []byte("int foo(void);\nint main(void){return foo()-42;}\n"), 0o644)
	prog := filepath.Join(dir, "prog")
	if out, err := exec.Command(cc, src, "-L"+dir, "-lfoo", "-o", prog).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, out)
	}
	libB, _ := os.ReadFile(lib)
	progB, _ := os.ReadFile(prog)
	base := []imgEnt{
		{name: "usr/bin/prog", data: progB},
		{name: "usr/lib/x86_64-linux-gnu/libfoo.so", data: libB},
		{name: "usr/lib/x86_64-linux-gnu/libc.so.6", data: libc},
		{name: "usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", data: ldso},
		{name: "usr/lib/x86_64-linux-gnu/README", data: []byte("not ELF")},
		{name: "lib", link: "usr/lib"},
		{name: "bin", link: "usr/bin"},
		{name: "lib64/ld-linux-x86-64.so.2", link: "/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"},
	}
	if c, err := os.ReadFile("/etc/ld.so.cache"); err == nil {
		base = append(base, imgEnt{name: "etc/ld.so.cache", data: c}) // names /lib/x86_64-linux-gnu/libc.so.6
	}
	l1 := layerTar(t, base)
	l2 := layerTar(t, []imgEnt{{name: "usr/lib/x86_64-linux-gnu/.wh.libfoo.so"}, {name: "etc/motd", data: []byte("hi")}})
	okDir, okTar = filepath.Join(dir, "ok"), filepath.Join(dir, "ok.tar")
	goneDir, goneTar = filepath.Join(dir, "gone"), filepath.Join(dir, "gone.tar")
	writeImage(t, okDir, okTar, l1)
	writeImage(t, goneDir, goneTar, l1, l2)
	// An opaque directory hides libfoo.so too; the libc and loader the
	// same layer puts back stay.
	l3 := layerTar(t, []imgEnt{
		{name: "usr/lib/x86_64-linux-gnu/.wh..wh..opq"},
		{name: "usr/lib/x86_64-linux-gnu/libc.so.6", data: libc},
		{name: "usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", data: ldso},
	})
	opqDir = filepath.Join(dir, "opq")
	writeImage(t, opqDir, filepath.Join(dir, "opq.tar"), l1, l3)
	return
}

func TestImageBind(t *testing.T) {
	okDir, okTar, goneDir, goneTar, opqDir := imageFixture(t)
	// Every ELF file over 64 KiB (the image's libc) is held sparse,
	// without its code: bind reads none of it, so held whole the
	// verdicts are the same.
	t.Run("sparse", func(t *testing.T) { testImageBind(t, okDir, okTar, goneDir, goneTar, opqDir) })
	defer func(n int64) { imageSparseOver = n }(imageSparseOver)
	imageSparseOver = -1
	t.Run("whole", func(t *testing.T) { testImageBind(t, okDir, okTar, goneDir, goneTar, opqDir) })
	// The memory bound ends in an error.
	if _, err := LoadImage(context.Background(), okTar, 1000); err == nil {
		t.Error("an image over the memory bound loaded")
	}
}

func testImageBind(t *testing.T, okDir, okTar, goneDir, goneTar, opqDir string) {
	for _, c := range []struct {
		name, img string
		dies      bool
	}{
		{"oci layout", okDir, false},
		{"docker save", okTar, false},
		{"oci layout whiteout", goneDir, true},
		{"docker save whiteout", goneTar, true},
		{"oci layout opaque directory", opqDir, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			img, err := LoadImage(context.Background(), c.img, 0)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(img.Path, []string{"/usr/bin", "/bin"}) {
				t.Errorf("PATH %q, want the configuration's", img.Path)
			}
			if imageSparseOver > 0 && img.Held() >= 1<<20 {
				t.Errorf("sparse: %d bytes held", img.Held())
			}
			if len(img.Problems) > 0 {
				t.Errorf("problems: %v", img.Problems)
			}
			for _, paths := range [][]string{nil, {"/usr/bin/prog"}, {"bin/prog"}, {"/usr/bin"}} {
				res := New(Options{Image: img}).Audit(context.Background(), paths)
				if len(res.Files) != 1 {
					t.Fatalf("%q: %d reports, want the one program: %+v", paths, len(res.Files), res.Files)
				}
				f := res.Files[0]
				if f.Error != nil {
					t.Fatalf("%q: %v", paths, f.Error)
				}
				if want := c.img + "!/usr/bin/prog"; f.Path != want && paths == nil {
					t.Errorf("path %q, want %q", f.Path, want)
				}
				if f.DiesAtStart != c.dies {
					t.Errorf("%q: dies at start %v, want %v (%s)", paths, f.DiesAtStart, c.dies, f.Message)
				}
				if c.dies && !slices.Equal(f.MissingLibraries, []string{"libfoo.so"}) {
					t.Errorf("missing %v, want libfoo.so", f.MissingLibraries)
				}
				if !c.dies && !slices.ContainsFunc(f.Libraries, func(l string) bool { return strings.HasSuffix(l, "/x86_64-linux-gnu/libfoo.so") }) {
					t.Errorf("libraries %v, want libfoo.so of the image", f.Libraries)
				}
			}
		})
	}
}

// TestImageHostile: links that loop or climb, and special files, in an
// image end in an error on the PATH that names them, never in a read of
// this machine's files.
func TestImageHostile(t *testing.T) {
	dir := t.TempDir()
	l := layerTar(t, []imgEnt{
		{name: "a", link: "b"},
		{name: "b", link: "a"},
		{name: "usr/bin/esc", link: "../../../../../../etc/passwd"},
		{name: "usr/bin/abs", link: "/etc/hostname"},
		{name: "usr/bin/fifo", typ: tar.TypeFifo},
		{name: "usr/bin/text", data: []byte("#!/bin/sh\n")},
		{name: "etc/ld.so.cache", data: []byte("not a cache")},
	})
	writeImage(t, filepath.Join(dir, "oci"), filepath.Join(dir, "img.tar"), l)
	img, err := LoadImage(context.Background(), filepath.Join(dir, "img.tar"), 0)
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{"/a", "/usr/bin/esc", "/usr/bin/abs", "/usr/bin/fifo", "/usr/bin/text", "/usr/bin/none"}
	res := New(Options{Image: img}).Audit(context.Background(), paths)
	if len(res.Files) != len(paths) {
		t.Fatalf("%d reports for %d paths: %+v", len(res.Files), len(paths), res.Files)
	}
	for i, f := range res.Files {
		if want := img.Name + "!" + paths[i]; f.Path != want {
			t.Errorf("report %d is %s, want %s", i, f.Path, want)
		}
		if f.Error == nil {
			t.Errorf("%s: no error", f.Path)
		}
		t.Logf("%s: %s", f.Path, f.ErrorMessage())
	}
	// Nothing on the image's PATH is a program.
	if res := New(Options{Image: img}).Audit(context.Background(), nil); len(res.Files) != 0 {
		t.Errorf("programs in an image without any: %+v", res.Files)
	}
}

// TestImageCacheFile: --ld-cache with --image names an ld.so.cache
// anywhere inside the image, not only /etc/ld.so.cache.
func TestImageCacheFile(t *testing.T) {
	b, err := os.ReadFile("/etc/ld.so.cache")
	if err != nil {
		t.Skip("no /etc/ld.so.cache on this machine:", err)
	}
	dir := t.TempDir()
	writeImage(t, filepath.Join(dir, "oci"), filepath.Join(dir, "img.tar"), layerTar(t, []imgEnt{{name: "opt/ld.so.cache", data: b}}))
	img, err := LoadImage(context.Background(), filepath.Join(dir, "oci"), 0, "/opt/ld.so.cache")
	if err != nil {
		t.Fatal(err)
	}
	a := New(Options{Image: img, CacheFile: "/opt/ld.so.cache"})
	if err := a.CacheError(); err != nil {
		t.Fatal(err)
	}
	if a.cache().Len() == 0 {
		t.Fatal("the cache named inside the image was not read")
	}
}
