package sites

import (
	"encoding/binary"
	"math"
	"sort"

	"golang.org/x/arch/x86/x86asm"
)

// x86 finds the sites of x86-64 code.
func (sc *scan) x86() error {
	code, plts := sc.codeSections()
	for _, s := range plts {
		b, err := sc.data(s)
		if err != nil {
			return err
		}
		sc.x86PLT(s.Addr, b)
	}
	if len(sc.plt) == 0 && len(sc.targets) == 0 {
		return nil
	}
	nonPIE := sc.f.Type == 2 // ET_EXEC: absolute addresses fit in 32 bits
	cl := sc.clusters()
	for _, s := range code {
		// Two bytes behind a position tell whether a rel32 or
		// disp32 may start there; an instruction at a window's end
		// reads up to 15 bytes past it.
		err := sc.eachWindow(s, 2, 16, true, func(w *window) []Site {
			return sc.x86Decode(w, sc.x86Candidates(w, cl, nonPIE))
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// clusters are the address ranges the PLT entries and targets lie in,
// split where they are more than a page apart: .plt, .got and .data are
// far apart, and the code between them must not all be a candidate.
func (sc *scan) clusters() []span {
	var pts []span
	for a := range sc.plt {
		pts = append(pts, span{lo: a, hi: a + 1})
	}
	for _, t := range sc.targets {
		pts = append(pts, span{lo: t.lo, hi: t.hi})
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].lo < pts[j].lo })
	var out []span
	for _, p := range pts {
		if n := len(out); n > 0 && p.lo <= out[n-1].hi+4096 {
			out[n-1].hi = max(out[n-1].hi, p.hi)
			continue
		}
		out = append(out, p)
	}
	return out
}

// hit reports whether an instruction whose 4-byte displacement ends at
// t may address a PLT entry or a target: exactly, or past an immediate
// of 1, 2 or 4 bytes that follows the displacement.
func (sc *scan) hit(t uint64) bool {
	if _, ok := sc.plt[t]; ok {
		return true
	}
	for _, k := range [...]uint64{0, 1, 2, 4} {
		if _, ok := sc.lookup(t + k); ok {
			return true
		}
	}
	return false
}

// x86PLT maps each PLT entry of a wanted symbol to it: an entry is the
// code from its first instruction that is not padding to its indirect
// jump through a GOT slot (jmp *slot(%rip)), in every layout the
// linkers write (.plt with lazy stubs, .plt.sec and .plt.got, with or
// without endbr64 and bnd).
func (sc *scan) x86PLT(addr uint64, b []byte) {
	start := int64(-1)
	for i := 0; i < len(b); {
		st := x86Decode1(b[i:])
		if st.n == 0 {
			i++
			start = -1
			continue
		}
		inst := st.inst
		pc := addr + uint64(i)
		if start < 0 && (st.n == 4 && inst.Op == 0 || inst.Op != x86asm.NOP && inst.Op != x86asm.INT) {
			start = int64(pc)
		}
		if inst.Op == x86asm.JMP {
			if m, ok := inst.Args[0].(x86asm.Mem); ok && m.Base == x86asm.RIP && start >= 0 {
				slot := pc + uint64(inst.Len) + uint64(m.Disp)
				if t, ok := sc.lookup(slot); ok && t.kind == GOT {
					sc.plt[uint64(start)] = t.key
				}
			}
			start = -1
		}
		i += st.n
	}
}

// x86Candidates returns the offsets in w's code whose next four
// bytes, read as a rel32 or a RIP-relative disp32, could reach a PLT
// entry or target: the only places decoding must confirm. nonPIE also
// takes the four bytes as an absolute address (mov $entry, %edi).
//
// In position-independent code a use is a rel32 (call, jmp, jcc: the
// byte before is e8, e9 or 0f 8x) or a RIP-relative disp32 (the byte
// before is its ModRM, mod 00 r/m 101, in every encoding), so only the
// offsets after such a byte are tested; this pass reads every byte of
// the code and is most of Find's time. A non-PIE program may also name
// an entry by its absolute address, after any opcode: there every
// offset is tested.
func (sc *scan) x86Candidates(w *window, cl []span, nonPIE bool) []int {
	var out []int
	if len(cl) == 0 {
		return nil
	}
	addr, b := w.addr, w.b
	le := binary.LittleEndian
	// t = addr + i + 4 + disp lies in [lo-4, hi) when i + disp lies in
	// [lo-addr-8, hi-addr-4): computed once per cluster, and once for
	// all of them, the test most offsets fail.
	type bound struct{ lo, hi int64 }
	bs := make([]bound, len(cl))
	all := bound{math.MaxInt64, math.MinInt64}
	for k, c := range cl {
		bs[k] = bound{int64(c.lo - addr - 8), int64(c.hi - addr - 4)}
		all.lo, all.hi = min(all.lo, bs[k].lo), max(all.hi, bs[k].hi)
	}
	absLo, absHi := cl[0].lo, cl[len(cl)-1].hi
	// A rel8 reaches 128 bytes: only offsets that near a PLT entry are
	// looked up.
	r8lo, r8hi := int64(math.MaxInt64), int64(math.MinInt64)
	for a := range sc.plt {
		r8lo, r8hi = min(r8lo, int64(a-addr)-1-127), max(r8hi, int64(a-addr)-1+128)
	}
	for i := w.lo; i < w.hi && i+4 <= len(b); i++ {
		if i > 0 {
			p := b[i-1]
			if int64(i) >= r8lo && int64(i) <= r8hi && (p == 0xeb || p&0xf0 == 0x70) {
				// jmp rel8 / jcc rel8 to a PLT entry (a tail
				// call near the start of .text).
				t := addr + uint64(i) + 1 + uint64(int64(int8(b[i])))
				if _, ok := sc.plt[t]; ok {
					out = append(out, i)
					continue
				}
			}
			if !nonPIE {
				switch x86Before[p] {
				case 0:
					continue
				case beforeJcc:
					if i < 2 || b[i-2] != 0x0f {
						continue
					}
				}
			}
		} else if !nonPIE {
			continue
		}
		v := le.Uint32(b[i:])
		x := int64(i) + int64(int32(v))
		if (x < all.lo || x >= all.hi) && (!nonPIE || uint64(v) < absLo || uint64(v) >= absHi) {
			continue
		}
		in := false
		for _, c := range bs {
			if x >= c.lo && x < c.hi {
				in = true
				break
			}
		}
		if !in && nonPIE {
			for _, c := range cl {
				if uint64(v) >= c.lo && uint64(v) < c.hi {
					in = true
					break
				}
			}
		}
		if !in {
			continue
		}
		t := addr + uint64(i) + 4 + uint64(int64(int32(v)))
		if sc.hit(t) || nonPIE && sc.hit(uint64(v)) {
			out = append(out, i)
		}
	}
	return out
}

// x86Before classifies the byte before a rel32 or disp32 in
// position-independent code: a call or jmp opcode, or a RIP-relative
// ModRM (beforeDisp); the second byte of a jcc rel32 (beforeJcc, after
// 0f); anything else (0).
var x86Before = func() (t [256]uint8) {
	for p := 0; p < 256; p++ {
		switch {
		case p == 0xe8 || p == 0xe9 || p&0xc7 == 0x05:
			t[p] = beforeDisp
		case p&0xf0 == 0x80:
			t[p] = beforeJcc
		}
	}
	return t
}()

const (
	beforeDisp = 1
	beforeJcc  = 2
)

// x86Decode walks s's code b from the last known instruction start
// before each candidate to the instruction that holds it, and reports
// that instruction when it uses a wanted symbol. Every use has a
// candidate of its own (x86Candidates), so the instructions between are
// only measured (x86Len), and only a candidate's is decoded whole.
func (sc *scan) x86Decode(w *window, cands []int) []Site {
	var out []Site
	b := w.b
	cur := w.lo // the next instruction start, in sync
	for _, c := range cands {
		if c < cur {
			continue // in an instruction already decoded
		}
		if sync, ok := sc.syncBefore(w.addr + uint64(c)); ok && sync >= w.addr+uint64(cur) && sync-w.addr <= uint64(c) {
			cur = int(sync - w.addr)
		}
		for cur <= c && cur < len(b) {
			if n := x86Len(b[cur:]); n > 0 && cur+n <= c {
				cur += n
				continue
			}
			st := x86Decode1(b[cur:])
			if st.n == 0 {
				cur++
				continue
			}
			if cur+st.n > c {
				sc.x86Use(w.addr+uint64(cur), st, &out)
			}
			cur += st.n
		}
	}
	return out
}

// x86Use reports the decoded instruction st at pc when it uses a wanted
// symbol.
func (sc *scan) x86Use(pc uint64, st x86Step, out *[]Site) {
	if !st.vex {
		sc.x86Inst(pc, st.inst, out)
		return
	}
	if st.rip {
		ea := pc + uint64(st.n) + uint64(st.ripOff)
		if t, ok := sc.lookup(ea); ok && sc.useful(pc, t) {
			*out = append(*out, Site{Symbol: t.key, Address: pc, Kind: t.kind})
		}
	}
}

// x86Inst reports inst at pc when it uses a wanted symbol.
func (sc *scan) x86Inst(pc uint64, inst x86asm.Inst, out *[]Site) {
	next := pc + uint64(inst.Len)
	for _, a := range inst.Args {
		switch a := a.(type) {
		case nil:
			return
		case x86asm.Rel:
			if key, ok := sc.plt[next+uint64(int64(a))]; ok {
				*out = append(*out, Site{Symbol: key, Address: pc, Kind: Call})
				return
			}
		case x86asm.Mem:
			var ea uint64
			switch {
			case a.Base == x86asm.RIP:
				ea = next + uint64(a.Disp)
			case a.Base == 0 && a.Index == 0 && a.Segment == 0:
				ea = uint64(a.Disp) // an absolute address (non-PIE)
			default:
				continue
			}
			if key, ok := sc.plt[ea]; ok && inst.Op == x86asm.LEA {
				*out = append(*out, Site{Symbol: key, Address: pc, Kind: Address})
				return
			}
			if t, ok := sc.lookup(ea); ok && sc.useful(pc, t) {
				*out = append(*out, Site{Symbol: t.key, Address: pc, Kind: t.kind})
				return
			}
		case x86asm.Imm:
			if key, ok := sc.plt[uint64(a)]; ok && sc.f.Type == 2 {
				*out = append(*out, Site{Symbol: key, Address: pc, Kind: Address})
				return
			}
		}
	}
}

// useful drops one known false use: GCC's crtstuff computes __TMC_END__,
// the end of .data, which is where the linker puts the first copied
// object of .bss; deregister_tm_clones and register_tm_clones take that
// address for themselves, not for the object.
func (sc *scan) useful(pc uint64, t target) bool {
	if t.kind != Copy {
		return true
	}
	switch sc.enclosing(pc, false) {
	case "deregister_tm_clones", "register_tm_clones":
		return false
	}
	return true
}
