package sites

import (
	"sync/atomic"

	"golang.org/x/arch/x86/x86asm"
)

// The length walk: between a known instruction start and a candidate,
// only instruction lengths matter, and x86asm.Decode, which builds the
// whole instruction, costs most of Find's time in code that uses a
// symbol everywhere (operator delete in C++). x86Len measures the common
// instructions from a table, and trusts the table for a class of
// instructions only once x86asm has measured that class the same
// (checked the first time the class is met); anything else it leaves to
// x86asm, so the walk is x86asm's, only cheaper.

// Operand forms of an opcode, for its length.
const (
	lModRM  = 1 << iota // a ModRM byte (and SIB and displacement) follows
	lImm8               // an 8-bit immediate or rel8
	lImm16              // a 16-bit immediate
	lImmZ               // 16 bits with 66 (and no REX.W), else 32
	lImmV               // mov r, imm: 64 bits with REX.W, 16 with 66, else 32
	lGroup3             // f6, f7: /0 and /1 take the immediate, the others none
	lKnown              // measured by the table
)

// Opcode maps.
const (
	map1 = iota
	map0F
	map0F38
	map0F3A
)

// x86Forms is each opcode's form, by map (one-byte, 0f, 0f 38, 0f 3a):
// the instruction set of 64-bit mode as the manuals tabulate it. Zero
// means not measured here.
var x86Forms = func() (t [4][256]uint8) {
	m := &t[map1]
	for op := 0; op < 0x40; op++ {
		switch op & 7 {
		case 0, 1, 2, 3:
			m[op] = lModRM
		case 4:
			m[op] = lImm8
		case 5:
			m[op] = lImmZ
		}
		// x6, x7 (push/pop of segments, daa...: not in 64-bit
		// mode), prefixes and 0f stay unmeasured.
	}
	for op := 0x50; op < 0x60; op++ {
		m[op] = 0
	}
	m[0x63] = lModRM
	m[0x68] = lImmZ
	m[0x69] = lModRM | lImmZ
	m[0x6a] = lImm8
	m[0x6b] = lModRM | lImm8
	for op := 0x70; op < 0x80; op++ {
		m[op] = lImm8
	}
	m[0x80], m[0x81], m[0x83] = lModRM|lImm8, lModRM|lImmZ, lModRM|lImm8
	for op := 0x84; op < 0x90; op++ {
		m[op] = lModRM
	}
	for op := 0x90; op < 0xa0; op++ {
		m[op] = 0
	}
	m[0xa8], m[0xa9] = lImm8, lImmZ
	for op := 0xb0; op < 0xb8; op++ {
		m[op] = lImm8
	}
	for op := 0xb8; op < 0xc0; op++ {
		m[op] = lImmV
	}
	m[0xc0], m[0xc1] = lModRM|lImm8, lModRM|lImm8
	m[0xc2] = lImm16
	m[0xc6], m[0xc7] = lModRM|lImm8, lModRM|lImmZ
	m[0xcd] = lImm8
	for op := 0xd0; op < 0xd4; op++ {
		m[op] = lModRM
	}
	for op := 0xd8; op < 0xe0; op++ {
		m[op] = lModRM
	}
	m[0xe8], m[0xe9], m[0xeb] = lImmZ, lImmZ, lImm8
	m[0xf6], m[0xf7] = lModRM|lGroup3, lModRM|lGroup3
	m[0xfe], m[0xff] = lModRM, lModRM

	m = &t[map0F]
	for _, op := range []int{0x00, 0x01, 0x02, 0x03, 0x0d} {
		m[op] = lModRM
	}
	for op := 0x10; op < 0x30; op++ {
		m[op] = lModRM
	}
	for op := 0x40; op < 0x80; op++ {
		m[op] = lModRM
	}
	m[0x70], m[0x71], m[0x72], m[0x73] = lModRM|lImm8, lModRM|lImm8, lModRM|lImm8, lModRM|lImm8
	for op := 0x80; op < 0x90; op++ {
		m[op] = lImmZ
	}
	for op := 0x90; op < 0xa0; op++ {
		m[op] = lModRM
	}
	for _, op := range []int{0xa3, 0xa5, 0xab, 0xad, 0xae, 0xaf} {
		m[op] = lModRM
	}
	m[0xa4], m[0xac] = lModRM|lImm8, lModRM|lImm8
	for op := 0xb0; op < 0xc0; op++ {
		m[op] = lModRM
	}
	m[0xba] = lModRM | lImm8
	m[0xc0], m[0xc1], m[0xc3], m[0xc7] = lModRM, lModRM, lModRM, lModRM
	m[0xc2], m[0xc4], m[0xc5], m[0xc6] = lModRM|lImm8, lModRM|lImm8, lModRM|lImm8, lModRM|lImm8
	for op := 0xd0; op < 0x100; op++ {
		m[op] = lModRM
	}
	for op := 0; op < 256; op++ {
		t[map0F38][op] = lModRM
		t[map0F3A][op] = lModRM | lImm8
	}
	// The forms without operands: one byte, or 0f and one.
	for _, op := range []int{0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f,
		0x90, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9b, 0x9c, 0x9d, 0x9e, 0x9f,
		0xa4, 0xa5, 0xa6, 0xa7, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf, 0xc3, 0xc9, 0xcc, 0xf4, 0xf5, 0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd} {
		t[map1][op] = lKnown
	}
	for _, op := range []int{0x05, 0x0b, 0x31, 0xa2, 0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf} {
		t[map0F][op] = lKnown
	}
	for mp := range t {
		for op := range t[mp] {
			if t[mp][op] != 0 {
				t[mp][op] |= lKnown
			}
		}
	}
	return t
}()

// x86Shape is what the length of an instruction depends on, as x86Len
// reads it.
type x86Shape struct {
	n     int    // the length
	pre   int    // bytes of legacy prefixes
	class int    // index in x86Classes
	modrm int    // the ModRM byte, or -1
	form  uint8  // the opcode's form
	op    []byte // the opcode bytes (after any REX)
}

// x86Measure measures the instruction at the start of b by the table
// alone; n is 0 when the table does not measure it.
func x86Measure(b []byte) (s x86Shape) {
	i := 0
	var opsize, seg, rexW bool
	var rep byte
prefixes:
	for ; i < len(b); i++ {
		switch c := b[i]; c {
		case 0x66:
			opsize = true
		case 0xf2, 0xf3:
			if rep != 0 && rep != c {
				return x86Shape{}
			}
			rep = c
		case 0x2e, 0x3e, 0x26, 0x36, 0x64, 0x65:
			seg = true
		default:
			break prefixes
		}
		if i == 3 {
			return x86Shape{} // four prefixes: rare, x86asm's
		}
	}
	if opsize && rep != 0 {
		return x86Shape{} // x86asm picks the mandatory one itself
	}
	s.pre = i
	if i < len(b) && b[i]&0xf0 == 0x40 {
		rexW = b[i]&8 != 0
		i++
	}
	start := i
	if i >= len(b) {
		return x86Shape{}
	}
	mp, op := map1, b[i]
	i++
	if op == 0x0f {
		if i >= len(b) {
			return x86Shape{}
		}
		mp, op = map0F, b[i]
		i++
		if op == 0x38 || op == 0x3a {
			if i >= len(b) {
				return x86Shape{}
			}
			mp = map0F38
			if op == 0x3a {
				mp = map0F3A
			}
			op = b[i]
			i++
		}
	}
	f := x86Forms[mp][op]
	if f == 0 {
		return x86Shape{}
	}
	s.op = b[start:i]
	s.modrm = -1
	if f&lModRM != 0 {
		if i >= len(b) {
			return x86Shape{}
		}
		modrm := b[i]
		s.modrm = int(modrm)
		i++
		mod, rm := modrm>>6, modrm&7
		if mod != 3 {
			if rm == 4 {
				if i >= len(b) {
					return x86Shape{}
				}
				if mod == 0 && b[i]&7 == 5 {
					i += 4
				}
				i++
			}
			switch {
			case mod == 1:
				i++
			case mod == 2, mod == 0 && rm == 5:
				i += 4
			}
		}
		if f&lGroup3 != 0 && modrm>>3&7 < 2 {
			if op == 0xf6 {
				f |= lImm8
			} else {
				f |= lImmZ
			}
		}
	}
	switch {
	case f&lImm8 != 0:
		i++
	case f&lImm16 != 0:
		i += 2
	case f&lImmZ != 0:
		if opsize && !rexW {
			i += 2
		} else {
			i += 4
		}
	case f&lImmV != 0:
		switch {
		case rexW:
			i += 8
		case opsize:
			i += 2
		default:
			i += 4
		}
	}
	if i > len(b) || i > 15 {
		return x86Shape{}
	}
	pc := 0
	switch {
	case opsize:
		pc = 1
	case rep == 0xf3:
		pc = 2
	case rep == 0xf2:
		pc = 3
	}
	s.class = (((pc*2+b2i(seg))*2+b2i(rexW))*4+mp)*256 + int(op)
	s.form = f
	s.n = i
	return s
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// x86Class records, for one class of instructions (mandatory prefix,
// segment prefix or none, REX.W or not, opcode), where the table's
// length is x86asm's: bit 0 of known and ok for an opcode without
// ModRM; with one, bit reg of mem for memory operands, and bit
// 8*reg+rm of reg for register operands. A bit of known is set once
// checked, and of ok when x86asm agreed.
type x86Class struct {
	mem      atomic.Uint32 // known in bits 0-7, ok in 8-15
	regKnown atomic.Uint64
	regOK    atomic.Uint64
}

var x86Classes [4 * 2 * 2 * 4 * 256]x86Class

// x86Len is the length of the instruction at the start of b when the
// table measures it and x86asm has been found to agree for its class;
// 0 when x86asm must decode it. The agreement is checked the first time
// a class is met, on synthetic instructions of every addressing form
// (x86asm rejects some opcodes the table knows, or some of their ModRM
// forms, and takes a mandatory prefix as part of the opcode), so the
// table can never walk code differently from x86asm.
func x86Len(b []byte) int {
	s := x86Measure(b)
	if s.n == 0 {
		return 0
	}
	c := &x86Classes[s.class]
	switch {
	case s.modrm < 0:
		if m := c.mem.Load(); m&1 != 0 {
			return okLen(m&0x100 != 0, s.n)
		}
		ok := x86Agrees(b, s, -1)
		c.mem.Or(1 | uint32(b2i(ok))<<8)
		return okLen(ok, s.n)
	case s.modrm>>6 == 3:
		bit := uint64(1) << (s.modrm & 63)
		if c.regKnown.Load()&bit != 0 {
			return okLen(c.regOK.Load()&bit != 0, s.n)
		}
		ok := x86Agrees(b, s, s.modrm)
		if ok {
			c.regOK.Or(bit)
		}
		c.regKnown.Or(bit)
		return okLen(ok, s.n)
	default:
		reg := uint32(s.modrm >> 3 & 7)
		if m := c.mem.Load(); m&(1<<reg) != 0 {
			return okLen(m&(0x100<<reg) != 0, s.n)
		}
		ok := x86Agrees(b, s, s.modrm)
		c.mem.Or(1<<reg | uint32(b2i(ok))<<(8+reg))
		return okLen(ok, s.n)
	}
}

func okLen(ok bool, n int) int {
	if ok {
		return n
	}
	return 0
}

// x86Agrees checks a class against x86asm: b's own prefixes and opcode,
// with every REX prefix of its REX.W, and for memory operands every
// addressing form (SIB or not, displacement of 0, 8 or 32 bits, RIP),
// each followed by enough bytes.
func x86Agrees(b []byte, s x86Shape, modrm int) bool {
	rexW := s.pre < len(b) && b[s.pre]&0xf8 == 0x48
	rexes := []int{-1, 0x47}
	if rexW {
		rexes = []int{0x48, 0x4f}
	}
	var tails [][]byte
	switch {
	case modrm < 0:
		tails = [][]byte{nil}
	case modrm>>6 == 3:
		tails = [][]byte{{byte(modrm)}}
	default:
		reg := byte(modrm) & 0x38
		tails = [][]byte{
			{reg}, {reg | 0x05}, {reg | 0x04, 0x00}, {reg | 0x04, 0x25}, {reg | 0x04, 0xc5},
			{reg | 0x40}, {reg | 0x44, 0x00}, {reg | 0x80}, {reg | 0x84, 0x00},
		}
	}
	var buf [32]byte
	for _, rex := range rexes {
		for _, tail := range tails {
			in := append(buf[:0], b[:s.pre]...)
			if rex >= 0 {
				in = append(in, byte(rex))
			}
			in = append(in, s.op...)
			in = append(in, tail...)
			for len(in) < 24 {
				in = append(in, 0x5a)
			}
			m := x86Measure(in)
			inst, err := x86asm.Decode(in, 64)
			if m.n == 0 || err != nil || inst.Len != m.n {
				return false
			}
		}
	}
	return true
}
