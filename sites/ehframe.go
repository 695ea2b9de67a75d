package sites

import (
	"debug/elf"

	"github.com/abifloor/abifloor/elfx"
)

// DWARF exception-header pointer encodings .eh_frame_hdr uses.
const (
	pePCRelSdata4   = 0x1b
	peUdata4        = 0x03
	peDatarelSdata4 = 0x3b
)

// ehFrameStarts lists the function starts of .eh_frame_hdr's search
// table: every function with unwind information, which in a stripped
// program is the only list of where code starts. Only the encodings
// linkers write (GNU ld, gold, lld, mold) are read; any other yields
// nothing, and decoding then starts at symbols and section starts.
func ehFrameStarts(f *elfx.File, secs []elfx.Section) []uint64 {
	var hdr *elfx.Section
	for i := range secs {
		if secs[i].Name == ".eh_frame_hdr" && secs[i].Type == elf.SHT_PROGBITS {
			hdr = &secs[i]
			break
		}
	}
	if hdr == nil || hdr.Size < 12 {
		return nil
	}
	b, err := f.SectionData(hdr, elfx.NewBudget(f.Size()))
	if err != nil || len(b) < 12 {
		return nil
	}
	if b[0] != 1 || b[1] != pePCRelSdata4 || b[2] != peUdata4 || b[3] != peDatarelSdata4 {
		return nil
	}
	bo := f.ByteOrder()
	n := uint64(bo.Uint32(b[8:]))
	table := b[12:]
	n = min(n, uint64(len(table))/8)
	out := make([]uint64, 0, n)
	for i := uint64(0); i < n; i++ {
		rel := int64(int32(bo.Uint32(table[i*8:])))
		out = append(out, uint64(int64(hdr.Addr)+rel))
	}
	return out
}
