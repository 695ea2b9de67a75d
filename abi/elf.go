package abi

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"encoding/hex"
	"path/filepath"

	"github.com/abifloor/abifloor/internal/input"
)

// loadDWARF reads only the sections type extraction needs. (*elf.File).DWARF
// also decompresses line tables and location lists, which in a libc debug
// file are larger than the types. For a relocatable object, whose
// .debug_info needs relocating, it returns a dwarf.Data; otherwise the
// section bytes, from which a dwarf.Data is built only if needed.
// Compressed sections count against maxSize (their uncompressed size) and
// are refused past it before anything is decompressed.
func loadDWARF(f *elf.File, maxSize int64) (*dwarf.Data, *sections, error) {
	if f.Type == elf.ET_REL {
		if err := checkDebugSizes(f, maxSize); err != nil {
			return nil, nil, err
		}
		d, err := f.DWARF()
		return d, nil, err
	}
	s, err := readSections(f, maxSize)
	return nil, s, err
}

// readSections reads the debug sections of f as they are stored, with no
// relocation: those of a linked file, or of a dwz alternate file.
func readSections(f *elf.File, maxSize int64) (*sections, error) {
	budget := newDebugBudget(maxSize)
	s := &sections{order: f.ByteOrder}
	for _, x := range []struct {
		name string
		dst  *[]byte
	}{
		{".debug_info", &s.info}, {".debug_abbrev", &s.abbrev}, {".debug_str", &s.str},
		{".debug_line_str", &s.lineStr}, {".debug_str_offsets", &s.strOffsets}, {".debug_addr", &s.addr},
	} {
		sec := f.Section(x.name)
		if sec == nil || sec.Type == elf.SHT_NOBITS {
			continue
		}
		b, err := sectionData(sec, budget)
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
	// line_strp) need them; the rest are not read.
	for _, x := range []struct {
		name string
		b    []byte
	}{{".debug_line_str", s.lineStr}, {".debug_str_offsets", s.strOffsets}, {".debug_addr", s.addr}} {
		if x.b != nil {
			if err := d.AddSection(x.name, x.b); err != nil {
				return nil, err
			}
		}
	}
	return d, nil
}

func hasDWARF(f *elf.File) bool {
	s := f.Section(".debug_info")
	return s != nil && s.Type != elf.SHT_NOBITS && s.Size > 0
}

// debugFile is a separate debug file kept open while its DWARF is read.
type debugFile struct {
	*elf.File
	in input.File
}

func (d *debugFile) Close() { d.in.Close() }

// openDebug opens the candidate debug file path: nil unless it is a
// regular file (a FIFO named by a planted link must not block the open or
// the read) holding an ELF file with DWARF.
func openDebug(path string, maxDebug int64) *debugFile {
	in, err := input.Open(path, []byte{}, nil) // no head: newELF reads the headers
	if err != nil {
		return nil
	}
	ef, err := newELF(in.FD, maxDebug)
	if err != nil || !hasDWARF(ef) {
		in.Close()
		return nil
	}
	return &debugFile{File: ef, in: in}
}

// buildIDPaths is where the debug file of build ID id lies under each of
// dirs: DIR/.build-id/xx/rest.debug.
func buildIDPaths(id []byte, dirs []string) []string {
	if len(id) < 2 {
		return nil
	}
	h := hex.EncodeToString(id)
	var paths []string
	for _, d := range dirs {
		paths = append(paths, filepath.Join(d, ".build-id", h[:2], h[2:]+".debug"))
	}
	return paths
}

// findDebug looks for the separate debug file of f as gdb does: by build
// ID under each debug directory, then by .gnu_debuglink next to the file,
// in its .debug directory and under each debug directory.
func findDebug(f *elf.File, path string, opt Options) (string, *debugFile) {
	dirs := opt.debugDirs()
	id := buildID(f)
	cands := buildIDPaths(id, dirs)
	if link := debugLink(f); link != "" {
		// A file not on disk (path "") has no directory to look in.
		var abs string
		if path != "" {
			dir := filepath.Dir(path)
			abs, _ = filepath.Abs(dir)
			cands = append(cands, filepath.Join(dir, link), filepath.Join(dir, ".debug", link))
		}
		for _, d := range dirs {
			if abs != "" {
				cands = append(cands, filepath.Join(d, abs, link))
			}
			cands = append(cands, filepath.Join(d, link))
		}
	}
	for _, c := range cands {
		if c == path {
			continue
		}
		dbg := openDebug(c, opt.maxDebugSize())
		if dbg == nil {
			continue
		}
		if got := buildID(dbg.File); len(id) > 0 && got != nil && !bytes.Equal(got, id) {
			dbg.Close()
			continue
		}
		return c, dbg
	}
	return "", nil
}

// buildID returns the GNU build ID note's descriptor, or nil.
func buildID(f *elf.File) []byte {
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOTE || s.Size > 1<<16 {
			continue
		}
		b, err := s.Data()
		if err != nil {
			continue
		}
		for len(b) >= 12 {
			nsz := f.ByteOrder.Uint32(b[0:])
			dsz := f.ByteOrder.Uint32(b[4:])
			typ := f.ByteOrder.Uint32(b[8:])
			b = b[12:]
			na, da := align4(nsz), align4(dsz)
			if uint64(na)+uint64(da) > uint64(len(b)) {
				break
			}
			if typ == 3 && nsz == 4 && string(b[:4]) == "GNU\x00" {
				return b[na : na+dsz]
			}
			b = b[na+da:]
		}
	}
	return nil
}

func align4(n uint32) uint32 { return (n + 3) &^ 3 }

func debugLink(f *elf.File) string {
	s := f.Section(".gnu_debuglink")
	if s == nil || s.Size > 4096 {
		return ""
	}
	b, err := s.Data()
	if err != nil {
		return ""
	}
	if i := bytes.IndexByte(b, 0); i > 0 {
		return filepath.Base(string(b[:i]))
	}
	return ""
}
