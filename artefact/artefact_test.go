package artefact

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/abifloor/abifloor/internal/imagetest"
)

func TestDetect(t *testing.T) {
	tarb := make([]byte, 512)
	copy(tarb[257:], "ustar\x0000")
	for _, c := range []struct {
		head string
		want Format
	}{
		{"PK\x03\x04rest", Zip},
		{"PK\x05\x06", Zip},
		{"\x1f\x8b\x08", Gzip},
		{"BZh91AY", Bzip2},
		{"BZhx", ""},
		{"\xfd7zXZ\x00", XZ},
		{"\x28\xb5\x2f\xfd", Zstd},
		{"!<arch>\ndebian-binary   ", Deb},
		{"!<arch>\nfoo.o/          ", ""}, // a static library is not read
		{"\xed\xab\xee\xdb\x03\x00", RPM},
		{"070701000", Cpio},
		{string(tarb), Tar},
		{"\x7fELF\x02\x01\x01", ""},
		{"#!/bin/sh\n", ""},
		{"", ""},
	} {
		if got := Detect([]byte(c.head)); got != c.want {
			t.Errorf("Detect(%q) = %q, want %q", c.head, got, c.want)
		}
	}
}

func TestCleanName(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"usr/bin/ls", "/usr/bin/ls"},
		{"./usr/bin/ls", "/usr/bin/ls"},
		{"a/../b", "/b"},
		{"a//b/", "/a/b"},
		{"../../etc/passwd", ""},
		{"a/../../x", ""},
		{"/etc/passwd", ""},
	} {
		got, err := cleanName(c.in)
		if c.want == "" {
			if !errors.Is(err, ErrUnsafeName) {
				t.Errorf("cleanName(%q) = %q, %v; want ErrUnsafeName", c.in, got, err)
			}
			continue
		}
		if got != c.want || err != nil {
			t.Errorf("cleanName(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// tree is the file set every format below packs.
func tree(t testing.TB) []ent {
	bin, lib := elfs(t)
	return []ent{
		{name: "./usr/", dir: true},
		{name: "./usr/bin/prog", data: bin},
		{name: "./usr/lib/libf.so", data: lib},
		{name: "./usr/lib/libf.so.1", link: "libf.so"},
		{name: "./usr/share/doc/README", data: []byte("hello\n")},
	}
}

// checkTree asserts that a walk saw tree's files, the ELF ones in full.
func checkTree(t *testing.T, g got, prefix string) {
	t.Helper()
	bin, lib := elfs(t)
	if g.err != nil {
		t.Fatalf("walk: %v", g.err)
	}
	for name, want := range map[string][]byte{"/usr/bin/prog": bin, "/usr/lib/libf.so": lib} {
		m := g.members[prefix+name]
		if m == nil {
			t.Fatalf("no member %s%s; got %v", prefix, name, g.order)
		}
		if m.Err != nil || !bytes.Equal(m.Data, want) {
			t.Errorf("%s: err %v, %d bytes, want %d", name, m.Err, len(m.Data), len(want))
		}
	}
	if m := g.members[prefix+"/usr/share/doc/README"]; m == nil || m.Data != nil || m.Err != nil || m.Size != 6 {
		t.Errorf("README: %+v", m)
	}
	for _, m := range g.members {
		if m.Err != nil {
			t.Errorf("%s: unexpected error %v", m.Name, m.Err)
		}
	}
}

func TestFormats(t *testing.T) {
	tr := tree(t)
	tarb := mkTar(t, tr)
	for _, c := range []struct {
		name  string
		build func(t *testing.T) []byte
	}{
		{"tar", func(*testing.T) []byte { return tarb }},
		{"tar.gz", func(*testing.T) []byte { return gz(tarb) }},
		{"tar.xz", func(t *testing.T) []byte { return xzc(t, tarb) }},
		{"tar.zst", func(t *testing.T) []byte { return zst(t, tarb) }},
		{"tar.bz2", func(t *testing.T) []byte { return bz2(t, tarb) }},
		{"zip", func(t *testing.T) []byte { return mkZip(t, tr[1:]) }},
		{"deb", func(t *testing.T) []byte { return mkDeb(t, tarb, "Package: p\nDepends: libc6 (>= 2.34)\n") }},
		{"rpm gzip", func(t *testing.T) []byte { return mkRPM(gz(mkCpio(tr, "070701")), nil) }},
		{"rpm xz", func(t *testing.T) []byte { return mkRPM(xzc(t, mkCpio(tr, "070701")), nil) }},
		{"rpm zstd crc", func(t *testing.T) []byte { return mkRPM(zst(t, mkCpio(tr, "070702")), nil) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := c.build(t)
			checkTree(t, walkBytes(t, b, Options{}), "")
			checkTree(t, walkBytes(t, b, Options{noTools: true}), "")
		})
	}
}

// TestNested reads a tarball inside a zip, named outer!/inner!/path.
func TestNested(t *testing.T) {
	tgz := gz(mkTar(t, tree(t)))
	z := mkZip(t, []ent{{name: "dist/pkg.tgz", data: tgz}, {name: "inner.zip", data: mkZip(t, tree(t)[1:])}})
	g := walkBytes(t, z, Options{})
	checkTree(t, got{members: trimPrefix(g.members, "/dist/pkg.tgz!"), err: g.err}, "")
	checkTree(t, got{members: trimPrefix(g.members, "/inner.zip!"), err: g.err}, "")
}

func trimPrefix(ms map[string]*Member, p string) map[string]*Member {
	out := map[string]*Member{}
	for k, v := range ms {
		if len(k) > len(p) && k[:len(p)] == p {
			out[k[len(p):]] = v
		}
	}
	return out
}

func TestControl(t *testing.T) {
	tarb := mkTar(t, tree(t))
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"deb", mkDeb(t, tarb, "Package: p\nDepends: libc6 (>= 2.34)\n"), "Depends: libc6 (>= 2.34)"},
		{"rpm", mkRPM(gz(mkCpio(tree(t), "070701")), map[string]string{"libc.so.6(GLIBC_2.34)(64bit)": ""}), "libc.so.6(GLIBC_2.34)(64bit)\n"},
	} {
		p := filepath.Join(t.TempDir(), "a")
		os.WriteFile(p, c.b, 0o644)
		var ctl string
		err := Walk(context.Background(), p, Options{Control: &ctl}, func(*Member) error { return nil })
		if err != nil || !bytes.Contains([]byte(ctl), []byte(c.want)) {
			t.Errorf("%s: Control = %q, %v; want it to hold %q", c.name, ctl, err, c.want)
		}
	}
}

func TestImage(t *testing.T) {
	bin, lib := elfs(t)
	base := mkTar(t, []ent{
		{name: "usr/bin/prog", data: bin},
		{name: "usr/lib/libf.so", data: lib},
		{name: "usr/lib/libg.so", data: lib},
		{name: "opt/app/old", data: bin},
		{name: "etc/gone/x", data: bin},
		{name: "lib", link: "/usr/lib"}, // absolute links point inside an image
	})
	mid := mkTar(t, []ent{
		{name: "usr/lib/.wh.libf.so"},    // deletes a library prog needs
		{name: "opt/app/.wh..wh..opq"},   // empties opt/app below
		{name: "opt/app/new", data: lib}, // but not in its own layer
		{name: "etc/gone", data: []byte("a file over a directory")},
	})
	top := mkTar(t, []ent{{name: "usr/lib/libg.so", data: bin}}) // replaced
	dir := t.TempDir()
	saved := imagetest.Write(t, dir, base, mid, top)
	want := map[string][]byte{"/usr/bin/prog": bin, "/usr/lib/libg.so": bin, "/opt/app/new": lib, "/etc/gone": nil}
	for _, c := range []struct {
		name string
		g    got
	}{
		{"oci layout", walkPath(t, dir, Options{})},
		{"docker save", walkBytes(t, saved, Options{})},
		{"oci archive", walkBytes(t, tarDir(t, dir), Options{})}, // a tar of the layout: no manifest.json
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.g.err != nil {
				t.Fatal(c.g.err)
			}
			if len(c.g.members) != len(want) {
				t.Errorf("members %v, want %d", c.g.order, len(want))
			}
			for n, d := range want {
				m := c.g.members[n]
				if m == nil || m.Err != nil || !bytes.Equal(m.Data, d) {
					t.Errorf("%s: %+v", n, m)
				}
			}
		})
	}
	// WalkView gives the applied file system and Walk's members in one
	// pass.
	n := 0
	v, err := WalkView(context.Background(), dir, Options{}, func(m *Member) error {
		if m.Err == nil {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := v.Entries["/usr/lib/libf.so"]; ok {
		t.Error("the whited-out library is in the view")
	}
	if e := v.Entries["/lib"]; e.Link != "/usr/lib" {
		t.Errorf("/lib in the view: %+v", e)
	}
	if n != len(want) {
		t.Errorf("WalkView: %d members, want %d", n, len(want))
	}
}

// tarDir is a tar of the files under dir.
func tarDir(t *testing.T, dir string) []byte {
	var ents []ent
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			ents = append(ents, ent{name: rel, data: data})
		}
		return nil
	})
	return mkTar(t, ents)
}

func TestRealNotArtefact(t *testing.T) {
	// A compressed file that holds no archive is not an artefact.
	g := walkBytes(t, gz([]byte("changelog\n")), Options{})
	if !errors.Is(g.err, ErrNotArtefact) {
		t.Errorf("gzip of text: %v", g.err)
	}
	g = walkBytes(t, []byte("\x7fELF\x02\x01\x01"), Options{})
	if !errors.Is(g.err, ErrFormat) {
		t.Errorf("ELF file: %v", g.err)
	}
}

func TestSniff(t *testing.T) {
	text := bytes.Repeat([]byte("a changelog line\n"), 64)
	tarb := mkTar(t, tree(t))
	for _, c := range []struct {
		name string
		head []byte
		want Format
	}{
		{"gzip of text", gz(text), ""},
		{"gzip of tar", gz(tarb), Gzip},
		{"gzip of zip", gz(mkZip(t, tree(t)[1:])), ""},
		{"zstd of text", zst(t, text), ""},
		{"zstd of tar", zst(t, tarb), Zstd},
		{"short gzip", gz([]byte("x")), Gzip}, // too short to tell: the reader decides
		{"xz of text", xzc(t, text), XZ},      // not decoded from a head
		{"a cut head", gz(tarb)[:40], Gzip},
	} {
		h := c.head[:min(len(c.head), 4096)]
		if got := Sniff(h); got != c.want {
			t.Errorf("%s: Sniff = %q, want %q", c.name, got, c.want)
		}
	}
}
