package elfx

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/abifloor/abifloor/internal/run"
)

// gnuLibrary builds a shared library of n functions with a DT_GNU_HASH
// table only.
func gnuLibrary(t testing.TB, n int) []byte {
	t.Helper()
	if _, err := run.LookPath("gcc"); err != nil {
		t.Skip("gcc is not installed: cannot compile fixtures")
	}
	var src strings.Builder
	for i := range n {
		fmt.Fprintf(&src, "int f%d(void){return %d;}\n", i, i)
	}
	p := fixture.Build(t, "gcc", t.TempDir(), "l.c", src.String(), "libl.so", "-shared", "-fPIC", "-Wl,--hash-style=gnu")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGNUHashFindsEvery: every symbol of the table is found by name
// through the hash table, and names it lacks are not.
func TestGNUHashFindsEvery(t *testing.T) {
	b := gnuLibrary(t, 300)
	f, err := NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	h, err := f.GNUHash()
	if err != nil || h == nil {
		t.Fatalf("GNUHash: %v, %v", h, err)
	}
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, s := range syms {
		if !s.Exported() {
			continue
		}
		hit := false
		h.Lookup(s.Name, GNUHashOf(s.Name), func(t Symbol) bool { hit = t == s; return hit })
		if !hit {
			t.Errorf("%s: not found through the hash table", s.Name)
		}
		found++
		h.Lookup(s.Name+"x", GNUHashOf(s.Name+"x"), func(Symbol) bool {
			t.Errorf("%sx found", s.Name)
			return true
		})
	}
	if found < 300 {
		t.Errorf("%d exported symbols, want 300", found)
	}
}

// TestGNUHashLongChain (a hostile table): a library whose chains run
// longer than maxGNURun (every end bit cleared, so one chain holds every
// symbol) would make each lookup a walk of the whole table; it has no
// GNUHash, and callers look it up another way.
func TestGNUHashLongChain(t *testing.T) {
	b := gnuLibrary(t, maxGNURun+200)
	ef, err := elf.NewFile(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	sec := ef.Section(".gnu.hash")
	if sec == nil {
		t.Skip("the linker wrote no .gnu.hash")
	}
	off := int(sec.Offset)
	le := binary.LittleEndian
	nbuckets, nbloom := int(le.Uint32(b[off:])), int(le.Uint32(b[off+8:]))
	chain := off + 16 + nbloom*8 + nbuckets*4
	for p := chain; p+4 <= off+int(sec.Size); p += 4 {
		le.PutUint32(b[p:], le.Uint32(b[p:])&^1)
	}
	le.PutUint32(b[off+int(sec.Size)-4:], le.Uint32(b[off+int(sec.Size)-4:])|1)
	f, err := NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if h, err := f.GNUHash(); h != nil || err != nil {
		t.Fatalf("a table of one chain of %d symbols: GNUHash %v, %v; want none", maxGNURun+200, h, err)
	}
}

// FuzzGNUHash feeds arbitrary bytes to GNUHash and its lookups: whatever
// the table claims, it reads inside the file, a lookup ends, and what it
// finds has the name asked for.
func FuzzGNUHash(f *testing.F) {
	for _, p := range []string{"/usr/lib/x86_64-linux-gnu/libdl.so.2", "/usr/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib/aarch64-linux-gnu/libdl.so.2"} {
		if b, err := os.ReadFile(p); err == nil && len(b) < 1<<20 {
			f.Add(b, "dlopen")
		}
	}
	f.Fuzz(func(t *testing.T, b []byte, name string) {
		x, err := NewFile(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		h, err := x.GNUHash()
		if err != nil || h == nil {
			return
		}
		n := 0
		h.Each(func(s Symbol) {
			n++
			found := false
			h.Lookup(s.Name, GNUHashOf(s.Name), func(t Symbol) bool { found = t == s; return found })
			if !found {
				t.Fatalf("%q: listed, not found", s.Name)
			}
		})
		if n > int(h.n) {
			t.Fatalf("%d symbols listed of %d", n, h.n)
		}
		h.Lookup(name, GNUHashOf(name), func(s Symbol) bool {
			if s.Name != name {
				t.Fatalf("looked up %q, found %q", name, s.Name)
			}
			return false
		})
	})
}
