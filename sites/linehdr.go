package sites

import (
	"encoding/binary"
	"fmt"
)

// checkLineHeader bounds what debug/dwarf's line reader will allocate
// for the line program at off in line: a DWARF 5 header's directory and
// file counts are read as they stand and each made into a slice, so a
// hostile count of 2^40 costs terabytes before any entry is read. Each
// count must fit in the bytes left in its unit.
func checkLineHeader(line []byte, off int64, bo binary.ByteOrder) error {
	if off < 0 || off+4 > int64(len(line)) {
		return fmt.Errorf("line table offset %#x outside .debug_line", off)
	}
	b := &cursor{b: line, i: int(off), bo: bo}
	n := uint64(b.u32())
	size := 4
	if n == 0xffffffff {
		n, size = b.u64(), 8
	}
	if n > uint64(len(line)-b.i) {
		return fmt.Errorf("line table at %#x longer than .debug_line", off)
	}
	b.b = line[:b.i+int(n)]
	if v := b.u16(); v < 5 {
		return b.err
	}
	b.skip(2) // address size, segment selector size
	b.skip(size)
	b.skip(5) // minimum instruction length, maximum ops, default is_stmt, line base, line range
	b.skip(int(b.u8()) - 1)
	for range 2 {
		nf := int(b.u8())
		forms := make([]uint64, 0, nf)
		for range nf {
			b.uleb()
			forms = append(forms, b.uleb())
		}
		count := b.uleb()
		if b.err != nil {
			return b.err
		}
		if count > uint64(len(b.b)-b.i) {
			return fmt.Errorf("line table at %#x: %d entries in %d bytes", off, count, len(b.b)-b.i)
		}
		for range count {
			for _, f := range forms {
				b.form(f, size)
			}
			if b.err != nil {
				return b.err
			}
		}
	}
	return b.err
}

// cursor reads a bounded buffer; past its end it sets err and reads 0.
type cursor struct {
	b   []byte
	i   int
	bo  binary.ByteOrder
	err error
}

func (c *cursor) take(n int) []byte {
	if c.err != nil || n < 0 || n > len(c.b)-c.i {
		if c.err == nil {
			c.err = fmt.Errorf("line table header truncated at %#x", c.i)
		}
		return nil
	}
	s := c.b[c.i : c.i+n]
	c.i += n
	return s
}

func (c *cursor) skip(n int) { c.take(n) }

func (c *cursor) u8() uint8 {
	if s := c.take(1); s != nil {
		return s[0]
	}
	return 0
}

func (c *cursor) u16() uint16 {
	if s := c.take(2); s != nil {
		return c.bo.Uint16(s)
	}
	return 0
}

func (c *cursor) u32() uint32 {
	if s := c.take(4); s != nil {
		return c.bo.Uint32(s)
	}
	return 0
}

func (c *cursor) u64() uint64 {
	if s := c.take(8); s != nil {
		return c.bo.Uint64(s)
	}
	return 0
}

func (c *cursor) uleb() uint64 {
	var v uint64
	for shift := 0; ; shift += 7 {
		s := c.take(1)
		if s == nil {
			return 0
		}
		if shift < 64 {
			v |= uint64(s[0]&0x7f) << shift
		}
		if s[0]&0x80 == 0 {
			return v
		}
	}
}

// form skips one attribute value of DWARF form f (offsets of size bytes).
func (c *cursor) form(f uint64, size int) {
	switch f {
	case 0x08: // string
		for c.err == nil && c.u8() != 0 {
		}
	case 0x0e, 0x1f, 0x17: // strp, line_strp, sec_offset
		c.skip(size)
	case 0x0f: // udata
		c.uleb()
	case 0x0b, 0x25: // data1, strx1
		c.skip(1)
	case 0x05, 0x26: // data2, strx2
		c.skip(2)
	case 0x27: // strx3
		c.skip(3)
	case 0x06, 0x28: // data4, strx4
		c.skip(4)
	case 0x07: // data8
		c.skip(8)
	case 0x1e: // data16
		c.skip(16)
	case 0x09: // block
		c.skip(int(min(c.uleb(), 1<<31)))
	case 0x1a: // strx
		c.uleb()
	default:
		if c.err == nil {
			c.err = fmt.Errorf("line table header: form %#x", f)
		}
	}
}
