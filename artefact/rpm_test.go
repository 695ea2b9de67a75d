package artefact

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/internal/elfgen"
	"github.com/abifloor/abifloor/internal/fixture"
)

// realRPM builds a package holding a small program with rpmbuild, which
// adds the program's Requires (libc.so.6(GLIBC_...)(64bit)) itself.
func realRPM(t *testing.T) []byte {
	t.Helper()
	fixture.Need(t, "rpmbuild")
	bin, _ := elfs(t)
	dir := t.TempDir()
	prog := filepath.Join(dir, "prog")
	if err := os.WriteFile(prog, bin, 0o755); err != nil {
		t.Fatal(err)
	}
	spec := "Name: t\nVersion: 1\nRelease: 1\nSummary: t\nLicense: MIT\n%define debug_package %{nil}\n%description\nt\n" +
		"%install\nmkdir -p %{buildroot}/usr/bin\ncp %{prog} %{buildroot}/usr/bin/prog\n%files\n/usr/bin/prog\n"
	if err := os.WriteFile(filepath.Join(dir, "t.spec"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("rpmbuild", "--quiet", "--define", "_topdir "+filepath.Join(dir, "top"), "--define", "prog "+prog, "-bb", "t.spec")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("rpmbuild cannot build here: %v\n%s", err, out)
	}
	found, _ := filepath.Glob(filepath.Join(dir, "top", "RPMS", "*", "*.rpm"))
	if len(found) != 1 {
		t.Fatalf("rpmbuild made %q", found)
	}
	b, err := os.ReadFile(found[0])
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rpmMain finds the main header of rpm b: its offset, entry count and
// store size.
func rpmMain(t *testing.T, b []byte) (off, n, size int) {
	t.Helper()
	sig := 96
	sn := int(binary.BigEndian.Uint32(b[sig+8:]))
	ss := int(binary.BigEndian.Uint32(b[sig+12:]))
	off = sig + 16 + sn*16 + ss
	off += (8 - off%8) % 8
	if !bytes.Equal(b[off:off+4], rpmMagic) {
		t.Fatalf("no main header at %d", off)
	}
	return off, int(binary.BigEndian.Uint32(b[off+8:])), int(binary.BigEndian.Uint32(b[off+12:]))
}

// rpmPatch returns rpm b with the count of tag set to count and pad
// bytes of zeros added at the end of the main header's store.
func rpmPatch(t *testing.T, b []byte, tag, count uint32, pad int) []byte {
	t.Helper()
	off, n, size := rpmMain(t, b)
	out := bytes.Clone(b)
	patched := false
	for i := range n {
		e := out[off+16+16*i:]
		if binary.BigEndian.Uint32(e) == tag {
			binary.BigEndian.PutUint32(e[12:], count)
			patched = true
		}
	}
	if !patched {
		t.Fatalf("no tag %d in the main header", tag)
	}
	end := off + 16 + 16*n + size
	binary.BigEndian.PutUint32(out[off+12:], uint32(size+pad))
	return append(append(out[:end:end], make([]byte, pad)...), b[end:]...)
}

// TestRPMHeaderCounts (issue 28 item 8): every entry's count is checked
// against the store it points into, and the main header is read only up
// to what the artefact may hold. A Requires claiming 2³²−1 strings over a
// 64 MiB store of zeros, gzipped to 65 KB, took 40 s and 4 GB; here it is
// refused, naming the file, before the header is read.
func TestRPMHeaderCounts(t *testing.T) {
	real := realRPM(t)
	walk := func(t *testing.T, b []byte) (string, uint64, error) {
		p := filepath.Join(t.TempDir(), "hostile.rpm.gz")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		var ctl string
		var err error
		d := elfgen.Allocated(func() {
			err = Walk(context.Background(), p, Options{Control: &ctl}, func(*Member) error { return nil })
		})
		if err != nil && !strings.Contains(err.Error(), p) {
			t.Errorf("the error does not name the file: %v", err)
		}
		return ctl, d, err
	}
	t.Run("real", func(t *testing.T) {
		ctl, _, err := walk(t, gz(real))
		if err != nil || !strings.Contains(ctl, "libc.so.6(GLIBC_") {
			t.Errorf("a real rpm: %v, Requires %q", err, ctl)
		}
	})
	for _, tc := range []struct {
		name  string
		b     []byte
		want  string
		bound uint64
	}{
		// The count alone: the store is the real one, a few KB.
		{"count", gz(rpmPatch(t, real, rpmRequireName, 1<<32-1, 0)), "tag 1049) claims 4294967295 elements", 16 << 20},
		// The attack as filed: the store grown to 64 MiB of zeros.
		{"count over 64 MiB of zeros", gz(rpmPatch(t, real, rpmRequireName, 1<<32-1, 64<<20-64<<10)), "rpm main header claims", 16 << 20},
		// Counts within the store, every string empty: the Requires
		// stay small (empty names are no Requires).
		{"empty strings", gz(rpmPatch(t, rpmPatch(t, real, rpmRequireName, 4<<20, 4<<20), rpmRequireVersion, 4<<20, 0)), "", 64 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Logf("%d bytes gzipped", len(tc.b))
			ctl, d, err := walk(t, tc.b)
			if tc.want == "" {
				// Past the real strings, four million empty ones.
				if err != nil || len(ctl) > 64<<10 {
					t.Errorf("Walk: %v, Requires of %d bytes", err, len(ctl))
				}
			} else if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Walk: %v, want %v with %q", err, ErrFormat, tc.want)
			}
			if d > tc.bound {
				t.Errorf("allocated %d MB, more than %d", d>>20, tc.bound>>20)
			}
		})
	}
}

// rpmRaw is a header of the given entries (tag, type, offset, count)
// over store.
func rpmRaw(entries [][4]uint32, store []byte) []byte {
	var b bytes.Buffer
	b.Write(append(bytes.Clone(rpmMagic), 0, 0, 0, 0))
	binary.Write(&b, binary.BigEndian, [2]uint32{uint32(len(entries)), uint32(len(store))})
	for _, e := range entries {
		binary.Write(&b, binary.BigEndian, e)
	}
	b.Write(store)
	return b.Bytes()
}

// TestRPMEntries checks a header built by hand, following the format
// (rpm's doc/manual/format_header.md), entry by entry.
func TestRPMEntries(t *testing.T) {
	store := []byte("libc.so.6(GLIBC_2.34)(64bit)\x00rtld(GNU_HASH)\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	for _, tc := range []struct {
		name    string
		entries [][4]uint32
		want    string // "" for no error
		req     string
	}{
		{"good", [][4]uint32{{rpmRequireName, 8, 0, 2}, {rpmRequireVersion, 8, 43, 2}, {1000, 4, 44, 2}}, "", "libc.so.6(GLIBC_2.34)(64bit)\nrtld(GNU_HASH)\n"},
		{"count 2³²−1", [][4]uint32{{rpmRequireName, 8, 0, 1<<32 - 1}}, "claims 4294967295 elements", ""},
		{"int32 array past the store", [][4]uint32{{rpmRequireName, 8, 0, 2}, {1000, 4, 44, 3}}, "at least 12 bytes, and the store has 8", ""},
		{"int64 count overflowing 32 bits", [][4]uint32{{1000, 5, 0, 1 << 31}}, "at least 17179869184 bytes", ""},
		{"offset past the store", [][4]uint32{{1000, 1, 100, 1}}, "offset 100 past the 52-byte store", ""},
		{"unknown type", [][4]uint32{{1000, 10, 0, 1}}, "unknown type 10", ""},
		{"string with count", [][4]uint32{{1000, 6, 0, 5}}, "", ""}, // rpm writes 1; more is read as an array
		{"strings running out", [][4]uint32{{rpmRequireName, 8, 29, 10}}, "runs past the end of the store", ""},
		{"requires not strings", [][4]uint32{{rpmRequireName, 4, 44, 1}}, "not strings", ""},
		{"empty names", [][4]uint32{{rpmRequireName, 8, 44, 8}}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := rpmRaw(tc.entries, store)
			req, err := rpmRequires(h[16:16+16*len(tc.entries)], h[16+16*len(tc.entries):])
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("rpmRequires: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("rpmRequires: %v, want %q", err, tc.want)
			case req != tc.req:
				t.Errorf("Requires %q, want %q", req, tc.req)
			}
			// The same header in a whole package: the walk's error.
			var b bytes.Buffer
			b.Write(append([]byte{0xed, 0xab, 0xee, 0xdb, 3, 0}, make([]byte, 90)...))
			b.Write(rpmRaw([][4]uint32{{1000, 7, 0, 1}}, []byte{0, 0, 0, 0, 0, 0, 0, 0}))
			b.Write(h)
			b.Write(gz(mkCpio(nil, "070701")))
			var ctl string
			err = WalkReaderAt(context.Background(), bytes.NewReader(b.Bytes()), int64(b.Len()), Options{Control: &ctl}, func(*Member) error { return nil })
			if (tc.want == "") != (err == nil) || (err != nil && !errors.Is(err, ErrFormat)) {
				t.Errorf("Walk: %v", err)
			}
		})
	}
}

// FuzzRPMHeader feeds arbitrary entries and stores to the header reader:
// no panic, and Requires never longer than twice the store (each line's
// name and version are bytes of it, each with its NUL).
func FuzzRPMHeader(f *testing.F) {
	store := []byte("libc.so.6(GLIBC_2.34)(64bit)\x00rtld(GNU_HASH)\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	for _, es := range [][][4]uint32{
		{{rpmRequireName, 8, 0, 2}, {rpmRequireVersion, 8, 43, 2}, {1000, 4, 44, 2}},
		{{rpmRequireName, 8, 0, 1<<32 - 1}},
		{{rpmRequireName, 8, 0, 2}, {rpmRequireVersion, 8, 0, 2}},
		{{1000, 6, 0, 1}, {1001, 9, 15, 1}, {1002, 3, 44, 2}},
	} {
		f.Add(rpmRaw(es, store)[8:])
	}
	f.Add(rpmMainHeader(mkRPM(nil, map[string]string{"libc.so.6(GLIBC_2.2.5)(64bit)": "", "a": "1.0"}))[8:])
	f.Fuzz(func(t *testing.T, b []byte) {
		// b: entry count, store size, then the entries and the store
		// (a header after its magic), as the walker splits it.
		if len(b) < 8 {
			return
		}
		n := int(binary.BigEndian.Uint32(b) % 256)
		if 8+16*n > len(b) {
			return
		}
		index, store := b[8:8+16*n], b[8+16*n:]
		es, err := rpmEntries(index, len(store))
		if err == nil {
			for _, e := range es {
				if e.count > 0 && e.count*rpmTypeSize[e.typ] > uint64(len(store))-e.off {
					t.Fatalf("entry %+v passed over a %d-byte store", e, len(store))
				}
			}
		}
		req, err := rpmRequires(index, store)
		if err == nil && len(req) > 2*len(store) {
			t.Fatalf("Requires of %d bytes from a %d-byte store", len(req), len(store))
		}
	})
}

// rpmMainHeader cuts the main header out of an rpm made by mkRPM.
func rpmMainHeader(b []byte) []byte {
	off := 96 + 16 + 16 + 2 // the signature: one entry, "x\x00"
	off += (8 - off%8) % 8
	n := int(binary.BigEndian.Uint32(b[off+8:]))
	size := int(binary.BigEndian.Uint32(b[off+12:]))
	return b[off : off+16+16*n+size]
}
