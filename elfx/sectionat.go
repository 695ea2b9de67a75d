package elfx

import (
	"debug/elf"
	"fmt"
)

// SectionAt reads len(b) bytes of s's contents, from off within it, into
// b: a large section (a program's code) read a window at a time into a
// reused buffer, never held whole. It refuses what SectionData would
// decompress, and a range past the section or the file.
func (f *File) SectionAt(s *Section, b []byte, off uint64) error {
	if s.Type == elf.SHT_NOBITS {
		return fmt.Errorf("section %s has no contents in the file", printable(s.Name))
	}
	if _, compressed, err := f.UncompressedSize(*s); err != nil {
		return err
	} else if compressed {
		return fmt.Errorf("section %s is compressed: read it whole", printable(s.Name))
	}
	n := uint64(len(b))
	if off > s.Size || n > s.Size-off {
		return fmt.Errorf("section %s: %d bytes at %#x past its %d", printable(s.Name), n, off, s.Size)
	}
	if !f.rd.in(int64(min(s.Off, 1<<62)), int64(min(s.Size, 1<<62))) {
		return formatErr(int64(min(s.Off, 1<<62)), "section %s (%d bytes) past end of file", s.Name, s.Size)
	}
	return f.rd.readFull(b, int64(s.Off+off))
}
