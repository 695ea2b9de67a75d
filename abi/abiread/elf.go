package abiread

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"slices"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/input"
)

// loadDWARF reads only the sections type extraction needs, through elfx.
// (*elf.File).DWARF also decompresses line tables and location lists,
// which in a libc debug file are larger than the types. For a relocatable
// object, whose .debug_info needs relocating, it returns a dwarf.Data and
// the .debug_abbrev and .debug_info it was built from; otherwise the
// section bytes, from which a dwarf.Data is built only if needed.
// Compressed sections count against maxSize (their uncompressed size) and
// are refused past it before anything is decompressed.
func loadDWARF(f *elfx.File, maxSize int64) (*dwarf.Data, *sections, *relocated, error) {
	if f.Type == elf.ET_REL {
		d, rel, err := relocatedDWARF(f, maxSize)
		return d, nil, rel, err
	}
	s, err := readSections(f, maxSize)
	return nil, s, nil, err
}

// relocated is what relocatedDWARF read of the sections it checks itself.
type relocated struct {
	abbrev, info []byte
	strSize      int // of .debug_str and .debug_line_str
}

// The sections debug/dwarf.New takes, by name; the rest of those it reads
// are added to the dwarf.Data after (AddTypes, AddSection).
var newSections = map[string]bool{".debug_abbrev": true, ".debug_info": true, ".debug_str": true, ".debug_line": true, ".debug_ranges": true}

// addedSections are the DWARF 5 sections (*dwarf.Data).AddSection keeps.
var addedSections = map[string]bool{".debug_addr": true, ".debug_line_str": true, ".debug_str_offsets": true, ".debug_rnglists": true}

// relocatedDWARF builds the dwarf.Data of a relocatable object from its
// debug sections (.debug_* or GNU .zdebug_*), with their relocations
// applied (elfx.File.DebugData), as (*elf.File).DWARF builds it: every
// .debug_types section is a types unit of its own.
func relocatedDWARF(f *elfx.File, maxSize int64) (*dwarf.Data, *relocated, error) {
	secs, err := f.Sections()
	if err != nil {
		return nil, nil, err
	}
	// Of a section named twice the last counts, as for debug/elf, and is
	// the one read; .debug_types sections are all read. Sections may not
	// overlap: what is read as stored fits in the file.
	last := map[string]int{}
	var types []int
	var stored uint64
	for i := range secs {
		name := elfx.DWARFName(&secs[i])
		switch {
		case name == ".debug_types":
			types = append(types, i)
		case newSections[name] || addedSections[name]:
			if j, ok := last[name]; ok {
				stored -= min(secs[j].Size, stored)
			}
			last[name] = i
		default:
			continue
		}
		if secs[i].Type != elf.SHT_NOBITS {
			stored += min(secs[i].Size, uint64(f.Size())+1)
		}
		if stored > uint64(f.Size()) {
			return nil, nil, fmt.Errorf("debug sections hold more bytes than the file: they overlap")
		}
	}
	budget := elfx.NewBudget(orDefault(maxSize))
	dat := map[string][]byte{}
	order := make([]int, 0, len(last))
	for _, i := range last {
		order = append(order, i)
	}
	slices.Sort(order) // errors and the budget in file order
	for _, i := range order {
		b, err := f.DebugData(i, budget)
		if err != nil {
			return nil, nil, err
		}
		dat[elfx.DWARFName(&secs[i])] = b
	}
	d, err := dwarf.New(dat[".debug_abbrev"], nil, nil, dat[".debug_info"], dat[".debug_line"], nil, dat[".debug_ranges"], dat[".debug_str"])
	if err != nil {
		return nil, nil, err
	}
	for _, i := range types {
		b, err := f.DebugData(i, budget)
		if err != nil {
			return nil, nil, err
		}
		if err := d.AddTypes(fmt.Sprintf("types-%d", i), b); err != nil {
			return nil, nil, err
		}
	}
	for name := range addedSections {
		if b, ok := dat[name]; ok {
			if err := d.AddSection(name, b); err != nil {
				return nil, nil, err
			}
		}
	}
	return d, &relocated{abbrev: dat[".debug_abbrev"], info: dat[".debug_info"], strSize: len(dat[".debug_str"]) + len(dat[".debug_line_str"])}, nil
}

// readSections reads the debug sections of f as they are stored, with no
// relocation: those of a linked file, or of a dwz alternate file.
func readSections(f *elfx.File, maxSize int64) (*sections, error) {
	budget := elfx.NewBudget(orDefault(maxSize))
	s := &sections{order: f.ByteOrder()}
	for _, x := range []struct {
		name string
		dst  *[]byte
	}{
		{".debug_info", &s.info}, {".debug_abbrev", &s.abbrev}, {".debug_str", &s.str},
		{".debug_line_str", &s.lineStr}, {".debug_str_offsets", &s.strOffsets}, {".debug_addr", &s.addr},
		{".debug_rnglists", &s.rnglists},
	} {
		sec := f.Section(x.name)
		if sec == nil || sec.Type == elf.SHT_NOBITS {
			continue
		}
		b, err := f.SectionData(sec, budget)
		if err != nil {
			return nil, err
		}
		*x.dst = b
	}
	return s, nil
}

// data builds the debug/dwarf view of the sections.
func (s *sections) data() (*dwarf.Data, error) {
	d, err := dwarf.New(s.abbrev, nil, nil, s.info, nil, nil, nil, s.str)
	if err != nil {
		return nil, err
	}
	// Forms of DWARF 5 that point into these sections (strx, addrx,
	// line_strp, rnglistx) need them; the rest are not read. The reader
	// resolves rnglistx while decoding an entry, so a unit that uses it
	// cannot be read at all without .debug_rnglists (clang's DWARF 5).
	for _, x := range []struct {
		name string
		b    []byte
	}{{".debug_line_str", s.lineStr}, {".debug_str_offsets", s.strOffsets}, {".debug_addr", s.addr}, {".debug_rnglists", s.rnglists}} {
		if x.b != nil {
			if err := d.AddSection(x.name, x.b); err != nil {
				return nil, err
			}
		}
	}
	return d, nil
}

// debugFile is a separate debug file kept open while its DWARF is read.
type debugFile struct {
	*elfx.File
	in input.File
}

func (d *debugFile) Close() error { return d.in.Close() }

// openDebug opens the candidate debug file path: nil unless it is a
// regular file (a FIFO named by a planted link must not block the open or
// the read) holding an ELF file with DWARF.
func openDebug(path string, maxDebug int64) *debugFile {
	in, err := input.Open(path, []byte{}, nil) // no head: openELF reads the headers
	if err != nil {
		return nil
	}
	ef, err := openELF(in.FD, in.Size, maxDebug)
	if err != nil || !ef.HasDWARF() {
		in.Close()
		return nil
	}
	return &debugFile{File: ef, in: in}
}

// findDebug looks for the separate debug file of f as gdb does (see
// elfx.FindDebug), opening each candidate within opt's bounds.
func findDebug(f *elfx.File, path string, opt Options) (string, *debugFile) {
	c, dbg, _ := elfx.FindDebug(f, path, opt.debugDirs(), func(c string) (*debugFile, bool) {
		dbg := openDebug(c, opt.maxDebugSize())
		return dbg, dbg != nil
	})
	return c, dbg
}
