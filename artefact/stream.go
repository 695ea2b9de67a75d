package artefact

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/bzip2"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"runtime"
	"strconv"
	"strings"

	"github.com/abifloor/abifloor/internal/limits"
	gzip "github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// maxLayers bounds compressions stacked on one another (a gzip of a
// gzip): real artefacts have one; a gzip quine would have no end.
const maxLayers = 2

// ErrNotArtefact is returned for a compressed file whose content is no
// archive (a changelog.gz): nothing in it to look at.
var ErrNotArtefact = errors.New("compressed, but no archive inside")

// stream reads a sequential artefact: a compressed stream, a tar, a .deb,
// an rpm or a cpio archive.
func (w *walker) stream(prefix string, r io.Reader, depth, layers int) error {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(HeadSize)
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return readErr(err)
	}
	f := Detect(head)
	switch f {
	case Gzip, Bzip2, XZ, Zstd:
		if layers >= maxLayers {
			return fmt.Errorf("%w: %d compressions stacked", ErrTooDeep, layers+1)
		}
		dr, closer, err := w.decompressor(f, br)
		if err != nil {
			return decoderErr(f, err)
		}
		defer closer()
		return w.stream(prefix, dr, depth, layers+1)
	case Tar:
		return w.tarStream(prefix, br, depth)
	case Deb:
		return w.deb(prefix, br, depth)
	case RPM:
		return w.rpm(prefix, br, depth)
	case Cpio:
		return w.cpio(prefix, br, depth)
	case Zip:
		return fmt.Errorf("%w: a zip inside a compressed stream is not read", ErrFormat)
	}
	if layers > 0 {
		return ErrNotArtefact
	}
	return fmt.Errorf("%w: not an artefact this tool reads", ErrFormat)
}

// decompressor returns the decompressed stream of br, charged to the
// walker's budget (counted), and what ends it. The decoder's memory is
// reserved from the run's decoder memory first (memory.go), and given
// back when it ends.
func (w *walker) decompressor(f Format, br *bufio.Reader) (io.Reader, func(), error) {
	head, _ := br.Peek(HeadSize)
	var need, window int64
	switch f {
	case Gzip:
		need = gzipMemory
	case Bzip2:
		need = bzip2Memory
	case Zstd:
		window, need = zstdMemory(head)
	case XZ:
		n, err := xzMemory(head)
		if err != nil {
			return nil, nil, err
		}
		need = n
	}
	release, err := w.reserve(need, string(f)+" stream")
	if err != nil {
		return nil, nil, err
	}
	dr, closer, err := decompress(w.ctx, f, br, w.opt.NoTools, need, window)
	if err != nil {
		release()
		return nil, nil, err
	}
	c := &counted{r: dr, w: w}
	w.decoding++
	return c, func() {
		w.decoding--
		closer()
		if need >= bigDecoder {
			// Its memory is garbage only once the decoder is out of
			// reach, and free for the next decoder's only after a
			// collection: without one, the next walk's window was
			// allocated beside this one's.
			closer, c.r = nil, nil
			runtime.GC()
		}
		release()
	}, nil
}

// bigDecoder is the decoder memory past which a decoder's end collects
// its memory before giving the reservation back.
const bigDecoder = 16 << 20

// decoderErr is an error of decompressor as the stream's error: the
// format's own (malformed) is wrapped, the budget's and fn's are not.
func decoderErr(f Format, err error) error {
	var s stop
	if errors.As(err, &s) || errors.Is(err, ErrDecoderMemory) {
		return err
	}
	return fmt.Errorf("%w: %s: %v", ErrFormat, f, err)
}

// zstdOptions are the options of a zstd decoder whose window may be up
// to window bytes: one goroutine and the low-memory history, so a
// frame's claim is the memory reserved for it.
func zstdOptions(window int64) []zstd.DOption {
	return []zstd.DOption{zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(uint64(window)), zstd.WithDecoderLowmem(true)}
}

// decompress returns a decoder of f over r that holds at most mem bytes
// (for zstd, a window of at most window bytes).
func decompress(ctx context.Context, f Format, r io.Reader, noTools bool, mem, window int64) (io.Reader, func(), error) {
	if f == XZ && !noTools {
		// -T1: one thread, as the Go reader; the memory limit is what
		// was reserved for the stream, so a later block claiming a
		// larger dictionary than the first is refused by xz itself.
		if t, closer, err := toolReader(ctx, "xz", r, "-dc", "-T1", fmt.Sprintf("--memlimit-decompress=%dMiB", mib(mem))); err == nil {
			return t, closer, nil
		}
	}
	switch f {
	case Gzip:
		z, err := gzip.NewReader(r)
		if err != nil {
			return nil, nil, err
		}
		return z, func() { z.Close() }, nil
	case Bzip2:
		return bzip2.NewReader(r), func() {}, nil
	case XZ:
		// Every block is held to the dictionary reserved with the
		// stream (xzMemory: the first block's, plus 2 MiB).
		z, err := xz.NewReader(newXZFrames(r, uint64(max(mem-2<<20, 0))))
		if err != nil {
			return nil, nil, err
		}
		return z, func() {}, nil
	case Zstd:
		z, err := zstd.NewReader(r, zstdOptions(window)...)
		if err != nil {
			return nil, nil, err
		}
		return zstdErrs{z, window}, z.Close, nil
	}
	return nil, nil, fmt.Errorf("unknown compression %s", f)
}

// tarEntry is what the layer logic needs of a tar header.
type tarEntry struct {
	name string // cleaned
	typ  byte
	link string
	size int64
	mode fs.FileMode
}

// tarEntries reads a tar stream and calls each for every entry with a
// safe name; unsafe names and bad links are emitted as member errors.
func (w *walker) tarEntries(prefix string, r io.Reader, each func(e tarEntry, data io.Reader) error) error {
	tr := tar.NewReader(r)
	last := ""
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil && !errors.Is(err, tar.ErrInsecurePath) {
			var s stop
			if errors.As(err, &s) {
				return err
			}
			if errors.Is(err, ErrBomb) && last != "" {
				return w.emit(&Member{Name: prefix + last, Err: err})
			}
			if last == "" {
				return fmt.Errorf("%w: tar: %w", ErrFormat, readErr(err))
			}
			// The stream broke in or after the last member: it is
			// that member's error, and nothing after it can be read.
			return w.emit(&Member{Name: prefix + last, Err: fmt.Errorf("%w: the archive breaks after this member: %v", ErrTruncated, readErr(err))})
		}
		name, nerr := cleanName(h.Name)
		if nerr != nil {
			if h.Typeflag == tar.TypeReg || h.Typeflag == tar.TypeSymlink || h.Typeflag == tar.TypeLink {
				if err := w.emit(&Member{Name: prefix + shownName(h.Name), Err: nerr}); err != nil {
					return err
				}
			}
			continue
		}
		last = name
		e := tarEntry{name: name, typ: h.Typeflag, link: h.Linkname, size: h.Size, mode: h.FileInfo().Mode()}
		if (h.Typeflag == tar.TypeSymlink || h.Typeflag == tar.TypeLink) && len(h.Linkname) >= pathMax {
			if err := w.emit(&Member{Name: prefix + name, Err: longName("a link target", len(h.Linkname))}); err != nil {
				return err
			}
			continue
		}
		switch h.Typeflag {
		case tar.TypeSymlink:
			if !linkInside(name, h.Linkname) && !w.image {
				if err := w.emit(&Member{Name: prefix + name, Err: fmt.Errorf("%w: -> %s", ErrLinkOut, h.Linkname)}); err != nil {
					return err
				}
				continue
			}
		case tar.TypeLink:
			if _, err := cleanName(h.Linkname); err != nil {
				if err := w.emit(&Member{Name: prefix + name, Err: fmt.Errorf("%w: hard link to %s", ErrLinkOut, h.Linkname)}); err != nil {
					return err
				}
				continue
			}
		}
		var data io.Reader = tr
		if sparse(h) {
			// The zeros of a sparse member's holes are made up by the
			// reader, not decompressed: they count all the same, or a
			// 631-byte .tar.gz holds 500 MB of ELF.
			data = &counted{r: tr, w: w}
			if e.typ == tar.TypeGNUSparse {
				e.typ = tar.TypeReg
			}
		}
		if err := each(e, data); err != nil {
			return err
		}
	}
}

// sparse reports whether h is a sparse member, in the old GNU form or
// GNU's PAX records.
func sparse(h *tar.Header) bool {
	if h.Typeflag == tar.TypeGNUSparse {
		return true
	}
	for k := range h.PAXRecords {
		if strings.HasPrefix(k, "GNU.sparse.") {
			return true
		}
	}
	return false
}

// tarStream reads a plain tar: every regular file is a member.
func (w *walker) tarStream(prefix string, r io.Reader, depth int) error {
	return w.tarEntries(prefix, r, func(e tarEntry, data io.Reader) error {
		if e.typ != tar.TypeReg && e.typ != '\x00' {
			// Directories, links (a hard link's data is its target's,
			// read under that name, as a scan reads a file with
			// several names once), devices.
			return nil
		}
		return w.regular(prefix, e.name, e.mode, e.size, data, depth)
	})
}

// deb reads a Debian package: an ar archive whose data.tar.* member holds
// the files. Members are named by their path in data.tar.
func (w *walker) deb(prefix string, r io.Reader, depth int) error {
	var magic [8]byte
	if _, err := io.ReadFull(r, magic[:]); err != nil {
		return readErr(err)
	}
	sawData := false
	for {
		var h [60]byte
		if _, err := io.ReadFull(r, h[:]); err != nil {
			if err == io.EOF {
				break
			}
			return fmt.Errorf("%w: ar header: %v", ErrFormat, readErr(err))
		}
		if string(h[58:60]) != "`\n" {
			return fmt.Errorf("%w: ar header without its end marker", ErrFormat)
		}
		name := strings.TrimRight(strings.TrimSpace(string(h[:16])), "/")
		size, err := strconv.ParseInt(strings.TrimSpace(string(h[48:58])), 10, 64)
		if err != nil || size < 0 {
			return fmt.Errorf("%w: ar member %s: bad size %q", ErrFormat, name, strings.TrimSpace(string(h[48:58])))
		}
		body := io.LimitReader(r, size)
		switch {
		case strings.HasPrefix(name, "data.tar"):
			sawData = true
			if err := w.stream(prefix, body, depth, 0); err != nil {
				return err
			}
		case strings.HasPrefix(name, "control.tar") && w.control != nil:
			if err := w.debControl(body); err != nil {
				return err
			}
		}
		// Skip what was not read, and the padding to an even offset.
		if _, err := io.Copy(io.Discard, body); err != nil {
			return readErr(err)
		}
		if size%2 == 1 {
			if _, err := io.ReadFull(r, make([]byte, 1)); err != nil && err != io.EOF {
				return readErr(err)
			}
		}
	}
	if !sawData {
		return fmt.Errorf("%w: a .deb without data.tar", ErrFormat)
	}
	return nil
}

// debControl reads the control file of a .deb's control.tar.* into
// w.control.
func (w *walker) debControl(r io.Reader) error {
	br := bufio.NewReader(r)
	head, _ := br.Peek(HeadSize)
	var in io.Reader = br
	if f := Detect(head); f != Tar {
		dr, closer, err := w.decompressor(f, br)
		if err != nil {
			var s stop
			if errors.As(err, &s) || errors.Is(err, ErrDecoderMemory) {
				return err
			}
			return fmt.Errorf("%w: control.tar: %v", ErrFormat, err)
		}
		defer closer()
		in = dr
	}
	tr := tar.NewReader(in)
	for {
		h, err := tr.Next()
		if err != nil {
			return nil // the control file is a claim; its absence is not an error
		}
		if path.Clean("/"+h.Name) == "/control" && h.Size < 1<<20 {
			b, err := io.ReadAll(io.LimitReader(tr, 1<<20))
			if err == nil {
				*w.control = string(b)
			}
			return nil
		}
	}
}

// cpio reads a newc ("070701") or crc ("070702") cpio archive, the
// payload of an rpm.
func (w *walker) cpio(prefix string, r io.Reader, depth int) error {
	last := ""
	for {
		var h [110]byte
		if _, err := io.ReadFull(r, h[:]); err != nil {
			if last == "" {
				return fmt.Errorf("%w: cpio: %v", ErrFormat, readErr(err))
			}
			return w.emit(&Member{Name: prefix + last, Err: fmt.Errorf("%w: the archive breaks after this member", ErrTruncated)})
		}
		if m := string(h[:6]); m != "070701" && m != "070702" {
			err := fmt.Errorf("%w: cpio: bad magic %q", ErrFormat, m)
			if last == "" {
				return err
			}
			return w.emit(&Member{Name: prefix + last, Err: fmt.Errorf("%w after this member", err)})
		}
		field := func(i int) (int64, bool) {
			v, err := strconv.ParseUint(string(h[6+8*i:14+8*i]), 16, 32)
			return int64(v), err == nil
		}
		mode, ok1 := field(1)
		size, ok2 := field(6)
		nsize, ok3 := field(11)
		if !ok1 || !ok2 || !ok3 || nsize == 0 || nsize > 64<<10 {
			return fmt.Errorf("%w: cpio header after %q", ErrFormat, last)
		}
		nameb := make([]byte, nsize+(4-(110+nsize)%4)%4)
		if _, err := io.ReadFull(r, nameb); err != nil {
			return fmt.Errorf("%w: cpio name: %v", ErrFormat, readErr(err))
		}
		raw := string(bytes.TrimRight(nameb[:nsize], "\x00"))
		if raw == "TRAILER!!!" {
			return nil
		}
		pad := (4 - size%4) % 4
		body := io.LimitReader(r, size)
		name, nerr := cleanName(raw)
		var err error
		switch {
		case nerr != nil:
			err = w.emit(&Member{Name: prefix + shownName(raw), Err: nerr})
		case mode&0o170000 == 0o100000 && size > 0:
			last = name
			err = w.regular(prefix, name, fs.FileMode(mode&0o777), size, body, depth)
		case mode&0o170000 == 0o120000 && size < 4096:
			last = name
			t, _ := io.ReadAll(body)
			if !linkInside(name, string(t)) && !w.image {
				err = w.emit(&Member{Name: prefix + name, Err: fmt.Errorf("%w: -> %s", ErrLinkOut, t)})
			}
		}
		if err != nil {
			return err
		}
		if _, err := io.Copy(io.Discard, body); err != nil {
			return w.emit(&Member{Name: prefix + name, Err: readErr(err)})
		}
		if _, err := io.CopyN(io.Discard, r, pad); err != nil {
			return w.emit(&Member{Name: prefix + name, Err: readErr(err)})
		}
	}
}

// maxXZDict bounds the dictionary an xz stream may claim: the Go reader
// allocates what the header says (up to 4 GiB), and xz -9 (the highest
// preset, the most Debian uses) needs 64 MiB. The xz program gets a memory
// limit of what was reserved for the stream (xzMemory).
const maxXZDict = limits.XZDict

// maxZstdWindow bounds the window a zstd frame may ask for: zstd -19 uses
// 8 MiB, --ultra -22 128 MiB; --long=28 and beyond is refused.
const maxZstdWindow = limits.ZstdWindow

// xzDictOK reads the LZMA2 dictionary size from the first block header of
// an xz stream (after the 12-byte stream header) and refuses a huge one.
func xzDictOK(h []byte) error {
	_, err := xzDict(h)
	return err
}

// xzDict is the LZMA2 dictionary size of the first block of an xz stream
// starting with h, 0 when h does not tell; a huge one is refused.
func xzDict(h []byte) (uint64, error) {
	if len(h) < 14 || h[12] == 0 { // no block: an empty stream, or too short to tell
		return 0, nil
	}
	end := 12 + (int(h[12])+1)*4
	flags := h[13]
	i := 14
	varint := func() (uint64, bool) {
		var v uint64
		for s := 0; i < len(h) && i < end && s < 63; s += 7 {
			b := h[i]
			i++
			v |= uint64(b&0x7f) << s
			if b < 0x80 {
				return v, true
			}
		}
		return 0, false
	}
	if flags&0x40 != 0 {
		varint()
	}
	if flags&0x80 != 0 {
		varint()
	}
	for f := 0; f <= int(flags&3); f++ {
		id, ok1 := varint()
		n, ok2 := varint()
		if !ok1 || !ok2 || i > len(h) || n > uint64(len(h)-i) { // n is a claim: compared, never added
			return 0, nil // the reader will say what is wrong
		}
		if id == 0x21 && n == 1 {
			d := h[i]
			if d > 40 {
				return 0, fmt.Errorf("xz: bad dictionary size code %d", d)
			}
			size := uint64(2|(d&1)) << (d/2 + 11)
			if size > maxXZDict {
				return 0, fmt.Errorf("xz: the stream claims a %d MiB dictionary, more than %d MiB", size>>20, maxXZDict>>20)
			}
			return size, nil
		}
		i += int(n)
	}
	return 0, nil
}

// zstdErrs names the zstd decoder's refusal of a large window: larger
// than maxZstdWindow, or than the first frame's (window).
type zstdErrs struct {
	z      *zstd.Decoder
	window int64
}

func (r zstdErrs) Read(p []byte) (int, error) {
	n, err := r.z.Read(p)
	if errors.Is(err, zstd.ErrWindowSizeExceeded) || errors.Is(err, zstd.ErrDecoderSizeExceeded) {
		if r.window < maxZstdWindow {
			err = fmt.Errorf("%w: zstd: a frame asks for a window of more than %d MiB, larger than the stream's first frame: %v", ErrFormat, r.window>>20, err)
		} else {
			err = fmt.Errorf("%w: zstd: the frame asks for a window of more than %d MiB (zstd --ultra -22 uses 128 MiB): %v", ErrFormat, maxZstdWindow>>20, err)
		}
	}
	return n, err
}
