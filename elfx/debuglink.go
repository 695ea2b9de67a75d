package elfx

import (
	"bytes"
	"debug/elf"
	"encoding/hex"
	"path/filepath"
)

// SmallSection is the contents of s (decompressed) when they hold at most
// max bytes, else nil: for notes and links, never for tables.
func (f *File) SmallSection(s *Section, max uint64) []byte {
	if s == nil || s.Type == elf.SHT_NOBITS || s.Size > max {
		return nil
	}
	b, err := f.SectionData(s, NewBudget(int64(max)))
	if err != nil {
		return nil
	}
	return b
}

// BuildID is the descriptor of f's GNU build ID note, or nil.
func (f *File) BuildID() []byte {
	secs, _ := f.Sections()
	bo := f.ByteOrder()
	for i := range secs {
		if secs[i].Type != elf.SHT_NOTE {
			continue
		}
		b := f.SmallSection(&secs[i], 1<<16)
		for len(b) >= 12 {
			nsz, dsz, typ := bo.Uint32(b[0:]), bo.Uint32(b[4:]), bo.Uint32(b[8:])
			b = b[12:]
			na, da := (uint64(nsz)+3)&^3, (uint64(dsz)+3)&^3
			if na+da > uint64(len(b)) {
				break
			}
			if typ == 3 && nsz == 4 && string(b[:4]) == "GNU\x00" {
				return b[na : na+uint64(dsz)]
			}
			b = b[na+da:]
		}
	}
	return nil
}

// DebugLink is the file name f's .gnu_debuglink names, or "": a plain
// name (the last element of what is written there), never a path, so a
// planted link cannot lead out of the directories it is looked up in.
func (f *File) DebugLink() string {
	b := f.SmallSection(f.Section(".gnu_debuglink"), 4096)
	i := bytes.IndexByte(b, 0)
	if i <= 0 {
		return ""
	}
	name := filepath.Base(string(b[:i]))
	if name == "." || name == ".." || name == "/" {
		return ""
	}
	return name
}

// DebugCandidates are the places of the separate debug file of the file
// at path (empty for one not on disk), in the order gdb looks: by build
// ID under each of dirs (DIR/.build-id/xx/rest.debug), then by
// .gnu_debuglink beside the file, in its .debug directory, and under
// each of dirs (with the file's absolute directory, then without). The
// caller opens them in turn, refusing what is not a regular file with
// DWARF and, when both have one, the same build ID.
func DebugCandidates(path string, id []byte, link string, dirs []string) []string {
	var cands []string
	if len(id) >= 2 {
		h := hex.EncodeToString(id)
		for _, d := range dirs {
			cands = append(cands, filepath.Join(d, ".build-id", h[:2], h[2:]+".debug"))
		}
	}
	if link == "" {
		return cands
	}
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
	return cands
}

// FindDebug opens the DebugCandidates of f, the file at path, in turn
// with open, which says whether it takes the candidate (a regular file
// holding DWARF, read within its bounds). A taken file whose build ID is
// not f's, when both have one, is closed and passed over. It returns the
// first kept and its path, or ok false when none is.
func FindDebug[D interface {
	BuildID() []byte
	Close() error
}](f *File, path string, dirs []string, open func(string) (D, bool)) (string, D, bool) {
	id := f.BuildID()
	for _, c := range DebugCandidates(path, id, f.DebugLink(), dirs) {
		if c == path {
			continue
		}
		dbg, ok := open(c)
		if !ok {
			continue
		}
		if got := dbg.BuildID(); len(id) > 0 && got != nil && !bytes.Equal(got, id) {
			dbg.Close()
			continue
		}
		return c, dbg, true
	}
	var none D
	return "", none, false
}

// HasDWARF reports whether f holds DWARF debug information: a .debug_info
// section with contents, or GNU's compressed .zdebug_info.
func (f *File) HasDWARF() bool {
	for _, name := range []string{".debug_info", ".zdebug_info"} {
		if s := f.Section(name); s != nil && s.Type != elf.SHT_NOBITS && s.Size > 0 {
			return true
		}
	}
	return false
}
