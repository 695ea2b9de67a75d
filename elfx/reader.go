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

const (
	chunkSize = 4096
	nChunks   = 8
)

// maxWindow bounds the one read that fetches the version and string
// tables together (reader.prefetch): larger spans are read chunk by
// chunk, only where a name is.
const maxWindow = 64 << 10

type chunk struct {
	off int64
	b   []byte // the bytes held; nil when the slot is empty
}

// Scratch holds the buffers a File reads through, so that a caller reading
// many files one after another (a scan worker) allocates them once, and
// the names those files share (libc.so.6, GLIBC_2.2.5) once. A File made
// with a Scratch must not be used after the next File is made with it; a
// Scratch is not safe for concurrent use.
type Scratch struct {
	bufs   [nChunks][]byte // storage of the chunk slots but the head
	window []byte
	names  map[string]string
	progs  []Prog
	dyn    Dynamic
	file   File
}

// NewScratch returns buffers for NewFileScratch.
func NewScratch() *Scratch { return &Scratch{names: make(map[string]string, 1024)} }

// ownChunks is how many chunk slots a reader without a Scratch rotates
// through (its buffers are its own, made as they are first needed).
const ownChunks = 4

// Interning bounds: a name longer than maxInterned, or met once the table
// holds maxNames, is copied as without a Scratch. Real names (sonames,
// version names) are short and few; a file of a million distinct names
// cannot grow the table past about 300 KiB.
const (
	maxInterned = 64
	maxNames    = 4096
)

// reader serves small reads from a few cached chunks, so walking a verneed
// chain or a string table costs one pread per 4 KiB touched, not one per
// entry. Chunk 0 always holds the start of the file. A window, read once
// by prefetch, holds the version and string tables when they lie close
// together, so the common file costs a read of its head, one of its
// dynamic section and at most one more.
type reader struct {
	r      io.ReaderAt
	size   int64
	chunks [nChunks]chunk
	win    chunk
	next   int
	reads  int // preads issued; lets tests and benchmarks see the I/O cost
	// hold bounds the bytes fresh may allocate, when positive
	// (File.LimitTables); held counts them, why says where the bound
	// comes from.
	hold, held int64
	why        string
	// scratch, when the caller gave one, lends the chunk and window
	// buffers and interns names; without one, own holds the buffers of
	// the first ownChunks slots, made at their first use.
	scratch *Scratch
	own     *[ownChunks][]byte
	// intern is set while names that files share are read (libraries,
	// versions, sections); a soname or search path is the file's own,
	// and interning it would only fill the table.
	intern bool
}

// in reports whether [off, off+n) lies inside the file.
func (r *reader) in(off, n int64) bool {
	return off >= 0 && n >= 0 && off <= r.size && n <= r.size-off
}

// cached returns the bytes held from off to the end of the cached region
// holding off, or nil.
func (r *reader) cached(off int64) []byte {
	if c := &r.win; c.b != nil && off >= c.off && off < c.off+int64(len(c.b)) {
		return c.b[off-c.off:]
	}
	for i := range r.chunks {
		c := &r.chunks[i]
		if c.b != nil && off >= c.off && off < c.off+int64(len(c.b)) {
			return c.b[off-c.off:]
		}
	}
	return nil
}

// at returns n bytes at off. The slice aliases the cache: callers decode it
// at once and must not keep it.
func (r *reader) at(off, n int64) ([]byte, error) {
	if !r.in(off, n) {
		return nil, formatErr(off, "%d bytes past end of file (size %d)", n, r.size)
	}
	if b := r.cached(off); int64(len(b)) >= n {
		return b[:n], nil
	}
	if n > chunkSize {
		return r.fresh(off, n)
	}
	// Chunks are aligned, so names read around one place of a large
	// string table share them, whichever is read first.
	start := off - off%chunkSize
	if off+n > start+chunkSize {
		start = off
	}
	b, err := r.fill(start, min(int64(chunkSize), r.size-start))
	if err != nil {
		return nil, err
	}
	return b[off-start : off-start+n], nil
}

// exact is at for a region read once and decoded at once (the dynamic
// section): a miss reads the n bytes, not a whole chunk.
func (r *reader) exact(off, n int64) ([]byte, error) {
	if !r.in(off, n) {
		return nil, formatErr(off, "%d bytes past end of file (size %d)", n, r.size)
	}
	if b := r.cached(off); int64(len(b)) >= n {
		return b[:n], nil
	}
	if n > chunkSize || r.scratch == nil {
		// Without a Scratch, a chunk buffer would be made for a few
		// hundred bytes.
		return r.fresh(off, n)
	}
	return r.fill(off, n)
}

// fill reads want bytes at off into the next chunk slot.
func (r *reader) fill(off, want int64) ([]byte, error) {
	// Chunk 0 keeps the file head; rotate through the rest.
	slots := len(r.chunks)
	if r.scratch == nil {
		slots = ownChunks
	}
	r.next++
	if r.next >= slots {
		r.next = 1
	}
	c := &r.chunks[r.next]
	var buf *[]byte
	if r.scratch != nil {
		buf = &r.scratch.bufs[r.next]
	} else {
		if r.own == nil {
			r.own = new([ownChunks][]byte)
		}
		buf = &r.own[r.next]
	}
	if cap(*buf) < chunkSize {
		*buf = make([]byte, chunkSize)
	}
	c.b, c.off = (*buf)[:want], off
	if err := r.readFull(c.b, off); err != nil {
		c.b = nil
		return nil, err
	}
	return c.b, nil
}

// prefetch reads [lo, hi) (clipped to the file) in one read into the
// window, unless the head already holds it or it is larger than
// maxWindow. A failed read is left to the reads that follow to report.
func (r *reader) prefetch(lo, hi int64) {
	lo, hi = max(lo, 0), min(hi, r.size)
	if hi <= lo || hi-lo > maxWindow {
		return
	}
	if b := r.cached(lo); int64(len(b)) >= hi-lo {
		return
	}
	if hi-lo <= chunkSize {
		// Small enough for a chunk slot: no buffer of its own.
		r.fill(lo, hi-lo) // an error is left to the reads that follow
		return
	}
	if r.scratch == nil {
		return // a window is a Scratch's: chunk by chunk, as before
	}
	if cap(r.scratch.window) < int(hi-lo) {
		r.scratch.window = make([]byte, max(hi-lo, 16<<10))
	}
	buf := r.scratch.window[:hi-lo]
	r.win = chunk{}
	if r.readFull(buf, lo) == nil {
		r.win = chunk{off: lo, b: buf}
	}
}

// str returns b as a string: the interned copy when a Scratch holds one
// and the name is of a kind many files share (r.intern).
func (r *reader) str(b []byte) string {
	s := r.scratch
	if s == nil || !r.intern || len(b) > maxInterned {
		return string(b)
	}
	if v, ok := s.names[string(b)]; ok {
		return v
	}
	v := string(b)
	if len(s.names) < maxNames {
		s.names[v] = v
	}
	return v
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
	// The common case: the string lies in what the head or the window
	// already holds.
	if b := r.cached(off); b != nil && off < limit {
		b = b[:min(int64(len(b)), limit-off)]
		if i := bytes.IndexByte(b, 0); i >= 0 {
			return r.str(b[:i]), nil
		}
	}
	for off < limit {
		n := min(limit-off, chunkSize-off%chunkSize)
		b, err := r.at(off, n)
		if err != nil {
			return "", err
		}
		if i := bytes.IndexByte(b, 0); i >= 0 {
			if off == start {
				return r.str(b[:i]), nil
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
