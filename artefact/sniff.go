package artefact

import (
	"bytes"
	"io"
	"sync"

	gzip "github.com/klauspost/compress/gzip"
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

var gzipPool sync.Pool

func gunzipHead(head []byte) []byte {
	z, _ := gzipPool.Get().(*gzip.Reader)
	var err error
	if z == nil {
		z, err = gzip.NewReader(bytes.NewReader(head))
	} else {
		err = z.Reset(bytes.NewReader(head))
	}
	if err != nil {
		return nil
	}
	defer gzipPool.Put(z)
	out := make([]byte, HeadSize)
	n, _ := io.ReadFull(z, out)
	return out[:n]
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
