package artefact

import (
	"encoding/binary"
	"errors"
	"io"
	"math/bits"
)

// A zip member's head is all that tells an ELF file (or a nested
// archive) from the rest, and a jar holds tens of thousands of members.
// The inflaters of the standard library and of klauspost decode up to a
// whole 32 KiB window on their first Read however little is asked for,
// so reading 264 bytes inflated each class file whole: half of scan's
// time on a jar went to Huffman decoding of bytes nobody looked at.
// inflateHead decodes a raw DEFLATE stream (RFC 1951) held in memory only
// until it has n bytes.
//
// Decoding is table-driven: the next tableBits bits of the stream index a
// table that gives the symbol and its code length at once, so a symbol
// costs one lookup, not one step per bit. Codes longer than tableBits
// (rare symbols of a dynamic code) are decoded bit by bit from the count
// of codes of each length. The fixed codes' tables are built once.

var errInflate = errors.New("malformed DEFLATE stream")

// tableBits is the width of the first-level table: 9 bits hold every
// fixed literal/length code and most dynamic ones.
const tableBits = 9

// huffman is a canonical Huffman code: how many codes of each length,
// the symbols in code order, and the lookup table of codes up to
// tableBits long, indexed by the next mask bits of the stream. A table
// entry is symbol<<4 | code length; length 0 means no code of at most
// tableBits bits starts with these bits.
type huffman struct {
	count [16]uint16
	sym   [320]uint16
	table [1 << tableBits]uint16
	mask  uint64
}

// build makes the code of the given code lengths (0: symbol unused). An
// over-subscribed set of lengths is malformed; an incomplete one is
// allowed (a single distance code is).
func (h *huffman) build(lengths []uint8) error {
	h.count = [16]uint16{}
	for _, l := range lengths {
		h.count[l]++
	}
	h.count[0] = 0
	left, maxLen := 1, 0
	for l := 1; l < 16; l++ {
		left <<= 1
		left -= int(h.count[l])
		if left < 0 {
			return errInflate
		}
		if h.count[l] != 0 {
			maxLen = l
		}
	}
	var offs [16]uint16
	for l := 1; l < 15; l++ {
		offs[l+1] = offs[l] + h.count[l]
	}
	for s, l := range lengths {
		if l != 0 {
			h.sym[offs[l]] = uint16(s)
			offs[l]++
		}
	}
	// The table is built one code length at a time: at length l it has
	// 2^l entries, each code of length l is written at its bits reversed
	// (the stream holds a code first bit first), and doubling the table
	// for length l+1 copies every shorter code to the indexes that
	// extend it. Entries no code reaches (the prefixes of codes longer
	// than the table, or of none in an incomplete code) keep the 0 they
	// start with.
	root := min(maxLen, tableBits)
	h.table[0] = 0
	code, index := 0, 0
	for l := 1; l <= root; l++ {
		copy(h.table[1<<(l-1):1<<l], h.table[:1<<(l-1)])
		for range h.count[l] {
			h.table[bits.Reverse16(uint16(code))>>(16-l)] = h.sym[index]<<4 | uint16(l)
			code++
			index++
		}
		code <<= 1
	}
	h.mask = 1<<root - 1
	return nil
}

var (
	lenBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lenExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	dstBase  = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	dstExtra = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
	clOrder  = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}
)

// fixedLit and fixedDist are the fixed codes of RFC 1951 3.2.6.
var fixedLit, fixedDist = func() (*huffman, *huffman) {
	var l [288]uint8
	for i := range l {
		switch {
		case i < 144:
			l[i] = 8
		case i < 256:
			l[i] = 9
		case i < 280:
			l[i] = 7
		default:
			l[i] = 8
		}
	}
	lit, dist := new(huffman), new(huffman)
	lit.build(l[:])
	for i := range 30 {
		l[i] = 5
	}
	dist.build(l[:30])
	return lit, dist
}()

// headInflater holds inflateHead's state and buffers, so a walk that
// reads the heads of a jar's many members allocates them once.
type headInflater struct {
	in   []byte
	pos  int    // next byte of in to load into b
	b    uint64 // bits not yet used, first bit lowest
	n    uint   // how many bits of b are valid
	out  []byte
	lens [320]uint8
	lit  huffman
	dist huffman
	clh  huffman
}

// refill loads bytes into b until it holds at least 57 bits or in is
// used up. Eight bytes at a time where in has them: the bits loaded
// past n are the stream's own, so loading them again later is harmless.
func (hi *headInflater) refill() {
	if hi.pos+8 <= len(hi.in) {
		hi.b |= binary.LittleEndian.Uint64(hi.in[hi.pos:]) << hi.n
		k := (63 - hi.n) >> 3
		hi.pos += int(k)
		hi.n += k << 3
		return
	}
	for hi.n <= 56 && hi.pos < len(hi.in) {
		hi.b |= uint64(hi.in[hi.pos]) << hi.n
		hi.pos++
		hi.n += 8
	}
}

func (hi *headInflater) bits(k uint) (uint32, error) {
	if hi.n < k {
		hi.refill()
		if hi.n < k {
			return 0, io.ErrUnexpectedEOF
		}
	}
	v := uint32(hi.b & (1<<k - 1))
	hi.b >>= k
	hi.n -= k
	return v, nil
}

// decode reads one symbol of h. The loops that read a block's symbols
// have its first half written out in place (a call per symbol cost a
// fifth of the head's time): the table lookup.
func (hi *headInflater) decode(h *huffman) (int, error) {
	if hi.n < 15 {
		hi.refill()
	}
	e := h.table[hi.b&h.mask]
	if l := uint(e & 15); l != 0 && l <= hi.n {
		hi.b >>= l
		hi.n -= l
		return int(e >> 4), nil
	}
	return hi.decodeSlow(h)
}

// decodeSlow reads a code longer than tableBits, or one the stream ends
// inside: one bit at a time, as RFC 1951 3.2.2 counts the codes.
func (hi *headInflater) decodeSlow(h *huffman) (int, error) {
	code, first, index := 0, 0, 0
	b := hi.b
	for l := uint(1); l < 16; l++ {
		if l > hi.n {
			return 0, io.ErrUnexpectedEOF
		}
		code |= int(b & 1)
		b >>= 1
		count := int(h.count[l])
		if code-count < first {
			hi.b >>= l
			hi.n -= l
			return int(h.sym[index+(code-first)]), nil
		}
		index += count
		first += count
		first <<= 1
		code <<= 1
	}
	return 0, errInflate
}

// head is inflateHead with hi's buffers: the bytes it returns are hi's
// until the next call.
func (hi *headInflater) head(z []byte, n int) ([]byte, error) {
	hi.in, hi.pos, hi.b, hi.n = z, 0, 0, 0
	if cap(hi.out) < n && n <= 1<<16 {
		hi.out = make([]byte, 0, n)
	}
	out := hi.out[:0]
	defer func() { hi.out = out[:0] }()
	lens := hi.lens[:]
	for len(out) < n {
		hdr, err := hi.bits(3)
		if err != nil {
			return nil, err
		}
		last := hdr & 1
		var lit, dist *huffman
		switch hdr >> 1 {
		case 0: // stored: byte-aligned LEN, NLEN, then LEN bytes
			hi.b >>= hi.n % 8
			hi.n -= hi.n % 8
			ln, err := hi.bits(16)
			if err != nil {
				return nil, err
			}
			nln, err := hi.bits(16)
			if err != nil {
				return nil, err
			}
			if ln != ^nln&0xffff {
				return nil, errInflate
			}
			for ; ln > 0 && len(out) < n; ln-- {
				c, err := hi.bits(8)
				if err != nil {
					return nil, err
				}
				out = append(out, byte(c))
			}
			if last == 1 || len(out) >= n {
				return out, nil
			}
			continue
		case 1: // fixed codes
			lit, dist = fixedLit, fixedDist
		case 2: // dynamic codes
			hlit, err := hi.bits(5)
			if err != nil {
				return nil, err
			}
			hdist, err := hi.bits(5)
			if err != nil {
				return nil, err
			}
			hclen, err := hi.bits(4)
			if err != nil {
				return nil, err
			}
			nlit, ndist := int(hlit)+257, int(hdist)+1
			if nlit > 286 || ndist > 30 {
				return nil, errInflate
			}
			var cl [19]uint8
			for i := range int(hclen) + 4 {
				v, err := hi.bits(3)
				if err != nil {
					return nil, err
				}
				cl[clOrder[i]] = uint8(v)
			}
			clh := &hi.clh
			if err := clh.build(cl[:]); err != nil {
				return nil, err
			}
			for i := 0; i < nlit+ndist; {
				if hi.n < 15 {
					hi.refill()
				}
				var sym int
				if e := clh.table[hi.b&clh.mask]; e&15 != 0 && uint(e&15) <= hi.n {
					hi.b >>= e & 15
					hi.n -= uint(e & 15)
					sym = int(e >> 4)
				} else if sym, err = hi.decodeSlow(clh); err != nil {
					return nil, err
				}
				if sym < 16 {
					lens[i] = uint8(sym)
					i++
					continue
				}
				var rep uint32
				val := uint8(0)
				switch sym {
				case 16:
					if i == 0 {
						return nil, errInflate
					}
					val = lens[i-1]
					rep, err = hi.bits(2)
					rep += 3
				case 17:
					rep, err = hi.bits(3)
					rep += 3
				default:
					rep, err = hi.bits(7)
					rep += 11
				}
				if err != nil {
					return nil, err
				}
				if i+int(rep) > nlit+ndist {
					return nil, errInflate
				}
				for ; rep > 0; rep-- {
					lens[i] = val
					i++
				}
			}
			// A code without an end-of-block symbol can never end its
			// block, but its first bytes inflate: the inflaters give
			// them (zlib refuses the stream), and the full reader, which
			// says what is wrong, is theirs.
			lit, dist = &hi.lit, &hi.dist
			if err := lit.build(lens[:nlit]); err != nil {
				return nil, err
			}
			if err := dist.build(lens[nlit : nlit+ndist]); err != nil {
				return nil, err
			}
		default:
			return nil, errInflate
		}
		for len(out) < n {
			if hi.n < 15 {
				hi.refill()
			}
			var sym int
			var err error
			if e := lit.table[hi.b&lit.mask]; e&15 != 0 && uint(e&15) <= hi.n {
				hi.b >>= e & 15
				hi.n -= uint(e & 15)
				sym = int(e >> 4)
			} else if sym, err = hi.decodeSlow(lit); err != nil {
				return nil, err
			}
			switch {
			case sym < 256:
				out = append(out, byte(sym))
				continue
			case sym == 256:
			case sym > 285:
				return nil, errInflate
			default:
				sym -= 257
				e, err := hi.bits(uint(lenExtra[sym]))
				if err != nil {
					return nil, err
				}
				length := int(lenBase[sym]) + int(e)
				ds, err := hi.decode(dist)
				if err != nil {
					return nil, err
				}
				if ds > 29 {
					return nil, errInflate
				}
				e, err = hi.bits(uint(dstExtra[ds]))
				if err != nil {
					return nil, err
				}
				d := int(dstBase[ds]) + int(e)
				if d > len(out) {
					return nil, errInflate
				}
				for ; length > 0 && len(out) < n; length-- {
					out = append(out, out[len(out)-d])
				}
				continue
			}
			break // end of block
		}
		if last == 1 {
			break
		}
	}
	return out, nil
}
