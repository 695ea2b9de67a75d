package sites

import (
	"encoding/binary"

	"golang.org/x/arch/x86/x86asm"
)

// x86Step is one decoded x86-64 instruction: n bytes long; inst is what
// x86asm decoded, or for a VEX or EVEX instruction (which x86asm decodes
// only in part, some with the wrong length) nothing but its RIP-relative
// displacement, when it has one.
type x86Step struct {
	n      int
	inst   x86asm.Inst
	vex    bool
	rip    bool
	ripOff int64 // the displacement, counted from the next instruction (past any immediate)
}

// x86Decode1 decodes the instruction at the start of b; n is 0 when
// nothing decodes there.
func x86Decode1(b []byte) x86Step {
	if len(b) >= 4 && b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && (b[3] == 0xfa || b[3] == 0xfb) {
		return x86Step{n: 4} // endbr64, endbr32: x86asm knows neither
	}
	if len(b) > 0 && (b[0] == 0xc4 || b[0] == 0xc5 || b[0] == 0x62) {
		// In 64-bit mode these always start VEX or EVEX.
		return vexStep(b)
	}
	inst, err := x86asm.Decode(b, 64)
	if err != nil || inst.Len == 0 {
		return x86Step{}
	}
	return x86Step{n: inst.Len, inst: inst}
}

// vexStep measures a VEX (c4, c5) or EVEX (62) instruction: its prefix,
// opcode, ModRM, SIB, displacement and the immediate its map and opcode
// imply.
func vexStep(b []byte) x86Step {
	var pre, mp int
	switch b[0] {
	case 0xc5:
		pre, mp = 2, 1
	case 0xc4:
		if len(b) < 2 {
			return x86Step{}
		}
		pre, mp = 3, int(b[1]&0x1f)
	case 0x62:
		if len(b) < 2 {
			return x86Step{}
		}
		pre, mp = 4, int(b[1]&0x07)
	}
	i := pre
	if len(b) < i+2 {
		return x86Step{}
	}
	op, modrm := b[i], b[i+1]
	i += 2
	mod, rm := modrm>>6, modrm&7
	st := x86Step{vex: true}
	if mod != 3 {
		if rm == 4 {
			if len(b) <= i {
				return x86Step{}
			}
			if mod == 0 && b[i]&7 == 5 {
				i += 4 // SIB with no base: disp32
			}
			i++
		}
		switch {
		case mod == 1:
			i++
		case mod == 2:
			i += 4
		case mod == 0 && rm == 5:
			if len(b) < i+4 {
				return x86Step{}
			}
			st.rip, st.ripOff = true, int64(int32(binary.LittleEndian.Uint32(b[i:])))
			i += 4
		}
	}
	imm := 0
	switch mp {
	case 3:
		imm = 1
	case 1:
		if op >= 0x70 && op <= 0x73 || op == 0xc2 || op >= 0xc4 && op <= 0xc6 {
			imm = 1
		}
	case 2, 5, 6:
	default:
		return x86Step{} // no such map (or XOP): not decoded
	}
	i += imm
	if len(b) < i {
		return x86Step{}
	}
	st.n = i
	return st
}
