package artefact

import (
	"bytes"
	"fmt"
	"io"
)

// The Go xz reader gives each block the dictionary its header claims (up
// to 4 GiB), and xzDict reads only the first block's: a stream whose
// first block asked for 1 MiB and a later block, or a later stream of the
// same file, for 1.5 GiB was read with 1.5 GiB. xzFrames follows the
// framing of the bytes on their way to the Go reader, which the xz format
// lets a reader do without decoding anything: stream headers and
// footers, block headers, the LZMA2 chunks of a block by their sizes, the
// block's padding and check, and the index. Each block header is checked
// against the dictionary reserved for the stream before the reader gets
// its last byte. Framing it cannot follow is left to the reader, which
// says what is wrong; the rest then passes unchecked, and is a format
// error there.

// xzFrames passes r on, refusing a block whose dictionary is more than
// maxDict bytes.
type xzFrames struct {
	r       io.Reader
	maxDict uint64
	st      xzState
	skip    int64  // bytes to pass before the next field
	field   []byte // the field being gathered
	want    int    // its size
	check   int64  // the stream's check size
	region  int64  // bytes of the current block, or index, so far
	varints uint64 // index varints left
	counted bool   // the index's record count is read
	off     int64  // bytes passed in all
	err     error  // the refusal, once made
	lost    bool   // framing not followed: the rest passes unchecked
}

type xzState int

const (
	xzStreamHeader xzState = iota
	xzBlockOrIndex         // a block header's size byte, or the index indicator
	xzBlockHeader
	xzChunk       // an LZMA2 control byte
	xzChunkHeader // the rest of an LZMA2 chunk's header
	xzIndex       // the varints of the index
	xzStreamFooter
	xzStreamPad
)

var xzMagic = []byte{0xfd, '7', 'z', 'X', 'Z', 0}

// newXZFrames follows r, which starts with a stream header.
func newXZFrames(r io.Reader, maxDict uint64) *xzFrames {
	return &xzFrames{r: r, maxDict: maxDict, st: xzStreamHeader, want: 12}
}

func (x *xzFrames) Read(p []byte) (int, error) {
	if x.err != nil {
		return 0, x.err
	}
	n, err := x.r.Read(p)
	for i := 0; i < n && !x.lost; {
		k, ferr := x.step(p[i:n])
		if ferr != nil {
			// The bytes before the refused header's last pass on:
			// the reader allocates a block's dictionary only once
			// it has the whole header.
			x.err = ferr
			return i + k - 1, nil
		}
		i += k
		x.off += int64(k)
	}
	return n, err
}

// step consumes the start of b (at least one byte) and reports how many
// bytes it took.
func (x *xzFrames) step(b []byte) (int, error) {
	if x.skip > 0 {
		k := min(x.skip, int64(len(b)))
		x.skip -= k
		x.region += k
		return int(k), nil
	}
	if x.want > 0 {
		k := min(x.want-len(x.field), len(b))
		x.field = append(x.field, b[:k]...)
		x.region += int64(k)
		if len(x.field) < x.want {
			return k, nil
		}
		err := x.fieldDone()
		x.field, x.want = x.field[:0], 0
		return k, err
	}
	c := b[0]
	x.region++
	switch x.st {
	case xzBlockOrIndex:
		if c == 0 {
			x.st, x.region, x.counted = xzIndex, 1, false
			x.field = x.field[:0]
			return 1, nil
		}
		x.st, x.region = xzBlockHeader, 1
		x.field, x.want = append(x.field[:0], c), (int(c)+1)*4
	case xzChunk:
		switch {
		case c == 0: // the end of the block's LZMA2 data
			x.skip = (4-x.region%4)%4 + x.check
			x.st = xzBlockOrIndex
		case c == 1 || c == 2: // an uncompressed chunk: its size
			x.st, x.field, x.want = xzChunkHeader, append(x.field[:0], c), 3
		case c >= 0x80: // an LZMA chunk: sizes, and properties from 0xc0
			x.st, x.field, x.want = xzChunkHeader, append(x.field[:0], c), 5+int(c>>6&1)
		default:
			x.lost = true
		}
	case xzIndex:
		x.field = append(x.field, c)
		if c >= 0x80 {
			if len(x.field) > 9 {
				x.lost = true
			}
			return 1, nil
		}
		v := xzVarint(x.field)
		x.field = x.field[:0]
		switch {
		case !x.counted: // the record count: two varints a record
			if v > 1<<40 {
				x.lost = true
				return 1, nil
			}
			x.counted, x.varints = true, 2*v
		default:
			x.varints--
		}
		if x.varints == 0 {
			// Padding to four bytes, the CRC32, then the footer.
			x.skip = (4-x.region%4)%4 + 4
			x.st, x.want = xzStreamFooter, 12
		}
	case xzStreamPad:
		if c != 0 {
			x.st, x.field, x.want = xzStreamHeader, append(x.field[:0], c), 12
		}
	default:
		x.lost = true
	}
	return 1, nil
}

// fieldDone acts on a gathered field.
func (x *xzFrames) fieldDone() error {
	f := x.field
	switch x.st {
	case xzStreamHeader:
		if !bytes.Equal(f[:6], xzMagic) {
			x.lost = true
			return nil
		}
		x.check = xzCheckSize(f[7] & 0x0f)
		x.st = xzBlockOrIndex
	case xzBlockHeader:
		dict, err := xzDict(append(make([]byte, 12, 12+len(f)), f...))
		if err != nil {
			return err
		}
		if dict > x.maxDict {
			return fmt.Errorf("xz: a block at offset %d claims a %d KiB dictionary, more than the %d KiB reserved for the stream (its first block's)", x.off, dict>>10, x.maxDict>>10)
		}
		x.st = xzChunk
	case xzChunkHeader:
		if c := f[0]; c == 1 || c == 2 {
			x.skip = int64(f[1])<<8 | int64(f[2]) + 1
		} else {
			x.skip = int64(f[3])<<8 | int64(f[4]) + 1
		}
		x.st = xzChunk
	case xzStreamFooter:
		x.st = xzStreamPad
	}
	return nil
}

// xzCheckSize is the size of a block's check of type t (the stream flags'
// low bits): none, CRC32, CRC64, SHA-256, and the reserved ones.
func xzCheckSize(t byte) int64 {
	if t == 0 {
		return 0
	}
	return 4 << ((t - 1) / 3)
}

// xzVarint decodes a multibyte integer of the xz format.
func xzVarint(b []byte) uint64 {
	var v uint64
	for i, c := range b {
		v |= uint64(c&0x7f) << (7 * i)
	}
	return v
}
