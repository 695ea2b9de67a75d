package elfx

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/abifloor/abifloor/internal/limits"
)

// ErrNotELF is returned when a file does not start with the ELF magic.
// Callers scanning trees use it to tell "skip" from "broken".
var ErrNotELF = errors.New("not an ELF file")

// FormatError is a malformed or truncated ELF file. Off is the file offset
// the problem was found at, or -1.
type FormatError struct {
	Off int64
	Msg string
}

func (e *FormatError) Error() string {
	if e.Off < 0 {
		return "malformed ELF: " + e.Msg
	}
	return fmt.Sprintf("malformed ELF: %s (at offset %#x)", e.Msg, e.Off)
}

func formatErr(off int64, format string, args ...any) error {
	return &FormatError{Off: off, Msg: fmt.Sprintf(format, args...)}
}

const chunkSize = 4096

type chunk struct {
	off int64
	b   []byte
}

// reader serves small reads from a few cached chunks, so walking a verneed
// chain or a string table costs one pread per 4 KiB touched, not one per
// entry. Chunk 0 always holds the start of the file.
type reader struct {
	r      io.ReaderAt
	size   int64
	chunks [4]chunk
	next   int
	reads  int // preads issued; lets tests and benchmarks see the I/O cost
	// hold bounds the bytes fresh may allocate, when positive
	// (File.LimitTables); held counts them, why says where the bound
	// comes from.
	hold, held int64
	why        string
}

// in reports whether [off, off+n) lies inside the file.
func (r *reader) in(off, n int64) bool {
	return off >= 0 && n >= 0 && off <= r.size && n <= r.size-off
}

// at returns n bytes at off. The slice aliases the cache: callers decode it
// at once and must not keep it.
func (r *reader) at(off, n int64) ([]byte, error) {
	if !r.in(off, n) {
		return nil, formatErr(off, "%d bytes past end of file (size %d)", n, r.size)
	}
	for i := range r.chunks {
		c := &r.chunks[i]
		if c.b != nil && off >= c.off && off+n <= c.off+int64(len(c.b)) {
			return c.b[off-c.off : off-c.off+n], nil
		}
	}
	if n > chunkSize {
		return r.fresh(off, n)
	}
	want := min(int64(chunkSize), r.size-off)
	// Chunk 0 keeps the file head; rotate through the rest.
	r.next++
	if r.next >= len(r.chunks) {
		r.next = 1
	}
	c := &r.chunks[r.next]
	if cap(c.b) < chunkSize {
		c.b = make([]byte, chunkSize)
	}
	c.b = c.b[:want]
	c.off = off
	if err := r.readFull(c.b, off); err != nil {
		c.b = nil
		return nil, err
	}
	return c.b[:n], nil
}

// fresh reads n bytes at off into a new slice the caller owns.
func (r *reader) fresh(off, n int64) ([]byte, error) {
	if !r.in(off, n) {
		return nil, formatErr(off, "%d bytes past end of file (size %d)", n, r.size)
	}
	if r.hold > 0 {
		if r.held+n > r.hold {
			return nil, fmt.Errorf("%w: reading %d bytes at offset %#x, after %d, passes the %d this file may take (%s)", ErrHoldLimit, n, off, r.held, r.hold, r.why)
		}
		r.held += n
	}
	b := make([]byte, n)
	if err := r.readFull(b, off); err != nil {
		return nil, err
	}
	return b, nil
}

func (r *reader) readFull(b []byte, off int64) error {
	r.reads++
	n, err := r.r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || err == io.EOF {
		return formatErr(off+int64(n), "file ends early (read %d of %d bytes)", n, len(b))
	}
	return err
}

// maxCString bounds a string read on its own: a library, soname, search
// path, interpreter, version or section name. The loader takes at most
// PATH_MAX (4096) bytes of a path, and real search paths (Nix's among
// them) stay under a few KB; a library whose DT_NEEDED and DT_SONAME
// named one 200 MiB symbol name cost scan 676 MB from a 205 KB .tar.gz.
const maxCString = limits.CString

// errLongString is the error of a string at off longer than maxCString.
func errLongString(off int64) error {
	return formatErr(off, "string longer than %d bytes (a name or a search path: the loader takes 4096 bytes of a path)", maxCString)
}

// cstring reads a NUL-terminated string at off that must end before limit,
// and within maxCString bytes. It copies only a string it returns: one
// that is too long, or not ended, costs a scan of at most maxCString
// bytes through the chunk cache.
func (r *reader) cstring(off, limit int64) (string, error) {
	if limit > r.size {
		limit = r.size
	}
	start, long := off, false
	if limit-off > maxCString+1 {
		limit, long = off+maxCString+1, true
	}
	for off < limit {
		n := min(limit-off, chunkSize-off%chunkSize)
		b, err := r.at(off, n)
		if err != nil {
			return "", err
		}
		if i := bytes.IndexByte(b, 0); i >= 0 {
			if off == start {
				return string(b[:i]), nil
			}
			s := make([]byte, off+int64(i)-start)
			if err := r.readFull(s, start); err != nil {
				return "", err
			}
			return string(s), nil
		}
		off += n
	}
	if long {
		return "", errLongString(start)
	}
	return "", formatErr(start, "string not terminated inside its table")
}
