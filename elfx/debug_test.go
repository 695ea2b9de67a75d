package elfx

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"github.com/abifloor/abifloor/internal/elfgen"
)

// overlapping is an object file whose n sections named name (after a
// .debug_info of 4 KiB, section 1, and a .symtab) all claim the whole file, and target
// section 1.
func overlapping(name string, typ elf.SectionType, n int) []byte {
	secs := []elfgen.Section{{Name: ".debug_info", Type: elf.SHT_PROGBITS, Data: make([]byte, 4096)}, {Name: ".symtab", Type: elf.SHT_SYMTAB, Data: make([]byte, 48)}}
	for range n {
		secs = append(secs, elfgen.Section{Name: name, Type: typ, Data: make([]byte, 24)})
	}
	b := elfgen.Sections(elf.ET_REL, secs)
	le := binary.LittleEndian
	shoff := le.Uint64(b[40:])
	size := uint64(len(b)) / 24 * 24
	for i := 3; i < 3+n; i++ {
		h := b[shoff+uint64(i)*64:]
		le.PutUint32(h[44:], 1) // sh_info: .debug_info
		le.PutUint64(h[24:], 0)
		le.PutUint64(h[32:], size)
	}
	return b
}

// TestOverlappingRelocations: relocation sections that all claim the
// whole file are refused before any is applied: the work of relocating
// stays bounded by the file's size.
func TestOverlappingRelocations(t *testing.T) {
	b := overlapping(".rela.debug_info", elf.SHT_RELA, 4000)
	f, err := NewHeaders(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = f.DebugData(1, NewBudget(1<<20))
	if err == nil || !strings.Contains(err.Error(), "overlap") {
		t.Fatalf("DebugData = %v, want an overlap error", err)
	}
	t.Logf("%d-byte file refused in %v", len(b), time.Since(start))
}

// TestDebugDataPlain: a linked file's section comes back as stored, an
// SHT_NOBITS one empty, one past the end of the file is an error.
func TestDebugDataPlain(t *testing.T) {
	b := elfgen.Sections(elf.ET_DYN, []elfgen.Section{
		{Name: ".debug_str", Type: elf.SHT_PROGBITS, Data: []byte("abc\x00")},
		{Name: ".bss", Type: elf.SHT_NOBITS, Data: nil},
	})
	f, err := NewHeaders(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if d, err := f.DebugData(1, nil); err != nil || string(d) != "abc\x00" {
		t.Errorf(".debug_str = %q, %v", d, err)
	}
	if d, err := f.DebugData(2, nil); err != nil || d != nil {
		t.Errorf(".bss = %q, %v", d, err)
	}
	if s := f.Section(".debug_str"); s == nil || DWARFName(s) != ".debug_str" || DWARFName(&Section{Name: ".zdebug_info"}) != ".debug_info" {
		t.Errorf("Section/DWARFName: %+v", s)
	}
	s := *f.Section(".debug_str")
	s.Size = uint64(len(b))
	if _, err := f.SectionData(&s, nil); err == nil || !strings.Contains(err.Error(), "past end of file") {
		t.Errorf("a section past the end: %v", err)
	}
}
