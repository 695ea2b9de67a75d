package sites

import (
	"encoding/binary"

	"golang.org/x/arch/arm64/arm64asm"
)

// aarch64 instruction classes, by mask and value.
const (
	a64BLMask, a64BL     = 0xFC000000, 0x94000000
	a64B                 = 0x14000000
	a64ADRPMask, a64ADRP = 0x9F000000, 0x90000000
	a64LdStMask, a64LdSt = 0x3B000000, 0x39000000 // load/store, unsigned immediate
	a64AddMask, a64Add   = 0xFF800000, 0x91000000 // add Xd, Xn, #imm (no shift)
	a64BRMask, a64BR     = 0xFFFFFC1F, 0xD61F0000
	a64NOP               = 0xD503201F
	a64Lookahead         = 16 // instructions after an adrp where its pair is looked for
)

// arm64 finds the sites of aarch64 code: bl and b to PLT entries, and
// adrp pairs (adrp+ldr to a GOT slot or a data word, adrp+add or a load
// or store for a copied object).
func (sc *scan) arm64() error {
	code, plts := sc.codeSections()
	for _, s := range plts {
		b, err := sc.data(s)
		if err != nil {
			return err
		}
		sc.arm64PLT(s.Addr, b)
	}
	if len(sc.plt) == 0 && len(sc.targets) == 0 {
		return nil
	}
	pages := map[uint64]bool{}
	for _, t := range sc.targets {
		for p := t.lo &^ 0xfff; p < t.hi; p += 0x1000 {
			pages[p] = true
			if len(pages) > 1<<16 {
				break
			}
		}
	}
	for _, s := range code {
		// An adrp's pair lies up to a64Lookahead instructions on.
		err := sc.eachWindow(s, 0, 4*a64Lookahead+4, false, func(w *window) []Site {
			return sc.arm64Code(w, pages)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func word(b []byte, i int) uint32 { return binary.LittleEndian.Uint32(b[i:]) }

// adrpPage is the page an adrp at pc addresses.
func adrpPage(pc uint64, w uint32) uint64 {
	imm := int64(w>>29&3 | (w>>5&0x7FFFF)<<2)
	imm = imm << 43 >> 43 // sign-extend 21 bits
	return pc&^0xfff + uint64(imm<<12)
}

// branchTarget is where a b or bl at pc goes.
func branchTarget(pc uint64, w uint32) uint64 {
	imm := int64(w&0x03FFFFFF) << 38 >> 38
	return pc + uint64(imm*4)
}

// ldstOffset is the byte offset of a load or store with an unsigned
// immediate.
func ldstOffset(w uint32) uint64 {
	scale := w >> 30
	if w>>26&1 == 1 && w>>22&2 != 0 {
		scale = 4 // a 128-bit vector register
	}
	return uint64(w>>10&0xFFF) << scale
}

// decodes reports whether arm64asm decodes w as one of ops, so that
// only real instructions count.
func decodes(w uint32, ops ...arm64asm.Op) bool {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], w)
	inst, err := arm64asm.Decode(b[:])
	if err != nil {
		return false
	}
	for _, op := range ops {
		if inst.Op == op {
			return true
		}
	}
	return false
}

// arm64PLT maps each PLT entry of a wanted symbol to it: from its first
// instruction that is not a nop (bti c included) to its br, through the
// slot its adrp+ldr loads.
func (sc *scan) arm64PLT(addr uint64, b []byte) {
	start := int64(-1)
	var page, slot uint64
	for i := 0; i+4 <= len(b); i += 4 {
		w, pc := word(b, i), addr+uint64(i)
		if start < 0 && w != a64NOP {
			start, slot = int64(pc), 0
		}
		switch {
		case w&a64ADRPMask == a64ADRP:
			page = adrpPage(pc, w)
		case w&0xFFC00000 == 0xF9400000: // ldr Xt, [Xn, #imm]
			slot = page + ldstOffset(w)
		case w&a64BRMask == a64BR:
			if t, ok := sc.lookup(slot); ok && t.kind == GOT && start >= 0 {
				sc.plt[uint64(start)] = t.key
			}
			start = -1
		}
	}
}

// arm64Code scans w's code.
func (sc *scan) arm64Code(w *window, pages map[uint64]bool) []Site {
	var out []Site
	addr, b := w.addr, w.b
	for i := w.lo; i < w.hi && i+4 <= len(b); i += 4 {
		wd, pc := word(b, i), addr+uint64(i)
		switch {
		case wd&a64BLMask == a64BL || wd&a64BLMask == a64B:
			if key, ok := sc.plt[branchTarget(pc, wd)]; ok && decodes(wd, arm64asm.BL, arm64asm.B) {
				out = append(out, Site{Symbol: key, Address: pc, Kind: Call})
			}
		case wd&a64ADRPMask == a64ADRP:
			page := adrpPage(pc, wd)
			if !pages[page] || !decodes(wd, arm64asm.ADRP) {
				continue
			}
			sc.arm64Pair(addr, b, i, page, wd&31, &out)
		}
	}
	return out
}

// arm64Pair looks, after the adrp at b[i:] of page into register rd,
// for the instruction that completes the address and uses a target.
func (sc *scan) arm64Pair(addr uint64, b []byte, i int, page uint64, rd uint32, out *[]Site) {
	for j := i + 4; j+4 <= len(b) && j <= i+4*a64Lookahead; j += 4 {
		w, pc := word(b, j), addr+uint64(j)
		if w&a64ADRPMask == a64ADRP && w&31 == rd {
			return // rd is loaded anew
		}
		var ea uint64
		switch {
		case w&a64LdStMask == a64LdSt && w>>5&31 == rd:
			ea = page + ldstOffset(w)
		case w&a64AddMask == a64Add && w>>5&31 == rd:
			ea = page + uint64(w>>10&0xFFF)
		default:
			continue
		}
		t, ok := sc.lookup(ea)
		if !ok {
			continue
		}
		if t.kind != Copy && w&a64AddMask == a64Add {
			continue // a slot's address, not its contents
		}
		if decodes(w, arm64asm.LDR, arm64asm.STR, arm64asm.ADD, arm64asm.LDRB, arm64asm.LDRH,
			arm64asm.STRB, arm64asm.STRH, arm64asm.LDRSW, arm64asm.LDRSB, arm64asm.LDRSH) {
			*out = append(*out, Site{Symbol: t.key, Address: pc, Kind: t.kind})
		}
		return
	}
}
