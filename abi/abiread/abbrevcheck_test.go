package abiread

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/abifloor/abifloor/internal/fixture"
)

// hostileAbbrev is a .debug_abbrev and .debug_info pair: one abbreviation
// with attrs flag_present attributes, and a DWARF 4 unit of dies one-byte
// entries that use it (each walks every attribute and reads no byte).
func hostileAbbrev(attrs, dies int) (abbrev, info []byte) {
	abbrev = []byte{1, 0x11, 1, 0, 0}   // code 1: compile_unit with children, no attributes
	abbrev = append(abbrev, 2, 0x34, 0) // code 2: variable, no children
	for range attrs {
		abbrev = append(abbrev, 0x3f, 0x19) // DW_AT_external, DW_FORM_flag_present
	}
	abbrev = append(abbrev, 0, 0, 0)
	body := []byte{4, 0, 0, 0, 0, 0, 8, 1} // version 4, abbrev offset 0, address size 8; the unit entry
	for range dies {
		body = append(body, 2)
	}
	body = append(body, 0)
	info = binary.LittleEndian.AppendUint32(nil, uint32(len(body)))
	return abbrev, append(info, body...)
}

func TestAbbrevTooWide(t *testing.T) {
	if err := checkAbbrevs(func() []byte { a, _ := hostileAbbrev(maxAbbrevAttrs, 1); return a }()); err != nil {
		t.Errorf("%d attributes refused: %v", maxAbbrevAttrs, err)
	}
	a, _ := hostileAbbrev(maxAbbrevAttrs+1, 1)
	if err := checkAbbrevs(a); !errors.Is(err, ErrAbbrevTooWide) {
		t.Errorf("%d attributes: err %v, want ErrAbbrevTooWide", maxAbbrevAttrs+1, err)
	}
}

// TestAbbrevFlagBomb rebuilds issue 19's attack: a 133 KB library whose
// abbreviation has 30,000 flag_present attributes, used by 70,000
// one-byte entries, took 28 s. Now it is refused at once, naming the
// bound, on the linked path (fast reader) and for an object file
// (debug/dwarf).
func TestAbbrevFlagBomb(t *testing.T) {
	for _, tool := range []string{"gcc", "objcopy"} {
		if !fixture.Have(tool) {
			t.Skip(tool, " not installed")
		}
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "x.c")
	if err := os.WriteFile(src, []byte("int x;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ab, in := hostileAbbrev(30000, 70000)
	abPath, inPath := filepath.Join(dir, "abbrev"), filepath.Join(dir, "info")
	if err := os.WriteFile(abPath, ab, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(inPath, in, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"so", "o"} {
		out := filepath.Join(dir, "x."+kind)
		args := []string{"-g", "-fPIC", "-shared", "-o", out, src}
		if kind == "o" {
			args = []string{"-g", "-c", "-o", out, src}
		}
		if b, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, b)
		}
		// The object's relocations against .debug_info are dropped with
		// it; an unrelocated section is what the attack has.
		cp := []string{"--remove-section=.rela.debug_info", "--update-section", ".debug_abbrev=" + abPath, "--update-section", ".debug_info=" + inPath, out}
		if b, err := exec.Command("objcopy", cp...).CombinedOutput(); err != nil {
			t.Fatalf("objcopy: %v\n%s", err, b)
		}
		start := time.Now()
		_, err := Load(context.Background(), out, Options{NoDefaultDebugDir: true})
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: %v to read", kind, d)
		}
		if !errors.Is(err, ErrAbbrevTooWide) {
			t.Errorf("%s: err %v, want ErrAbbrevTooWide", kind, err)
		}
	}
}
