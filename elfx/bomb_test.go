package elfx

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/internal/elfgen"
)

// TestNameAmplification (issue 10, item 4): 10,000 symbols whose names all
// point at one 128 KiB string used to cost 1.3 GB in copies. Names are now
// substrings of the table, and names that add up to far more than the
// table are a *FormatError, so the cost follows the file's size.
func TestNameAmplification(t *testing.T) {
	img := elfgen.NameBomb(10000, 128<<10)
	var err error
	n := elfgen.Allocated(func() {
		var f *File
		if f, err = NewFile(bytes.NewReader(img), int64(len(img))); err == nil {
			_, err = f.Symbols()
		}
	})
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Errorf("Symbols of a %d-byte name bomb: %v, want a *FormatError", len(img), err)
	}
	if n > 16<<20 {
		t.Errorf("reading a %d-byte file allocated %d MB", len(img), n>>20)
	}
	t.Logf("%d-byte file: %v (%d KB allocated)", len(img), err, n>>10)

	// Shared names within the bound read fine, without a copy each.
	img = elfgen.NameBomb(1000, 1000)
	var syms []Symbol
	n = elfgen.Allocated(func() {
		f, err := NewFile(bytes.NewReader(img), int64(len(img)))
		if err != nil {
			t.Fatal(err)
		}
		if syms, err = f.Symbols(); err != nil {
			t.Fatal(err)
		}
	})
	if len(syms) != 1001 || len(syms[1000].Name) != 1000 || !syms[1000].Exported() {
		t.Fatalf("%d symbols, last %q", len(syms), syms[len(syms)-1].Name)
	}
	if n > 1<<20 {
		t.Errorf("1000 shared names of 1000 bytes allocated %d KB", n>>10)
	}
}

// TestStringAmplification is TestNameAmplification for the other readers
// of a string table: 8,000 DT_NEEDED entries, or 8,000 section headers,
// all naming one 128 KiB string, used to cost 1 GB in copies each. A
// library name past maxCString is an error at once; section names, read
// best effort, are left empty past it, and at 32 KiB add up past the
// bound: a *FormatError. Each costs what the file's size allows.
func TestStringAmplification(t *testing.T) {
	const k, long = 8000, 128 << 10
	needed := elfgen.NeededBomb(k, long)
	sectionBomb := func(long int) []byte {
		secs := []elfgen.Section{{Name: strings.Repeat("A", long), Type: elf.SHT_PROGBITS}}
		for range k {
			secs = append(secs, elfgen.Section{Type: elf.SHT_PROGBITS})
		}
		b := elfgen.Sections(elf.ET_REL, secs)
		shoff := binary.LittleEndian.Uint64(b[40:])
		for i := range k + 2 { // every header after the null one names the long string
			binary.LittleEndian.PutUint32(b[shoff+uint64(i+1)*64:], 1)
		}
		return b
	}
	sections := sectionBomb(32 << 10)

	// Past maxCString, every name is left empty, at the cost of a scan.
	f, err := NewFile(bytes.NewReader(sectionBomb(long)), int64(len(sectionBomb(long))))
	if err != nil {
		t.Fatal(err)
	}
	n := elfgen.Allocated(func() {
		var secs []Section
		if secs, err = f.Sections(); err == nil && secs[1].Name != "" {
			t.Errorf("a %d-byte section name was read", len(secs[1].Name))
		}
	})
	if err != nil || n > 16<<20 {
		t.Errorf("section names of 128 KiB: %v, %d MB allocated", err, n>>20)
	}

	for _, c := range []struct {
		name string
		img  []byte
		read func(*File) error
	}{
		{"DT_NEEDED", needed, func(*File) error { return nil }},
		{"section", sections, func(f *File) error { _, err := f.Sections(); return err }},
	} {
		var err error
		n := elfgen.Allocated(func() {
			var f *File
			if f, err = NewFile(bytes.NewReader(c.img), int64(len(c.img))); err == nil {
				err = c.read(f)
			}
		})
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%s bomb of %d bytes: %v, want a *FormatError", c.name, len(c.img), err)
		}
		if n > 16<<20 {
			t.Errorf("%s bomb: reading a %d-byte file allocated %d MB", c.name, len(c.img), n>>20)
		}
		t.Logf("%s bomb, %d bytes: %v (%d KB allocated)", c.name, len(c.img), err, n>>10)
	}
}
