package abiread

import (
	"bytes"
	"context"
	"debug/elf"
	"fmt"
	"path/filepath"

	"github.com/abifloor/abifloor/elfx"
)

// dwz (the DWARF compressor Debian's and Fedora's debug packages run) moves
// what several files share into one alternate file, named by each file's
// .gnu_debugaltlink (a path and the alternate's build ID). The files then
// point into it with two GNU forms.
const (
	formGNURefAlt  = 0x1f20 // a .debug_info offset in the alternate file
	formGNUStrpAlt = 0x1f21 // a .debug_str offset in the alternate file
)

// altBase is where the alternate file's DIE offsets start in the one offset
// space the builder uses (dwarf.Offset is 32 bits): past any .debug_info
// read here, and each file's must be smaller (attachAlt checks).
const altBase = 1 << 31

// altDWARF is a dwz alternate file's DWARF and its units.
type altDWARF struct {
	secs  *sections
	units []scannedUnit
	ix    *index // its own offsets, without altBase
}

// merge adds what the alternate file's index knows to ix: the qualified
// names of C++ types dwz moved there, and type definitions that complete
// declarations.
func (alt *altDWARF) merge(ix *index) {
	for off, q := range alt.ix.qual {
		ix.qual[off+altBase] = q
	}
	for key, off := range alt.ix.defs {
		if _, ok := ix.defs[key]; !ok {
			ix.defs[key] = off + altBase
		}
	}
}

// altString reads a DW_FORM_GNU_strp_alt string; empty without the
// alternate file.
func (s *sections) altString(off uint64) []byte {
	if s.alt == nil {
		return nil
	}
	return cstring(s.alt.secs.str, off)
}

// altLink reads .gnu_debugaltlink: the alternate file's path and build ID.
func altLink(f *elfx.File) (path string, id []byte, ok bool) {
	b := f.SmallSection(f.Section(".gnu_debugaltlink"), 4096)
	i := bytes.IndexByte(b, 0)
	if i <= 0 {
		return "", nil, false
	}
	return string(b[:i]), b[i+1:], true
}

// attachAlt finds the dwz alternate file of f (read from path) and loads
// its DWARF into secs.alt. It looks where gdb does: the path as written
// (relative to the directory of path when not absolute), then by build ID
// under each debug directory. A file is taken only when its build ID is
// the one the link names. Without .gnu_debugaltlink it does nothing; with
// one and no alternate found it returns an error naming what was tried,
// which the caller reports as a note: the types that live there are
// unknown.
func attachAlt(ctx context.Context, f *elfx.File, path string, secs *sections, dirs []string, maxDebug int64) error {
	link, id, ok := altLink(f)
	if !ok || secs == nil {
		return nil
	}
	if uint64(len(secs.info)) >= altBase {
		return fmt.Errorf("dwz alternate file %s: .debug_info of %d bytes is too large to combine with it", link, len(secs.info))
	}
	var cands []string
	if filepath.IsAbs(link) {
		cands = append(cands, link)
	} else {
		cands = append(cands, filepath.Join(filepath.Dir(path), link))
	}
	for _, c := range append(cands, elfx.DebugCandidates("", id, "", dirs)...) {
		if c == path {
			continue
		}
		dbg := openDebug(c, maxDebug)
		if dbg == nil {
			continue
		}
		ef := dbg.File
		// dwz writes the alternate file as ET_REL without relocations:
		// its sections are read as they are, like a linked file's.
		if len(id) > 0 && !bytes.Equal(ef.BuildID(), id) || ef.Type == elf.ET_REL && hasRelocations(ef) {
			dbg.Close()
			continue
		}
		as, err := readSections(ef, maxDebug)
		dbg.Close()
		if err != nil || uint64(len(as.info)) >= altBase {
			continue
		}
		as.base = altBase
		aix, units, err := fastScan(ctx, as, false)
		if err != nil {
			continue
		}
		secs.alt = &altDWARF{secs: as, units: units, ix: aix}
		return nil
	}
	return fmt.Errorf("dwz alternate file %s (build ID %x) not found", link, id)
}

// hasRelocations reports whether f has any relocation section.
func hasRelocations(f *elfx.File) bool {
	secs, _ := f.Sections()
	for _, s := range secs {
		if s.Type == elf.SHT_REL || s.Type == elf.SHT_RELA {
			return true
		}
	}
	return false
}
