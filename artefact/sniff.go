package artefact

import (
	"bytes"
	"hash/crc32"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Sniff is Detect for a tree walker that holds a file's first bytes: a
// gzip or zstd stream whose first decompressed bytes are no archive (a
// man page, a changelog.gz: thousands under /usr/share) is not an
// artefact, and is told apart here without opening the file again. When
// head is too short to tell, or the compression is one that cannot be
// decoded from its first kilobytes (xz, bzip2), the compressed format is
// returned and the full read decides.
func Sniff(head []byte) Format {
	f := Detect(head)
	var inner []byte
	switch f {
	case Gzip:
		inner = gunzipHead(head)
	case Zstd:
		inner = unzstdHead(head)
	default:
		return f
	}
	if len(inner) < HeadSize && inner != nil {
		return f // a short file or a short head: let the reader decide
	}
	if inner == nil {
		return f
	}
	switch Detect(inner) {
	case "", Zip:
		return "" // a zip cannot be read inside a stream anyway
	}
	return f
}

var headPool = sync.Pool{New: func() any { return new(headInflater) }}

// gunzipHead is the first HeadSize bytes the gzip stream starting head
// inflates to, or fewer (nil on an error). It parses the member header
// (RFC 1952) and inflates with inflateHead, which stops at HeadSize; the
// inflaters decode a whole window on their first read, and under /usr
// there are tens of thousands of man pages to tell from tarballs.
func gunzipHead(head []byte) []byte {
	z := gzipBody(head)
	if z == nil {
		return nil
	}
	hi := headPool.Get().(*headInflater)
	defer headPool.Put(hi)
	out, err := hi.head(z, HeadSize)
	if err != nil {
		return nil
	}
	return append([]byte(nil), out...)
}

// gzipBody is the DEFLATE stream of the gzip member that starts b, or
// nil when b does not hold the whole member header or it is malformed.
func gzipBody(b []byte) []byte {
	const (
		fhcrc    = 1 << 1
		fextra   = 1 << 2
		fname    = 1 << 3
		fcomment = 1 << 4
	)
	if len(b) < 10 || b[0] != 0x1f || b[1] != 0x8b || b[2] != 8 || b[3]&0xe0 != 0 {
		return nil
	}
	flg, all := b[3], b
	b = b[10:]
	if flg&fextra != 0 {
		if len(b) < 2 {
			return nil
		}
		n := int(b[0]) | int(b[1])<<8
		if len(b) < 2+n {
			return nil
		}
		b = b[2+n:]
	}
	for _, f := range []byte{fname, fcomment} {
		if flg&f != 0 {
			i := bytes.IndexByte(b, 0)
			if i < 0 {
				return nil
			}
			b = b[i+1:]
		}
	}
	if flg&fhcrc != 0 {
		hl := len(all) - len(b)
		if len(b) < 2 || uint16(crc32.ChecksumIEEE(all[:hl])) != uint16(b[0])|uint16(b[1])<<8 {
			return nil
		}
		b = b[2:]
	}
	return b
}

var zstdPool = sync.Pool{New: func() any {
	// A small window: a frame asking for more is not decoded here
	// (its history would be allocated for 264 bytes) but left to the
	// full read, under the run's decoder memory.
	d, _ := zstd.NewReader(nil, zstdOptions(minZstdWindow)...)
	return d
}}

func unzstdHead(head []byte) []byte {
	d, _ := zstdPool.Get().(*zstd.Decoder)
	if d == nil {
		return nil
	}
	defer zstdPool.Put(d)
	if d.Reset(bytes.NewReader(head)) != nil {
		return nil
	}
	out := make([]byte, HeadSize)
	n, _ := io.ReadFull(d, out)
	return out[:n]
}
