package abiread

import (
	"context"
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/elfgen"
	"github.com/abifloor/abifloor/internal/fixture"
	"github.com/abifloor/abifloor/internal/run"
)

const relocSrc = `
#include <stddef.h>
struct node { struct node *next; const char *name; long value[4]; union { int i; double d; } u; };
enum colour { RED, GREEN = 7, BLUE };
typedef struct node node_t;
static int counter;
int walk(node_t *n, enum colour c) { int s = 0; for (; n; n = n->next) s += n->u.i + c + counter; return s; }
double scale(double x) { static double k = 2.5; return x * k; }
`

// TestRelocatedDWARF: the DWARF of relocatable objects, built from elfx's
// relocated sections, is entry for entry what debug/elf's DWARF reads, on
// every architecture a cross compiler is installed for, for DWARF 4 and 5,
// split type units and compressed sections; and the relocations matter
// (the unrelocated .debug_info differs, with RELA relocations).
func TestRelocatedDWARF(t *testing.T) {
	var ccs []string
	for _, c := range []string{"gcc", "aarch64-linux-gnu-gcc", "i686-linux-gnu-gcc", "s390x-linux-gnu-gcc", "clang"} {
		if fixture.Have(c) {
			ccs = append(ccs, c)
		}
	}
	if len(ccs) == 0 {
		t.Skip("no C compiler installed")
	}
	dir := t.TempDir()
	n := 0
	for _, c := range ccs {
		for i, flags := range [][]string{{"-gdwarf-4"}, {"-gdwarf-5"}, {"-gdwarf-4", "-fdebug-types-section"}, {"-gdwarf-5", "-gz=zlib"}, {"-gdwarf-4", "-gz=zstd"}, {"-O2", "-gdwarf-5"}} {
			args := append([]string{"-c"}, flags...)
			if !fixture.Supports(c, append(args[1:], "-c")...) {
				t.Logf("%s does not take %v", c, flags)
				continue
			}
			obj := fixture.Build(t, c, dir, "r.c", relocSrc, filepath.Base(c)+"-"+string(rune('a'+i))+".o", args...)
			compareDWARF(t, obj)
			n++
			if c == "gcc" && i == 0 {
				// zstd-compressed sections and relocations, as objcopy
				// writes them.
				z := obj + ".zstd.o"
				if _, err := run.Output(context.Background(), "objcopy", "--compress-debug-sections=zstd", obj, z); err == nil {
					compareDWARF(t, z)
				} else {
					t.Logf("objcopy cannot compress with zstd: %v", err)
				}
			}
		}
	}
	if n == 0 {
		t.Skip("no compiler made an object file")
	}
}

func compareDWARF(t *testing.T, obj string) {
	t.Helper()
	want, err := elf.Open(obj)
	if err != nil {
		t.Fatal(err)
	}
	defer want.Close()
	wd, err := want.DWARF()
	if err != nil {
		t.Fatalf("%s: debug/elf: %v", obj, err)
	}
	b, err := os.ReadFile(obj)
	if err != nil {
		t.Fatal(err)
	}
	f := mustELF(t, b)
	gd, rel, err := relocatedDWARF(f, DefaultMaxDebugSize)
	if err != nil {
		t.Fatalf("%s: %v", obj, err)
	}
	wr, gr := wd.Reader(), gd.Reader()
	entries := 0
	for {
		we, werr := wr.Next()
		ge, gerr := gr.Next()
		if !reflect.DeepEqual(we, ge) || (werr == nil) != (gerr == nil) {
			t.Fatalf("%s: entry %d: debug/elf %+v (%v), elfx %+v (%v)", obj, entries, we, werr, ge, gerr)
		}
		if we == nil || werr != nil {
			break
		}
		entries++
		if we.Tag == dwarf.TagStructType || we.Tag == dwarf.TagTypedef || we.Tag == dwarf.TagBaseType {
			wt, werr := wd.Type(we.Offset)
			gt, gerr := gd.Type(ge.Offset)
			if werr != nil || gerr != nil || wt.String() != gt.String() || wt.Size() != gt.Size() {
				t.Fatalf("%s: type at %#x: %v (%v) vs %v (%v)", obj, we.Offset, wt, werr, gt, gerr)
			}
		}
	}
	if entries < 20 {
		t.Fatalf("%s: only %d entries", obj, entries)
	}
	// The unrelocated section is not the relocated one, where the
	// addends are not in place already (RELA; i386's REL relocations
	// against section symbols add 0).
	i, rela := -1, false
	secs, _ := f.Sections()
	for j := range secs {
		if elfx.DWARFName(&secs[j]) == ".debug_info" {
			i = j
		}
		rela = rela || secs[j].Type == elf.SHT_RELA
	}
	if !rela {
		return
	}
	raw, err := f.SectionData(&secs[i], nil)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(raw, rel.info) {
		t.Errorf("%s: relocating .debug_info changed nothing", obj)
	}
}

// TestOverlappingDebugTypes: .debug_types sections that all claim the
// whole object file are refused before they are read, so reading an
// object's DWARF costs at most its size.
func TestOverlappingDebugTypes(t *testing.T) {
	secs := []elfgen.Section{{Name: ".debug_abbrev", Type: elf.SHT_PROGBITS, Data: []byte{0}}}
	for range 4000 {
		secs = append(secs, elfgen.Section{Name: ".debug_types", Type: elf.SHT_PROGBITS, Data: make([]byte, 8)})
	}
	b := elfgen.Sections(elf.ET_REL, secs)
	shoff := binary.LittleEndian.Uint64(b[40:])
	for i := 2; i < 2+4000; i++ {
		h := b[shoff+uint64(i)*64:]
		binary.LittleEndian.PutUint64(h[24:], 0)
		binary.LittleEndian.PutUint64(h[32:], uint64(len(b)))
	}
	_, _, err := relocatedDWARF(mustELF(t, b), DefaultMaxDebugSize)
	if err == nil || !strings.Contains(err.Error(), "overlap") {
		t.Fatalf("relocatedDWARF = %v, want an overlap error", err)
	}
}

// TestRnglistx reads a linked file whose units name their ranges by index
// into .debug_rnglists (DW_FORM_rnglistx, as clang writes DWARF 5): the
// reader resolves the index while decoding the unit, so without the
// section no entry of the unit can be read.
func TestRnglistx(t *testing.T) {
	dir := t.TempDir()
	src := "struct s { int a; long b; };\nint f(struct s *p) { return p->a; }\nlong g(struct s *p) { return p->b; }\n"
	so := fixture.Build(t, "clang", dir, "rl.c", src, "librl.so", "-gdwarf-5", "-O2", "-ffunction-sections", "-shared", "-fPIC")
	f, err := elfx.Open(so)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := readSections(f, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if s.rnglists == nil {
		t.Fatal("clang -gdwarf-5 -ffunction-sections wrote no .debug_rnglists; the fixture no longer covers rnglistx")
	}
	d, err := s.data()
	if err != nil {
		t.Fatal(err)
	}
	r := d.Reader()
	n := 0
	for {
		e, err := r.Next()
		if err != nil {
			t.Fatalf("entry %d: %v", n, err)
		}
		if e == nil {
			break
		}
		n++
	}
	if n < 5 {
		t.Fatalf("read %d entries, want the unit, struct, members and functions", n)
	}
}
