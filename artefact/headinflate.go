package artefact

import (
	"errors"
	"io"
)

// A zip member's head is all that tells an ELF file (or a nested
// archive) from the rest, and a jar holds tens of thousands of members.
// The inflaters of the standard library and of klauspost decode up to a
// whole 32 KiB window on their first Read however little is asked for,
// so reading 264 bytes inflated each class file whole: half of scan's
// time on a jar went to Huffman decoding of bytes nobody looked at.
// inflateHead decodes a raw DEFLATE stream (RFC 1951) only until it has n
// bytes, bit by bit as puff.c does: slow per symbol, and cheap because it
// stops after a few hundred.

var errInflate = errors.New("malformed DEFLATE stream")

type bitReader struct {
	r io.ByteReader
	b uint32
	n uint
}

func (br *bitReader) bits(k uint) (uint32, error) {
	for br.n < k {
		c, err := br.r.ReadByte()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		br.b |= uint32(c) << br.n
		br.n += 8
	}
	v := br.b & (1<<k - 1)
	br.b >>= k
	br.n -= k
	return v, nil
}

// huffman is a canonical Huffman code: how many codes of each length,
// and the symbols in code order.
type huffman struct {
	count [16]uint16
	sym   []uint16
}

// build makes the code of the given code lengths (0: symbol unused). An
// over-subscribed set of lengths is malformed; an incomplete one is
// allowed (a single distance code is).
func (h *huffman) build(lengths []uint8) error {
	h.count = [16]uint16{}
	for _, l := range lengths {
		h.count[l]++
	}
	left := 1
	for l := 1; l < 16; l++ {
		left <<= 1
		left -= int(h.count[l])
		if left < 0 {
			return errInflate
		}
	}
	var offs [16]uint16
	for l := 1; l < 15; l++ {
		offs[l+1] = offs[l] + h.count[l]
	}
	h.sym = h.sym[:0]
	for range lengths {
		h.sym = append(h.sym, 0)
	}
	for s, l := range lengths {
		if l != 0 {
			h.sym[offs[l]] = uint16(s)
			offs[l]++
		}
	}
	return nil
}

func (br *bitReader) decode(h *huffman) (int, error) {
	code, first, index := 0, 0, 0
	for l := 1; l < 16; l++ {
		if br.n == 0 {
			c, err := br.r.ReadByte()
			if err != nil {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return 0, err
			}
			br.b, br.n = uint32(c), 8
		}
		code |= int(br.b & 1)
		br.b >>= 1
		br.n--
		count := int(h.count[l])
		if code-count < first {
			return int(h.sym[index+(code-first)]), nil
		}
		index += count
		first += count
		first <<= 1
		code <<= 1
	}
	return 0, errInflate
}

var (
	lenBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lenExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	dstBase  = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	dstExtra = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
	clOrder  = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}
)

// headInflater holds inflateHead's buffers, so a walk that reads the heads
// of a jar's many members allocates them once.
type headInflater struct {
	br        bitReader
	out       []byte
	lengths   [320]uint8
	lit, dist huffman
	clh       huffman
}

// inflateHead returns the first n bytes the raw DEFLATE stream r inflates
// to (all of them when there are fewer), reading no more of r than those
// bytes need.
func inflateHead(r io.ByteReader, n int) ([]byte, error) {
	var hi headInflater
	return hi.head(r, n)
}

// head is inflateHead with hi's buffers: the bytes it returns are hi's
// until the next call.
func (hi *headInflater) head(r io.ByteReader, n int) ([]byte, error) {
	hi.br = bitReader{r: r}
	br := &hi.br
	out := hi.out[:0]
	defer func() { hi.out = out[:0] }()
	lit, dist, lengths := &hi.lit, &hi.dist, hi.lengths[:]
	for len(out) < n {
		last, err := br.bits(1)
		if err != nil {
			return nil, err
		}
		typ, err := br.bits(2)
		if err != nil {
			return nil, err
		}
		switch typ {
		case 0: // stored: byte-aligned LEN, NLEN, then LEN bytes
			br.b >>= br.n % 8
			br.n -= br.n % 8
			ln, err := br.bits(16)
			if err != nil {
				return nil, err
			}
			nln, err := br.bits(16)
			if err != nil {
				return nil, err
			}
			if ln != ^nln&0xffff {
				return nil, errInflate
			}
			for ; ln > 0 && len(out) < n; ln-- {
				c, err := br.bits(8)
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
			for i := range 288 {
				switch {
				case i < 144:
					lengths[i] = 8
				case i < 256:
					lengths[i] = 9
				case i < 280:
					lengths[i] = 7
				default:
					lengths[i] = 8
				}
			}
			lit.build(lengths[:288])
			for i := range 30 {
				lengths[i] = 5
			}
			dist.build(lengths[:30])
		case 2: // dynamic codes
			hlit, err := br.bits(5)
			if err != nil {
				return nil, err
			}
			hdist, err := br.bits(5)
			if err != nil {
				return nil, err
			}
			hclen, err := br.bits(4)
			if err != nil {
				return nil, err
			}
			nlit, ndist := int(hlit)+257, int(hdist)+1
			if nlit > 286 || ndist > 30 {
				return nil, errInflate
			}
			var cl [19]uint8
			for i := range int(hclen) + 4 {
				v, err := br.bits(3)
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
				sym, err := br.decode(clh)
				if err != nil {
					return nil, err
				}
				if sym < 16 {
					lengths[i] = uint8(sym)
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
					val = lengths[i-1]
					rep, err = br.bits(2)
					rep += 3
				case 17:
					rep, err = br.bits(3)
					rep += 3
				default:
					rep, err = br.bits(7)
					rep += 11
				}
				if err != nil {
					return nil, err
				}
				if i+int(rep) > nlit+ndist {
					return nil, errInflate
				}
				for ; rep > 0; rep-- {
					lengths[i] = val
					i++
				}
			}
			if lengths[256] == 0 {
				return nil, errInflate // no end-of-block code
			}
			if err := lit.build(lengths[:nlit]); err != nil {
				return nil, err
			}
			if err := dist.build(lengths[nlit : nlit+ndist]); err != nil {
				return nil, err
			}
		default:
			return nil, errInflate
		}
		for len(out) < n {
			sym, err := br.decode(lit)
			if err != nil {
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
				e, err := br.bits(uint(lenExtra[sym]))
				if err != nil {
					return nil, err
				}
				length := int(lenBase[sym]) + int(e)
				ds, err := br.decode(dist)
				if err != nil {
					return nil, err
				}
				if ds > 29 {
					return nil, errInflate
				}
				e, err = br.bits(uint(dstExtra[ds]))
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
