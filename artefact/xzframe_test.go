package artefact

import (
	"bytes"
	"io"
	"os/exec"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/ulikunitz/xz"
)

// xzTool compresses b with the xz program and args, or skips t.
func xzTool(t testing.TB, b []byte, args ...string) []byte {
	t.Helper()
	fixture.Need(t, "xz")
	cmd := exec.Command("xz", append([]string{"-c"}, args...)...)
	cmd.Stdin = bytes.NewReader(b)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xz %v: %v", args, err)
	}
	return out
}

// TestXZFrames: the framing follower passes every real shape of xz the
// xz program writes through the Go reader unchanged (checks of each
// kind, several blocks, a BCJ filter before LZMA2, uncompressed chunks,
// streams one after another with padding between), byte by byte as well
// as whole; and it refuses a later block or stream that claims a larger
// dictionary than the one the stream was given, which the Go reader
// would allocate.
func TestXZFrames(t *testing.T) {
	bin, lib := elfs(t)
	text := []byte(strings.Repeat("the quick brown fox jumps over the lazy dog\n", 20000))
	data := append(append(append([]byte(nil), bin...), text...), lib...)
	random := make([]byte, 200<<10) // stored as uncompressed chunks
	for i := range random {
		random[i] = byte(i*7919 + i>>3*31)
	}
	cat := func(bs ...[]byte) []byte { return bytes.Join(bs, nil) }
	small := xzTool(t, data, "-0")
	for _, c := range []struct {
		name string
		z    []byte
		want []byte
	}{
		{"crc64", xzTool(t, data, "-6"), data},
		{"no check", xzTool(t, data, "--check=none"), data},
		{"crc32", xzTool(t, data, "--check=crc32"), data},
		{"sha256", xzTool(t, data, "--check=sha256"), data},
		{"blocks", xzTool(t, data, "--block-size=64KiB"), data},
		{"incompressible", xzTool(t, random, "-6"), random},
		{"streams", cat(xzTool(t, data, "-6"), xzTool(t, text, "-6")), cat(data, text)},
		{"stream padding", cat(xzTool(t, data, "-6"), make([]byte, 8), xzTool(t, text, "-6")), cat(data, text)},
		{"Go writer", xzc(t, data), data},
	} {
		for _, oneByte := range []bool{false, true} {
			var r io.Reader = bytes.NewReader(c.z)
			if oneByte {
				r = iotest.OneByteReader(r)
			}
			f := newXZFrames(r, maxXZDict)
			z, err := xz.NewReader(f)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			got, err := io.ReadAll(z)
			if err != nil || !bytes.Equal(got, c.want) {
				t.Errorf("%s (byte by byte %v): %d bytes, %v; want %d", c.name, oneByte, len(got), err, len(c.want))
			}
			if f.lost {
				t.Errorf("%s (byte by byte %v): the framing was not followed", c.name, oneByte)
			}
		}
	}

	// A BCJ filter before LZMA2, which the Go reader does not read: its
	// framing is followed all the same.
	x86 := xzTool(t, data, "--x86", "--lzma2=preset=6")
	f := newXZFrames(bytes.NewReader(x86), maxXZDict)
	if got, err := io.ReadAll(f); err != nil || !bytes.Equal(got, x86) || f.lost || f.st != xzStreamPad {
		t.Errorf("x86 filter: %d of %d bytes, %v, lost %v, state %d", len(got), len(x86), err, f.lost, f.st)
	}

	// A 256 KiB first stream (xz -0), then one of 8 MiB (xz -6): the
	// second is more than the stream was given.
	for _, z := range [][]byte{cat(small, xzTool(t, text, "-6")), cat(small, make([]byte, 4), xzTool(t, data, "--block-size=64KiB", "-6"))} {
		d, err := xzDict(z)
		if err != nil || d != 256<<10 {
			t.Fatalf("the first block's dictionary: %d, %v", d, err)
		}
		r, _ := xz.NewReader(newXZFrames(bytes.NewReader(z), d))
		_, err = io.ReadAll(r)
		if err == nil || !strings.Contains(err.Error(), "claims a 8192 KiB dictionary, more than the 256 KiB reserved for the stream") {
			t.Errorf("a later 8 MiB dictionary: %v", err)
		}
	}

	// Through a walk, with the Go reader: the second stream's block is
	// refused, and says why.
	tb := mkTar(t, []ent{{name: "usr/bin/prog", data: bin}, {name: "usr/share/text", data: text}})
	big := cat(xzTool(t, tb[:len(tb)/2], "-0"), xzTool(t, tb[len(tb)/2:], "-9"))
	g := walkBytes(t, big, Options{noTools: true})
	if m := g.members["/usr/share/text"]; m == nil || m.Err == nil || !strings.Contains(m.Err.Error(), "claims a 65536 KiB dictionary, more than the 256 KiB reserved for the stream") {
		t.Errorf("walk of a .tar.xz whose second stream asks for 64 MiB: %+v", m)
	}
}

// FuzzXZFrames: the follower never panics, passes on every byte it is
// given unless it refuses a block, and never refuses one whose
// dictionary fits.
func FuzzXZFrames(f *testing.F) {
	f.Add(xzc(f, []byte("hello, world\n")))
	f.Add(append(xzc(f, []byte("a")), xzc(f, bytes.Repeat([]byte("b"), 5000))...))
	f.Fuzz(func(t *testing.T, b []byte) {
		x := newXZFrames(iotest.HalfReader(bytes.NewReader(b)), 1<<20)
		got, _ := io.ReadAll(x)
		if x.err == nil && !bytes.Equal(got, b) {
			t.Fatalf("passed %d of %d bytes without refusing", len(got), len(b))
		}
		if x.err != nil && (len(got) >= len(b) || !bytes.Equal(got, b[:len(got)])) {
			t.Fatalf("refused after passing %d of %d bytes, or others", len(got), len(b))
		}
	})
}
