package elfx

import (
	"debug/elf"
	"testing"

	"github.com/abifloor/abifloor/internal/input"
)

// TestDynTags: every tag, in each range of the table and outside them,
// is found with its first value; a later entry of the same tag does not
// replace it; an absent tag is absent.
func TestDynTags(t *testing.T) {
	tags := []elf.DynTag{
		elf.DT_NULL, elf.DT_NEEDED, elf.DT_STRTAB, elf.DT_FLAGS, dtRelr, // generic
		elf.DT_GNU_HASH, 0x6ffffef0, 0x6ffffeff, // address range
		elf.DT_VERSYM, elf.DT_FLAGS_1, elf.DT_VERNEED, elf.DT_VERNEEDNUM, // version range
		dtRelr + 1, 0x6ffffeef, 0x6fffff00, 0x70000000, 0x7fffffff, -1, // outside
	}
	var d dynTags
	for i, tag := range tags {
		d.add(tag, uint64(i+1))
	}
	for _, tag := range tags {
		d.add(tag, 999) // a repeated tag keeps its first value
	}
	for i, tag := range tags {
		if v, ok := d.get(tag); !ok || v != uint64(i+1) {
			t.Errorf("tag %#x = %d, %v; want %d, true", uint64(tag), v, ok, i+1)
		}
	}
	for _, tag := range []elf.DynTag{elf.DT_RPATH, 0x6ffffef1, elf.DT_VERDEF, 0x6fffff01, 0x70000001} {
		if v, ok := d.get(tag); ok {
			t.Errorf("absent tag %#x = %d, true", uint64(tag), v)
		}
	}
	if len(d.rest) != 6 {
		t.Errorf("%d tags in the list, want the 6 outside the arrays", len(d.rest))
	}
}

// Past maxRestTags distinct tags outside the slots, later ones are not
// kept (a crafted section must not cost its length squared); the first
// stay, and tags in the slots are kept however many came before.
func TestDynTagsRestBounded(t *testing.T) {
	var d dynTags
	for i := range 100000 {
		d.add(elf.DynTag(0x70000000+i), uint64(i))
	}
	d.add(elf.DT_NEEDED, 7)
	if len(d.rest) != maxRestTags {
		t.Errorf("%d tags outside the slots kept, want %d", len(d.rest), maxRestTags)
	}
	if v, ok := d.get(0x70000000); !ok || v != 0 {
		t.Errorf("first tag = %d, %v", v, ok)
	}
	if _, ok := d.get(0x70000000 + maxRestTags); ok {
		t.Error("a tag past the bound was kept")
	}
	if v, ok := d.get(elf.DT_NEEDED); !ok || v != 7 {
		t.Errorf("DT_NEEDED = %d, %v", v, ok)
	}
}

// TestDynamicTagsAgainstStd: on real files, Tag gives debug/elf's first
// value of every tag the dynamic section holds.
func TestDynamicTagsAgainstStd(t *testing.T) {
	for _, path := range systemFiles(t) {
		std, err := elf.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		ds := std.Section(".dynamic")
		if ds == nil || f.Dynamic == nil {
			std.Close()
			f.Close()
			continue
		}
		raw, _ := ds.Data()
		seen := map[elf.DynTag]bool{}
		for i := 0; i+16 <= len(raw) && std.Class == elf.ELFCLASS64; i += 16 {
			tag := elf.DynTag(std.ByteOrder.Uint64(raw[i:]))
			if tag == elf.DT_NULL {
				break
			}
			if seen[tag] {
				continue
			}
			seen[tag] = true
			want := std.ByteOrder.Uint64(raw[i+8:])
			if got, ok := f.Dynamic.Tag(tag); !ok || got != want {
				t.Errorf("%s: tag %v = %#x, %v; want %#x", path, tag, got, ok, want)
			}
		}
		std.Close()
		f.Close()
	}
}

// TestScratchReuse: files read one after another through one Scratch
// give what each gives read alone, and the common file costs at most
// three reads (head, dynamic section, tables).
func TestScratchReuse(t *testing.T) {
	files := systemFiles(t)
	s := NewScratch()
	for round := 0; round < 2; round++ {
		for _, path := range files {
			alone, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			wantNeeds, err := alone.VersionNeeds()
			if err != nil {
				t.Fatal(err)
			}
			want := needsText(alone, wantNeeds)
			alone.Close()

			in, err := input.Open(path, nil, make([]byte, 8<<10))
			if err != nil {
				t.Fatal(err)
			}
			f, err := NewFileScratch(in.FD, in.Size, in.Head, s)
			if err != nil {
				in.Close()
				t.Fatal(err)
			}
			needs, err := f.VersionNeeds()
			if err != nil {
				t.Fatal(err)
			}
			if got := needsText(f, needs); got != want {
				t.Errorf("%s through a reused Scratch:\n got %s\nwant %s", path, got, want)
			}
			if f.Size() < 1<<20 && f.Reads() > 2 {
				// Plus the head read by input.Open.
				t.Errorf("%s: %d reads after the head, want at most 2", path, f.Reads())
			}
			in.Close()
		}
	}
}

func needsText(f *File, needs []VerNeed) string {
	s := f.Interp + "|" + f.Dynamic.Soname + "|" + f.Dynamic.Runpath
	for _, n := range f.Dynamic.Needed {
		s += " " + n
	}
	for _, n := range needs {
		s += " " + n.File + ":"
		for _, v := range n.Versions {
			s += " " + v.Name
		}
	}
	return s
}
