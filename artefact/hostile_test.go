package artefact

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/abifloor/abifloor/internal/elfgen"
	"github.com/abifloor/abifloor/internal/imagetest"
)

// hostile is an archive and the error each named member must end in;
// every member not named must be read without error.
type hostile struct {
	name string
	b    []byte
	opt  Options
	errs map[string]error
	ok   []string // members that must still be read, in full
}

func TestHostile(t *testing.T) {
	bin, lib := elfs(t)
	good := ent{name: "./bin/prog", data: bin}
	bigTar := func() []byte { // a header claiming a terabyte, and no data
		var b bytes.Buffer
		tw := tar.NewWriter(&b)
		tw.WriteHeader(&tar.Header{Name: "./bin/prog", Size: int64(len(bin)), Mode: 0o755, Typeflag: tar.TypeReg})
		tw.Write(bin)
		tw.WriteHeader(&tar.Header{Name: "./huge", Size: 1 << 40, Mode: 0o644, Typeflag: tar.TypeReg})
		tw.Flush()
		b.Write(bin[:1024]) // starts like an ELF file, then ends
		return b.Bytes()
	}
	zeros := mkTar(t, []ent{good, {name: "./zeros", data: make([]byte, 64<<20)}})
	truncated := gz(mkTar(t, []ent{{name: "./a/first", data: bin}, {name: "./a/second", data: lib}}))
	truncated = truncated[:len(truncated)-300]
	truncXZ := xzc(t, mkTar(t, []ent{{name: "./a/first", data: bin}, {name: "./a/second", data: lib}}))
	truncXZ = truncXZ[:len(truncXZ)-300]
	cpioBad := mkCpio([]ent{good, {name: "./bin/other", data: bin}}, "070701")
	second := bytes.Index(cpioBad[6:], []byte("070701")) + 6
	copy(cpioBad[second:], "999999")
	deep := mkZip(t, []ent{good})
	for range 4 {
		deep = mkZip(t, []ent{{name: "again.zip", data: deep}})
	}
	stacked := gz(gz(gz(mkTar(t, []ent{good}))))
	// claimELF is a tar whose second member starts as an ELF file with
	// the program header fields set by edit, claims size bytes and holds
	// only 128 KiB of them.
	claimELF := func(size int64, edit func(h []byte)) []byte {
		var b bytes.Buffer
		tw := tar.NewWriter(&b)
		tw.WriteHeader(&tar.Header{Name: "./bin/prog", Size: int64(len(bin)), Mode: 0o755, Typeflag: tar.TypeReg})
		tw.Write(bin)
		tw.WriteHeader(&tar.Header{Name: "./big", Size: size, Mode: 0o755, Typeflag: tar.TypeReg})
		tw.Flush()
		body := make([]byte, 128<<10)
		copy(body, bin[:64])
		edit(body)
		b.Write(body)
		return b.Bytes()
	}

	for _, c := range []hostile{
		{name: "tar names", b: mkTar(t, []ent{
			{name: "../../etc/passwd", data: []byte("root")},
			{name: "/etc/shadow", data: []byte("x")},
			{name: "./lib/evil", link: "../../../etc/passwd"},
			{name: "./lib/abs", link: "/etc/passwd"}, // resolves in the package's root (issue 17 item 2)
			{name: "./lib/absup", link: "/../etc/passwd"},
			{name: "./lib/hard", hard: "../../etc/passwd"},
			{name: "./lib/fine", link: "../bin/prog"},
			good,
		}), errs: map[string]error{
			"../../etc/passwd": ErrUnsafeName, "/etc/shadow": ErrUnsafeName,
			"/lib/evil": ErrLinkOut, "/lib/absup": ErrLinkOut, "/lib/hard": ErrLinkOut,
		}, ok: []string{"/bin/prog"}},
		{name: "zip names", b: mkZip(t, []ent{
			{name: "../../etc/passwd", data: []byte("root")},
			{name: "/abs", data: []byte("x")},
			{name: "pkg/evil", link: "../../x"},
			good,
		}), errs: map[string]error{"../../etc/passwd": ErrUnsafeName, "/abs": ErrUnsafeName, "/pkg/evil": ErrLinkOut}, ok: []string{"/bin/prog"}},
		{name: "tar claiming a terabyte", b: bigTar(), errs: map[string]error{"/huge": ErrTooLarge}, ok: []string{"/bin/prog"}},
		{name: "zip claiming a terabyte", b: zipClaim(t, bin), errs: map[string]error{"/claims": ErrTooLarge}, ok: []string{"/bin/prog"}},
		// e_phoff near 2^63: the end of the table overflows.
		{name: "ELF tables past the end", b: claimELF(40<<20, func(h []byte) {
			binary.LittleEndian.PutUint64(h[32:], 1<<63-16)
		}), errs: map[string]error{"/big": ErrTruncated}, ok: []string{"/bin/prog"}},
		// No usable program headers: read whole, as far as the data goes.
		{name: "ELF claiming 400 MB", b: claimELF(400<<20, func(h []byte) {
			binary.LittleEndian.PutUint16(h[54:], 0)
		}), errs: map[string]error{"/big": ErrTruncated}, ok: []string{"/bin/prog"}},
		{name: "gzip bomb", b: gz(zeros), opt: Options{ratio: 4, minExpand: 1 << 20}, errs: map[string]error{"/zeros": ErrBomb}, ok: []string{"/bin/prog"}},
		{name: "zstd bomb", b: zst(t, zeros), opt: Options{ratio: 4, minExpand: 1 << 20}, errs: map[string]error{"/zeros": ErrBomb}, ok: []string{"/bin/prog"}},
		{name: "truncated", b: truncated, errs: map[string]error{"/a/second": ErrTruncated}, ok: []string{"/a/first"}},
		{name: "truncated xz", b: truncXZ, errs: map[string]error{"/a/second": ErrTruncated}, ok: []string{"/a/first"}},
		// The Go reader yields nothing of a truncated block: the error is the
		// artefact's.
		{name: "truncated xz, Go reader", b: truncXZ, opt: Options{noTools: true}, errs: map[string]error{"": ErrTruncated}},
		{name: "cpio bad magic", b: mkRPM(gz(cpioBad), nil), errs: map[string]error{"/bin/prog": ErrFormat}},
		{name: "zips in zips", b: deep, errs: map[string]error{"/again.zip!/again.zip!/again.zip": ErrTooDeep}},
		{name: "gzip of gzip of gzip", b: stacked, errs: map[string]error{"": ErrTooDeep}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir) // a write anywhere relative would land here
			p := filepath.Join(t.TempDir(), "a")
			os.WriteFile(p, c.b, 0o644)
			var g got
			if d := elfgen.Allocated(func() { g = walkPath(t, p, c.opt) }); d > 64<<20 {
				t.Errorf("allocated %d MB", d>>20)
			}
			for name, want := range c.errs {
				if name == "" {
					if !errors.Is(g.err, want) {
						t.Errorf("walk: %v, want %v", g.err, want)
					}
					continue
				}
				m := g.members[name]
				if m == nil || !errors.Is(m.Err, want) {
					t.Errorf("%s: %+v, want error %v; members %q", name, m, want, g.order)
				} else {
					t.Logf("%s: %v", name, m.Err)
				}
			}
			for _, name := range c.ok {
				if m := g.members[name]; m == nil || m.Err != nil || len(m.Data) == 0 {
					t.Errorf("%s not read: %+v", name, m)
				}
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("the walk wrote %v", ents)
			}
		})
	}
}

// zipClaim writes a zip whose second member starts like an ELF file and
// claims a terabyte.
func zipClaim(t *testing.T, bin []byte) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, _ := zw.Create("bin/prog")
	w.Write(bin)
	var raw bytes.Buffer
	fw, _ := flate.NewWriter(&raw, flate.BestSpeed)
	fw.Write(bin[:4096])
	fw.Close()
	h := &zip.FileHeader{Name: "claims", Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(bin[:4096]), CompressedSize64: uint64(raw.Len()), UncompressedSize64: 1 << 40}
	rw, err := zw.CreateRaw(h)
	if err != nil {
		t.Fatal(err)
	}
	rw.Write(raw.Bytes())
	zw.Close()
	return b.Bytes()
}

// TestMissingBlob: an image whose manifest names a layer that is not
// there is reported on that layer; the other layers are still read.
func TestMissingBlob(t *testing.T) {
	bin, lib := elfs(t)
	dir := t.TempDir()
	imagetest.Write(t, dir, mkTar(t, []ent{{name: "usr/bin/prog", data: bin}}), mkTar(t, []ent{{name: "usr/lib/libf.so", data: lib}}))
	blobs, _ := filepath.Glob(filepath.Join(dir, "blobs/sha256/*"))
	removed := ""
	for _, b := range blobs {
		if data, _ := os.ReadFile(b); bytes.Contains(data, []byte("ustar")) { // the plain (second) layer
			os.Remove(b)
			removed = b
		}
	}
	if removed == "" {
		t.Fatal("no plain layer found")
	}
	g := walkPath(t, dir, Options{})
	if g.err != nil {
		t.Fatal(g.err)
	}
	if m := g.members["/usr/bin/prog"]; m == nil || m.Err != nil {
		t.Errorf("prog: %+v", m)
	}
	var layerErr error
	for _, m := range g.members {
		if m.Err != nil {
			layerErr = m.Err
			t.Logf("%s: %v", m.Name, m.Err)
		}
	}
	if layerErr == nil || !bytes.Contains([]byte(layerErr.Error()), []byte("missing blob")) {
		t.Errorf("no missing-blob error: %v", g.order)
	}
}

// TestManifestEscape: a docker-style manifest.json in a layout directory
// naming a layer outside it is refused, and nothing outside is read.
func TestManifestEscape(t *testing.T) {
	bin, _ := elfs(t)
	root := t.TempDir()
	outside := filepath.Join(root, "secret.tar")
	os.WriteFile(outside, mkTar(t, []ent{{name: "bin/leak", data: bin}}), 0o644)
	dir := filepath.Join(root, "img")
	os.MkdirAll(dir, 0o755)
	imagetest.Write(t, dir, mkTar(t, []ent{{name: "bin/prog", data: bin}}))
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`[{"Layers": ["../secret.tar"]}]`), 0o644)
	g := walkPath(t, dir, Options{})
	if g.members["/bin/leak"] != nil {
		t.Fatal("a layer outside the layout was read")
	}
	var bad *Member
	for _, m := range g.members {
		if errors.Is(m.Err, ErrUnsafeName) {
			bad = m
		}
	}
	if bad == nil {
		t.Errorf("no error for the escaping layer: %v %v", g.order, g.err)
	}
}

// TestRPMHeaderClaim: an rpm whose main header claims 60 MiB and holds
// none of it costs what it holds when its Requires are read.
func TestRPMHeaderClaim(t *testing.T) {
	b := make([]byte, 96, 96+32)
	for _, size := range []uint32{0, 60 << 20} {
		h := []byte{0x8e, 0xad, 0xe8, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
		binary.BigEndian.PutUint32(h[12:], size)
		b = append(b, h...)
	}
	b[0], b[1], b[2], b[3] = 0xed, 0xab, 0xee, 0xdb
	p := filepath.Join(t.TempDir(), "a.rpm")
	os.WriteFile(p, b, 0o644)
	var ctl string
	var err error
	d := elfgen.Allocated(func() {
		err = Walk(context.Background(), p, Options{Control: &ctl}, func(*Member) error { return nil })
	})
	if !errors.Is(err, ErrFormat) {
		t.Errorf("Walk: %v, want %v", err, ErrFormat)
	}
	if d > 16<<20 {
		t.Errorf("allocated %d MB", d>>20)
	}
}

// TestRepeatedLayer: a docker-save manifest naming one plain (not
// compressed) layer thousands of times is a bomb like a compressed one:
// the layers' bytes are charged to the budget, so the reading stops
// instead of reading the layer again for every name.
func TestRepeatedLayer(t *testing.T) {
	layer := mkTar(t, []ent{{name: "data", data: make([]byte, 64<<10)}})
	names := make([]string, 1000) // 1000 x 64 KiB: 64 MiB read of a 100 KiB file
	for i := range names {
		names[i] = "l.tar"
	}
	man, _ := json.Marshal([]map[string]any{{"Layers": names}})
	g := walkBytes(t, mkTar(t, []ent{{name: "l.tar", data: layer}, {name: "manifest.json", data: man}}), Options{ratio: 10, minExpand: 4 << 20})
	if !errors.Is(g.err, ErrBomb) {
		t.Errorf("walk: %v, want %v", g.err, ErrBomb)
		for _, n := range g.order[:min(5, len(g.order))] {
			t.Logf("%s: %v", n, g.members[n].Err)
		}
	}
}

// TestManyLayers: a manifest naming more layers than an image can stack
// is refused before any is read (each name, a few bytes, would cost an
// opening and a member error: 5M names took 3 GB and minutes).
func TestManyLayers(t *testing.T) {
	man, _ := json.Marshal([]map[string]any{{"Layers": make([]string, maxImageLayers+1)}})
	g := walkBytes(t, mkTar(t, []ent{{name: "manifest.json", data: man}}), Options{})
	if !errors.Is(g.err, ErrFormat) || len(g.order) != 0 {
		t.Errorf("walk: %v, members %q; want %v and none", g.err, g.order, ErrFormat)
	}
}

// TestLayoutBlobsLinkOut (issue 19 item 3): a layout whose blobs/ or
// blobs/sha256/ is a symbolic link out of the layout is not read from
// outside it; a layout whose blobs are really inside reads as before.
func TestLayoutBlobsLinkOut(t *testing.T) {
	bin, _ := elfs(t)
	for _, link := range []string{"blobs", "blobs/sha256"} {
		dir, outside := t.TempDir(), t.TempDir()
		imagetest.Write(t, dir, mkTar(t, []ent{{name: "usr/bin/prog", data: bin}}))
		if g := walkPath(t, dir, Options{}); g.err != nil || g.members["/usr/bin/prog"] == nil {
			t.Fatalf("the layout before the link: %v", g.err)
		}
		moved := filepath.Join(outside, filepath.Base(link))
		if err := os.Rename(filepath.Join(dir, link), moved); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(moved, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
		g := walkPath(t, dir, Options{})
		if m := g.members["/usr/bin/prog"]; m != nil && m.Err == nil {
			t.Errorf("%s a link out of the layout: /usr/bin/prog was read from outside it", link)
		}
		if g.err == nil {
			t.Errorf("%s a link out of the layout: the walk returned no error", link)
		} else {
			t.Logf("%s: %v", link, g.err)
		}
	}
}
