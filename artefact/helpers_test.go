package artefact

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// ent is a member of an archive built by a test.
type ent struct {
	name string
	data []byte
	link string // a symbolic link's target
	hard string // a hard link's target
	dir  bool
}

var (
	elfOnce sync.Once
	elfBin  []byte // a program
	elfLib  []byte // a shared library
	elfErr  string
)

// elfs compiles a small program and library with the system compiler.
func elfs(t testing.TB) ([]byte, []byte) {
	t.Helper()
	elfOnce.Do(func() {
		if !fixture.Have("gcc") {
			elfErr = "gcc is not installed, or -short: the fast tier compiles nothing"
			return
		}
		dir, err := os.MkdirTemp("", "artefact-elf")
		if err != nil {
			elfErr = err.Error()
			return
		}
		defer os.RemoveAll(dir)
		lib := fixture.Build(t, "gcc", dir, "l.c", "#include <string.h>\nint f(char*d,const char*s){return strlen(strcpy(d,s));}\n", "libf.so", "-shared", "-fPIC", "-Wl,-soname,libf.so")
		bin := fixture.Build(t, "gcc", dir, "m.c", "#include <stdio.h>\nint main(void){puts(\"x\");return 0;}\n", "prog")
		elfLib, _ = os.ReadFile(lib)
		elfBin, _ = os.ReadFile(bin)
	})
	if elfErr != "" {
		t.Skip(elfErr)
	}
	return elfBin, elfLib
}

func mkTar(t testing.TB, ents []ent) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, e := range ents {
		h := &tar.Header{Name: e.name, Mode: 0o755, Size: int64(len(e.data)), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		switch {
		case e.dir:
			h.Typeflag, h.Size = tar.TypeDir, 0
		case e.link != "":
			h.Typeflag, h.Linkname, h.Size = tar.TypeSymlink, e.link, 0
		case e.hard != "":
			h.Typeflag, h.Linkname, h.Size = tar.TypeLink, e.hard, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write(e.data)
		}
	}
	tw.Close()
	return b.Bytes()
}

func mkZip(t testing.TB, ents []ent) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, e := range ents {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.link != "" {
			h.SetMode(os.ModeSymlink | 0o777)
		} else {
			h.SetMode(0o755)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if e.link != "" {
			w.Write([]byte(e.link))
		} else {
			w.Write(e.data)
		}
	}
	zw.Close()
	return b.Bytes()
}

func gz(b []byte) []byte {
	var o bytes.Buffer
	w := gzip.NewWriter(&o)
	w.Write(b)
	w.Close()
	return o.Bytes()
}

func xzc(t testing.TB, b []byte) []byte {
	var o bytes.Buffer
	w, err := xz.NewWriter(&o)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(b)
	w.Close()
	return o.Bytes()
}

func zst(t testing.TB, b []byte) []byte {
	e, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	return e.EncodeAll(b, nil)
}

// bz2 compresses with the bzip2 program (the standard library only
// decompresses).
func bz2(t testing.TB, b []byte) []byte {
	t.Helper()
	fixture.Need(t, "bzip2")
	cmd := exec.Command("bzip2", "-c")
	cmd.Stdin = bytes.NewReader(b)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// mkAr writes an ar archive (a .deb when the first member is
// debian-binary).
func mkAr(members ...ent) []byte {
	var b bytes.Buffer
	b.WriteString("!<arch>\n")
	for _, m := range members {
		fmt.Fprintf(&b, "%-16s%-12d%-6d%-6d%-8o%-10d`\n", m.name, 0, 0, 0, 0o644, len(m.data))
		b.Write(m.data)
		if len(m.data)%2 == 1 {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

func mkDeb(t testing.TB, data []byte, control string) []byte {
	ctl := mkTar(t, []ent{{name: "./control", data: []byte(control)}})
	return mkAr(ent{name: "debian-binary", data: []byte("2.0\n")}, ent{name: "control.tar.gz", data: gz(ctl)}, ent{name: "data.tar.xz", data: xzc(t, data)})
}

// mkCpio writes a newc cpio archive.
func mkCpio(ents []ent, magic string) []byte {
	var b bytes.Buffer
	pad := func() {
		for b.Len()%4 != 0 {
			b.WriteByte(0)
		}
	}
	write := func(name string, mode int, data []byte) {
		fmt.Fprintf(&b, "%s%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x", magic, 1, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name)+1, 0)
		b.WriteString(name)
		b.WriteByte(0)
		pad()
		b.Write(data)
		pad()
	}
	for _, e := range ents {
		switch {
		case e.link != "":
			write(e.name, 0o120777, []byte(e.link))
		case e.dir:
			write(e.name, 0o40755, nil)
		default:
			write(e.name, 0o100755, e.data)
		}
	}
	write("TRAILER!!!", 0, nil)
	return b.Bytes()
}

// rpmHeader writes an rpm header structure holding string arrays.
func rpmHeader(tags map[uint32][]string) []byte {
	var index, store bytes.Buffer
	keys := make([]int, 0, len(tags))
	for k := range tags {
		keys = append(keys, int(k))
	}
	sort.Ints(keys)
	for _, k := range keys {
		binary.Write(&index, binary.BigEndian, [4]uint32{uint32(k), 8, uint32(store.Len()), uint32(len(tags[uint32(k)]))})
		for _, s := range tags[uint32(k)] {
			store.WriteString(s)
			store.WriteByte(0)
		}
	}
	var b bytes.Buffer
	b.Write([]byte{0x8e, 0xad, 0xe8, 0x01, 0, 0, 0, 0})
	binary.Write(&b, binary.BigEndian, [2]uint32{uint32(len(keys)), uint32(store.Len())})
	b.Write(index.Bytes())
	b.Write(store.Bytes())
	return b.Bytes()
}

func mkRPM(payload []byte, requires map[string]string) []byte {
	var b bytes.Buffer
	lead := make([]byte, 96)
	copy(lead, []byte{0xed, 0xab, 0xee, 0xdb, 3, 0})
	b.Write(lead)
	sig := rpmHeader(map[uint32][]string{1000: {"x"}})
	b.Write(sig)
	for b.Len()%8 != 0 {
		b.WriteByte(0)
	}
	var names, vers []string
	for n, v := range requires {
		names = append(names, n)
		vers = append(vers, v)
	}
	b.Write(rpmHeader(map[uint32][]string{1049: names, 1050: vers}))
	b.Write(payload)
	return b.Bytes()
}

// got is what a walk reported.
type got struct {
	members map[string]*Member
	order   []string
	err     error
}

func walkBytes(t testing.TB, b []byte, opt Options) got {
	t.Helper()
	p := filepath.Join(t.TempDir(), "artefact")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return walkPath(t, p, opt)
}

func walkPath(t testing.TB, p string, opt Options) got {
	t.Helper()
	g := got{members: map[string]*Member{}}
	g.err = Walk(context.Background(), p, opt, func(m *Member) error {
		if prev, ok := g.members[m.Name]; ok && prev.Err != nil && m.Err == nil {
			return nil
		}
		g.members[m.Name] = m
		g.order = append(g.order, m.Name)
		return nil
	})
	return g
}
