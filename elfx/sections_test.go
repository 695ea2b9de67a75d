package elfx

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
)

// TestChdr compiles an object with compressed debug sections at test time
// and checks that elfx's section and compression headers agree with
// debug/elf's.
func TestChdr(t *testing.T) {
	fixture.Need(t, "gcc")
	dir := t.TempDir()
	src, obj := filepath.Join(dir, "a.c"), filepath.Join(dir, "a.o")
	os.WriteFile(src, []byte("struct s { int a; long b; }; struct s v; int f(struct s *p) { return p->a; }\n"), 0o644)
	if out, err := exec.Command("gcc", "-g", "-gz=zlib", "-c", "-o", obj, src).CombinedOutput(); err != nil {
		t.Skipf("gcc -gz=zlib: %v\n%s", err, out)
	}
	b, err := os.ReadFile(obj)
	if err != nil {
		t.Fatal(err)
	}
	ef, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	size := int64(len(b))
	f, err := NewHeaders(bytes.NewReader(b), size)
	if err != nil {
		t.Fatal(err)
	}
	secs, err := f.Sections()
	if err != nil {
		t.Fatal(err)
	}
	if len(secs) != len(ef.Sections) {
		t.Fatalf("%d sections, debug/elf has %d", len(secs), len(ef.Sections))
	}
	compressed := 0
	for i, s := range secs {
		want := ef.Sections[i]
		if s.Name != want.Name || s.Type != want.Type || s.Flags != want.Flags || s.Off != want.Offset {
			t.Errorf("section %d: %+v, debug/elf %+v", i, s, want.SectionHeader)
		}
		n, c, err := f.UncompressedSize(s)
		if err != nil {
			t.Errorf("%s: %v", s.Name, err)
		}
		if c {
			compressed++
			if n != want.Size {
				t.Errorf("%s: %d bytes uncompressed, debug/elf says %d", s.Name, n, want.Size)
			}
		}
	}
	if compressed == 0 {
		t.Errorf("no compressed section in %s", obj)
	}
	if i := f.ShStrNdx(); i <= 0 || secs[i].Name != ".shstrtab" {
		t.Errorf("ShStrNdx = %d", i)
	}
}

// FuzzHeaders feeds arbitrary bytes to the header readers abi and
// artefact use (NewHeaders, Sections, Chdr, UncompressedSize, HeadLayout).
func FuzzHeaders(f *testing.F) {
	for _, p := range []string{"/usr/bin/true", "/usr/lib/x86_64-linux-gnu/crt1.o"} {
		if b, err := os.ReadFile(p); err == nil && len(b) < 1<<20 {
			f.Add(b)
		}
	}
	f.Add([]byte("\x7fELF\x02\x01\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if h, err := HeadLayout(b); err == nil {
			h.SectionTable()
		}
		x, err := NewHeaders(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		x.ShStrNdx()
		secs, _ := x.Sections()
		for _, s := range secs {
			x.Chdr(s)
			x.UncompressedSize(s)
		}
	})
}
