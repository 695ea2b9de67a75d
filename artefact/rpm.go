package artefact

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strings"

	"github.com/abifloor/abifloor/internal/limits"
)

// An rpm is a 96-byte lead, a signature header padded to 8 bytes, the
// main header, then a compressed cpio payload. A header is a 16-byte
// intro (magic, entry count, store size), the entries (tag, type, offset,
// count: 16 bytes each) and the data store the entries point into. Every
// number in it is a claim: a Requires array claiming 2³²−1 strings over a
// 64 MiB store of zeros, 65 KB gzipped, took 40 s and 4 GB when the
// strings were collected. So each entry's count is checked against the
// bytes left in the store after its offset (rpmEntry), the main header is
// read only up to what the artefact may hold (HoldLimit), and its strings
// are written out as they are walked, never collected.

// rpmMagic opens every rpm header.
var rpmMagic = []byte{0x8e, 0xad, 0xe8, 0x01}

// Bounds of rpm's own (lib/header_internal.h: HEADER_TAGS_MAX,
// HEADER_DATA_MAX): a header past them is not an rpm header.
const (
	rpmMaxEntries = 0xffff
	rpmMaxStore   = 256 << 20
)

// rpmMaxRead bounds the main header read for an rpm's claims, whatever
// the artefact's size: the largest Fedora headers (kernel-devel, texlive
// collections, tens of thousands of files) are a few MiB.
const rpmMaxRead = limits.RPMHeader

// rpm tag types (lib/rpmtag.h) and the least bytes one element takes in
// the store: a string is at least its NUL.
var rpmTypeSize = [...]uint64{
	0: 0, // NULL
	1: 1, // CHAR
	2: 1, // INT8
	3: 2, // INT16
	4: 4, // INT32
	5: 8, // INT64
	6: 1, // STRING
	7: 1, // BIN
	8: 1, // STRING_ARRAY
	9: 1, // I18NSTRING
}

const (
	rpmString      = 6
	rpmStringArray = 8
	rpmI18NString  = 9
)

// Tags of the Requires: REQUIRENAME, REQUIREVERSION (string arrays).
const (
	rpmRequireName    = 1049
	rpmRequireVersion = 1050
)

// rpmEntry is one checked entry of a header's index.
type rpmEntry struct {
	tag, typ   uint32
	off, count uint64
}

// rpmEntries checks every entry of a header against its store: a known
// type, an offset inside the store, and a count whose elements fit in
// the bytes left after it (a string array of N strings needs N bytes, an
// INT32 array 4N). What is wrong is said with the entry's place and tag.
func rpmEntries(index []byte, store int) ([]rpmEntry, error) {
	es := make([]rpmEntry, 0, len(index)/16)
	for i := 0; i+16 <= len(index); i += 16 {
		e := rpmEntry{
			tag:   binary.BigEndian.Uint32(index[i:]),
			typ:   binary.BigEndian.Uint32(index[i+4:]),
			off:   uint64(binary.BigEndian.Uint32(index[i+8:])),
			count: uint64(binary.BigEndian.Uint32(index[i+12:])),
		}
		n := i / 16
		if e.typ >= uint32(len(rpmTypeSize)) {
			return nil, fmt.Errorf("entry %d (tag %d): unknown type %d", n, e.tag, e.typ)
		}
		if e.count == 0 {
			es = append(es, e)
			continue
		}
		if e.off >= uint64(store) {
			return nil, fmt.Errorf("entry %d (tag %d): offset %d past the %d-byte store", n, e.tag, e.off, store)
		}
		// count < 2³², size ≤ 8: the product cannot overflow.
		if need, left := e.count*rpmTypeSize[e.typ], uint64(store)-e.off; need > left {
			return nil, fmt.Errorf("entry %d (tag %d) claims %d elements of type %d, at least %d bytes, and the store has %d after its offset", n, e.tag, e.count, e.typ, need, left)
		}
		es = append(es, e)
	}
	return es, nil
}

// rpmStrings walks the count NUL-terminated strings of e in store, one
// at a time (next returns false at the end): a checked entry's walk is
// at most the store's length, and nothing is collected.
type rpmStrings struct {
	store []byte
	off   int
	left  uint64
	err   error
}

func stringsOf(es []rpmEntry, tag uint32, store []byte) (*rpmStrings, error) {
	for _, e := range es {
		if e.tag != tag {
			continue
		}
		if e.typ != rpmStringArray && e.typ != rpmString && e.typ != rpmI18NString {
			return nil, fmt.Errorf("tag %d: type %d, not strings", tag, e.typ)
		}
		return &rpmStrings{store: store, off: int(e.off), left: e.count}, nil
	}
	return &rpmStrings{}, nil
}

func (s *rpmStrings) next() (string, bool) {
	if s.left == 0 || s.err != nil {
		return "", false
	}
	end := bytes.IndexByte(s.store[s.off:], 0)
	if end < 0 {
		s.err = fmt.Errorf("a string runs past the end of the store at offset %d", s.off)
		return "", false
	}
	v := string(s.store[s.off : s.off+end])
	s.off += end + 1
	s.left--
	return v, true
}

// rpmRequires returns the Requires of an rpm header (index entries, then
// the store), one "name version" a line: at most a line per two bytes of
// the store, as every name but an empty one (skipped) takes two.
func rpmRequires(index, store []byte) (string, error) {
	es, err := rpmEntries(index, len(store))
	if err != nil {
		return "", err
	}
	names, err := stringsOf(es, rpmRequireName, store)
	if err != nil {
		return "", err
	}
	vers, err := stringsOf(es, rpmRequireVersion, store)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for {
		n, ok := names.next()
		if !ok {
			break
		}
		v, _ := vers.next()
		if n == "" {
			continue
		}
		b.WriteString(n)
		if v != "" {
			b.WriteString(" " + v)
		}
		b.WriteByte('\n')
	}
	if names.err != nil {
		return "", fmt.Errorf("tag %d: %v", rpmRequireName, names.err)
	}
	if vers.err != nil {
		return "", fmt.Errorf("tag %d: %v", rpmRequireVersion, vers.err)
	}
	return b.String(), nil
}

// rpm reads an RPM package; the main header is read when its claims are
// wanted (Options.Control), else skipped like the signature.
func (w *walker) rpm(prefix string, r io.Reader, depth int) error {
	if _, err := io.CopyN(io.Discard, r, 96); err != nil {
		return fmt.Errorf("%w: rpm lead: %v", ErrFormat, readErr(err))
	}
	for i, what := range []string{"signature header", "main header"} {
		var h [16]byte
		if _, err := io.ReadFull(r, h[:]); err != nil {
			return fmt.Errorf("%w: rpm %s: %v", ErrFormat, what, readErr(err))
		}
		if !bytes.Equal(h[:4], rpmMagic) {
			return fmt.Errorf("%w: rpm %s: bad magic % x", ErrFormat, what, h[:4])
		}
		n := int64(binary.BigEndian.Uint32(h[8:]))
		size := int64(binary.BigEndian.Uint32(h[12:]))
		if n > rpmMaxEntries || size > rpmMaxStore {
			return fmt.Errorf("%w: rpm %s claims %d entries and %d bytes, more than rpm reads (%d, %d MiB)", ErrFormat, what, n, size, rpmMaxEntries, rpmMaxStore>>20)
		}
		total := n*16 + size
		if i == 0 && total%8 != 0 {
			total += 8 - total%8
		}
		if i == 0 || w.control == nil {
			if _, err := io.CopyN(io.Discard, r, total); err != nil {
				return fmt.Errorf("%w: rpm %s: %v", ErrFormat, what, readErr(err))
			}
			continue
		}
		b, err := w.rpmHeader(r, total)
		if err != nil {
			return err
		}
		req, err := rpmRequires(b[:n*16], b[n*16:])
		if err != nil {
			return fmt.Errorf("%w: rpm main header: %v", ErrFormat, err)
		}
		*w.control = req
	}
	return w.stream(prefix, r, depth, 0)
}

// rpmHeader reads the main header's total bytes (entries and store) for
// its claims: no more than the artefact may hold of one part of it
// (HoldLimit: 32 times its size on disk, plus 4 MiB) nor rpmMaxRead, and,
// read from a decompressed stream, no more than the run's decompression
// budget has left: a header past either is refused before it is read.
func (w *walker) rpmHeader(r io.Reader, total int64) ([]byte, error) {
	limit, why := min(HoldLimit(w.size), rpmMaxRead), HoldWhy(w.size)
	if limit == rpmMaxRead {
		why = fmt.Sprintf("%d MiB", rpmMaxRead>>20)
	}
	if total > limit {
		return nil, fmt.Errorf("%w: rpm main header claims %d bytes, more than the %d read of it (%s)", ErrFormat, total, limit, why)
	}
	if w.decoding > 0 && total > w.allowance() {
		return nil, fmt.Errorf("%w: the rpm main header claims %d bytes, more than the %d the artefact's allowance has left (%d times its size, and the run's shared %d bytes)", ErrBomb, total, w.allowance(), w.opt.Ratio, w.pool.grant)
	}
	b, err := readWhole(nil, r, total)
	if err != nil {
		return nil, fmt.Errorf("%w: rpm main header: %v", ErrFormat, readErr(err))
	}
	return b, nil
}
