package elfx

import "debug/elf"

// unhashedCount is the symbol count of a file whose GNU hash table has no
// hashed symbols (every bucket empty). The table then says nothing about
// the symbols below symoffset, which may be more than symoffset (a library
// with only undefined symbols), so the .dynsym section header decides when
// there is one.
func (f *File) unhashedCount(symoffset int64) int64 {
	secs, err := f.Sections()
	if err != nil {
		return symoffset
	}
	for _, s := range secs {
		if s.Type == elf.SHT_DYNSYM && s.Entsize > 0 {
			return max(symoffset, int64(s.Size/s.Entsize))
		}
	}
	return symoffset
}
