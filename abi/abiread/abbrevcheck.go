package abiread

import "fmt"

// maxAbbrevAttrs bounds the attributes of one DWARF abbreviation. Every
// entry that uses an abbreviation walks all its attributes, and an
// attribute of form flag_present or implicit_const takes no byte of
// .debug_info: one abbreviation with thousands of them, used by thousands
// of one-byte entries, costs (file size)² to read. Compilers write at most
// a few dozen (a GCC subprogram has about 20), so an abbreviation past this
// bound is refused, and reading stays linear in the file's size.
const maxAbbrevAttrs = 256

// ErrAbbrevTooWide is returned for DWARF whose abbreviation table has an
// entry with more than maxAbbrevAttrs attributes.
var ErrAbbrevTooWide = fmt.Errorf("a DWARF abbreviation has more than %d attributes", maxAbbrevAttrs)

// checkAbbrevs walks the whole .debug_abbrev section once and refuses an
// abbreviation with more than maxAbbrevAttrs attributes. It stops at the
// first malformed byte: the readers report that themselves.
func checkAbbrevs(b []byte) error {
	r := reader{b: b}
	for r.off < uint64(len(b)) {
		code := r.uleb()
		if r.err {
			return nil
		}
		if code == 0 {
			continue // the end of one unit's table
		}
		start := r.off
		r.uleb() // tag
		r.u8()   // children
		n := 0
		for {
			at, form := r.uleb(), r.uleb()
			if r.err {
				return nil
			}
			if at == 0 && form == 0 {
				break
			}
			if form == formImplicitConst {
				r.sleb()
			}
			if n++; n > maxAbbrevAttrs {
				return fmt.Errorf("%w (abbreviation %d at .debug_abbrev offset %#x)", ErrAbbrevTooWide, code, start)
			}
		}
	}
	return nil
}
