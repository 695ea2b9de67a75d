// Package artefact reads the files inside the artefacts binaries ship in
// (wheels and other zips, tarballs compressed with gzip, bzip2, xz or zstd,
// npm packages, .deb, .rpm, OCI image layouts and `docker save` tarballs)
// in place, as a stream of members, without extracting anything to disk.
//
// An artefact is recognised by its content (Detect), never by its name.
// Walk calls a function for every regular file inside it; the members
// Options.Select accepts (ELF files by default) come with their whole
// content in memory, so a reader such as elfx can use a bytes.Reader as
// its io.ReaderAt. Nothing else is kept: memory stays bounded by the
// largest selected member (Options.MaxMember) whatever the artefact's size,
// and a member over Options.SparseOver keeps only the parts a floor reads,
// compressed, outside the Go heap (sparse.go, arena.go).
//
// Sniff tells artefacts from a file's first bytes without opening it
// again (a tree walker's filter); Options.Control receives what a package
// says of itself (a .deb's control file, an rpm's Requires); WalkView also
// returns the file system an image's layers make.
//
// Container images are read as the file system their layers make, applied
// in order with whiteouts and opaque directories (see image.go). Members
// are named by their path inside the artefact, "/"-rooted: a tool shows
// them as the artefact's path, "!" and Name ("pkg.whl!/numpy/core/x.so"); a member of an
// artefact inside another is "outer.zip!/inner.tar.gz!/bin/x".
//
// Hostile input is data: a member whose name climbs out of the artefact,
// a symbolic link pointing outside it, a member larger than the limit, a
// truncated stream, a decompression bomb or an archive nested too deep ends
// in an error on that member (Member.Err), and the rest is still read where
// the format allows it. Nothing is ever written.
package artefact

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/abifloor/abifloor/internal/input"
	"github.com/abifloor/abifloor/internal/limits"
)

// Format is the kind of artefact a file is.
type Format string

// The formats Detect recognises.
const (
	Zip    Format = "zip"
	Tar    Format = "tar"
	Gzip   Format = "gzip"
	Bzip2  Format = "bzip2"
	XZ     Format = "xz"
	Zstd   Format = "zstd"
	Deb    Format = "deb" // an ar archive whose first member is debian-binary
	RPM    Format = "rpm"
	Cpio   Format = "cpio"       // newc, as in rpm payloads
	Layout Format = "oci-layout" // a directory; see IsLayout
)

// HeadSize is how many leading bytes Detect needs to tell every format
// (tar's magic is at offset 257).
const HeadSize = 264

// Detect says which artefact format a file starting with head is, or ""
// when it is none (an ELF file, a script, a text file).
func Detect(head []byte) Format {
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")), bytes.HasPrefix(head, []byte("PK\x05\x06")):
		return Zip
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return Gzip
	case bytes.HasPrefix(head, []byte("BZh")) && len(head) > 3 && head[3] >= '1' && head[3] <= '9':
		return Bzip2
	case bytes.HasPrefix(head, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		return XZ
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return Zstd
	case bytes.HasPrefix(head, []byte("!<arch>\ndebian-binary")):
		// Only a .deb: a static library (.a) is an ar archive of
		// object files, which a scan does not look into.
		return Deb
	case bytes.HasPrefix(head, []byte("070701")), bytes.HasPrefix(head, []byte("070702")):
		return Cpio
	case bytes.HasPrefix(head, []byte{0xed, 0xab, 0xee, 0xdb}):
		return RPM
	case len(head) >= 262 && string(head[257:262]) == "ustar":
		return Tar
	}
	return ""
}

// IsLayout reports whether dir is an OCI image layout: a directory with
// an oci-layout file and an index.json.
func IsLayout(dir string) bool {
	for _, f := range []string{"oci-layout", "index.json"} {
		st, err := os.Stat(path.Join(dir, f))
		if err != nil || !st.Mode().IsRegular() {
			return false
		}
	}
	return true
}

// Member is one regular file inside an artefact, or an error about one.
type Member struct {
	// Name is the member's path inside the artefact, cleaned and
	// "/"-rooted ("/usr/bin/ls"); for a name that was refused, the name
	// as the archive spells it (its first bytes and "..." when it is too
	// long to be a path: the error says how long).
	Name string
	Size int64
	Mode fs.FileMode
	// Content reads the member when Options.Select accepted its first
	// bytes; nil otherwise. It is Data, or for an ELF member larger than
	// Options.SparseOver a *Sparse holding only the parts a floor reads.
	Content io.ReaderAt
	// Data is the whole content when it was read whole.
	Data []byte
	// Err is what went wrong with this member; the message does not
	// repeat the name.
	Err error
}

// Options tune a Walk. The zero value reads ELF members, within the
// bounds internal/limits sets for an artefact of its size (limits.For):
// a caller says what it wants read and how it holds it, not how much a
// walk may cost.
type Options struct {
	// Select says, from a member's first bytes (up to HeadSize), whether
	// its whole content is wanted. Nil selects ELF files.
	Select func(head []byte) bool
	// Want, when set, names members read whole too whatever their
	// content (a package.json, a wheel's WHEEL), up to 1 MiB.
	Want func(name string) bool
	// Control, when set, receives what a package says of itself as it
	// is read: a .deb's control file, an rpm's Requires (one
	// "name version" a line).
	Control *string
	// Progress, when set, is called with the member about to be read,
	// and again for every MiB of it read and once it is read, with the bytes read so far of
	// the artefact itself (compressed, as on disk) and its size. The
	// count is of bytes read: a zip's unwanted members are never read,
	// so it may end below the size.
	Progress func(member string, read, total int64)
	// SparseOver is the size above which a selected ELF member keeps
	// only its non-executable parts (default DefaultSparseOver; see
	// Sparse). Negative reads every member whole.
	SparseOver int64
	// SpillOver, when positive, is the size above which a selected
	// member read whole goes to a private temporary file instead of
	// memory (unlinked at once; closed when fn returns): its Content
	// reads the file and its Data is nil. For a reader that needs a
	// member whole but only some of its bytes (abi reads a library's
	// symbol tables and DWARF, not its code).
	SpillOver int64
	// Hold is set by a reader that holds what it decompresses (abi reads
	// one member whole): the walk decompresses at most what a reader may
	// hold of the artefact (limits.For(size).Hold: HoldRatio times its
	// size plus HoldSlack), not what a scan, which keeps members sparse,
	// may stream past (limits.ExpandRatio times it, and the run's
	// shared limits.RunExpand).
	Hold bool
	// Budget, when set, is the run's shared decompression allowance
	// (NewBudget): every walk given it charges what it decompresses past
	// its own allowance to it, so the shared part is granted once a run,
	// not once an artefact, and the walks of parallel workers share it.
	// Nil gives this walk an allowance of its own.
	Budget *Budget
	// MaxMember is the largest member read in full (default
	// DefaultMaxMember), and Depth how deep artefacts inside artefacts
	// are opened (default DefaultDepth: a .tar.gz inside a .zip is read,
	// a zip inside that is an error). A caller lowers them only for a
	// limit of its own (bind --image's --max-memory).
	MaxMember int64
	Depth     int

	// The bounds below come from internal/limits; tests set them to
	// reach a bound with small inputs. ratio and minExpand bound
	// decompression: the bytes decompressed from an artefact may not
	// exceed ratio times its size, plus minExpand (see Hold). Past it
	// the stream is a bomb and its reading stops with an error.
	ratio, minExpand int64
	// decoderMemory is the memory the decoders of a walk without a
	// Budget may hold at once (default DefaultDecoderMemory); a run's
	// Budget sets its own (Budget.SetDecoderMemory).
	decoderMemory int64
	// noTools keeps to the Go decompressors (by default the xz program
	// decompresses xz streams when it is on PATH: see tool.go).
	noTools bool
}

// Defaults of Options.
const (
	DefaultMaxMember = limits.MaxMember
	DefaultDepth     = limits.Depth
	DefaultRatio     = limits.ExpandRatio
	DefaultMinExpand = limits.RunExpand
)

// What a reader holds of one member (a floor's tables, an ABI's member
// and its DWARF) is bounded by the artefact's size on disk: HoldRatio
// times it plus HoldSlack (HoldLimit). Real packages expand 1.5 to 6
// times, the most of 19 large Debian packages 14 (libx265), and what a
// reader holds is a part of that; a 245 KB .tar.gz held a library whose
// symbol name was 240 MiB. The decompression allowance (ratio) is larger:
// it bounds what is streamed past, not what is held.
const (
	HoldRatio = limits.HoldRatio
	HoldSlack = limits.HoldSlack
)

// HoldLimit is what a reader may hold of a member of an artefact of size
// bytes on disk.
func HoldLimit(size int64) int64 { return limits.For(size).Hold }

// HoldWhy says where HoldLimit(size) comes from, for errors.
func HoldWhy(size int64) string {
	return limits.For(size).HoldWhy()
}

func (o *Options) fill() {
	if o.Select == nil {
		o.Select = func(h []byte) bool { return bytes.HasPrefix(h, []byte("\x7fELF")) }
	}
	if o.MaxMember <= 0 {
		o.MaxMember = DefaultMaxMember
	}
	if o.Depth <= 0 {
		o.Depth = DefaultDepth
	}
	if o.SparseOver == 0 {
		o.SparseOver = DefaultSparseOver
	}
	ratio, slack := int64(DefaultRatio), int64(DefaultMinExpand)
	if o.Hold {
		ratio, slack = HoldRatio, HoldSlack
	}
	if o.ratio <= 0 {
		o.ratio = ratio
	}
	if o.minExpand <= 0 {
		o.minExpand = slack
	}
}

// Errors a member or an artefact can end in. They are wrapped with
// details; test them with errors.Is.
var (
	ErrUnsafeName = errors.New("name climbs out of the artefact")
	ErrLinkOut    = errors.New("symbolic link points outside the artefact")
	ErrTooLarge   = errors.New("member too large")
	ErrTruncated  = errors.New("truncated")
	ErrBomb       = errors.New("decompression bomb")
	ErrTooDeep    = errors.New("artefact nested too deep")
	ErrFormat     = errors.New("malformed artefact")
)

// Walk reads the artefact at path (a file Detect recognises, or an OCI
// layout directory) and calls fn for every regular file inside it, in
// archive order. An error returned by fn stops the walk and is returned.
// The returned error is about the artefact as a whole (unreadable, not an
// artefact); problems with members reach fn as Member.Err.
func Walk(ctx context.Context, p string, opt Options, fn func(*Member) error) error {
	opt.fill()
	return walkWith(ctx, p, opt, fn, nil)
}

func walkWith(ctx context.Context, p string, opt Options, fn func(*Member) error, setup func(*walker)) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	if st.IsDir() {
		if !IsLayout(p) {
			return &input.FileError{Path: p, Err: fmt.Errorf("%w: a directory without oci-layout and index.json", ErrFormat)}
		}
		return outer(p, retrying(ctx, opt, fn, dirSize(p), setup, func(w *walker) error { return w.layout(p) }))
	}
	if !st.Mode().IsRegular() {
		return &os.PathError{Op: "open", Path: p, Err: errors.New("not a regular file")}
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0) // a FIFO swapped in since the Stat must not block
	if err != nil {
		return err
	}
	defer f.Close()
	return outer(p, retrying(ctx, opt, fn, st.Size(), setup, func(w *walker) error { return w.file(w.counting(f), st.Size()) }))
}

// outer is the error a walk returns: fn's own (or cancellation) as fn
// returned it, else the artefact's, named by p when there is one.
func outer(p string, err error) error {
	var s stop
	if errors.As(err, &s) {
		return s.err
	}
	if err != nil && p != "" {
		return &input.FileError{Path: p, Err: err}
	}
	return err
}

type walker struct {
	ctx context.Context
	opt Options
	fn  func(*Member) error
	// zbuf holds the first compressed bytes of a zip member for
	// zipSkip, and heads inflates their heads: one of each for the walk.
	zbuf  []byte
	heads headInflater
	// own is what is left of the walk's own allowance (ratio times the
	// artefact's size); past it, bytes are charged to pool, the run's.
	own    int64
	limit  int64
	pool   *Budget
	bombed bool
	// pooled is what the walk charged to pool, given back when the walk
	// is read again alone.
	pooled int64
	// held is the decoder memory the walk holds, slack the part of it
	// not yet taken by a nested decoder; alone is set while the walk is
	// read alone (memory.go).
	held, slack int64
	alone       bool
	// decoding counts the decompressors open in the walk.
	decoding int
	// emitted counts the members handed to fn; skip, on a walk read
	// again, is how many of them the first reading handed already.
	emitted, skip int
	// replayKeep, while a layer is read again for hard links' targets,
	// names the members emitted; other members (errors already
	// reported in the first pass) are not emitted again.
	replayKeep map[string]bool
	// image is set while reading an image's layers, where absolute
	// symbolic links point inside the image.
	image bool
	// view, when set, collects the visible entries of an image.
	view *View
	// control, when set, receives a package's own claims (a .deb's
	// control file, an rpm's Requires).
	control *string
	// size is the artefact's size on disk; read counts the bytes read
	// of it, for Options.Progress (the xz program's feeder reads too).
	size int64
	read atomic.Int64
	// lastErr is the member that last got an error, so a stream that
	// breaks in a member is reported once.
	lastErr string
}

func newWalker(ctx context.Context, opt Options, fn func(*Member) error, size int64) *walker {
	own := opt.ratio * max(size, 0)
	if size > 0 && own/size != opt.ratio {
		own = 1<<63 - 1 // overflow: an artefact of exabytes
	}
	pool := opt.Budget
	if pool == nil {
		pool = NewBudget(opt.minExpand)
		if opt.decoderMemory > 0 {
			pool.SetDecoderMemory(opt.decoderMemory)
		}
	}
	return &walker{ctx: ctx, opt: opt, fn: fn, own: own, limit: own, pool: pool, control: opt.Control, size: size}
}

// counting returns r counting its reads for Options.Progress.
func (w *walker) counting(r io.ReaderAt) io.ReaderAt {
	if w.opt.Progress == nil {
		return r
	}
	return countingAt{r, &w.read}
}

type countingAt struct {
	r io.ReaderAt
	n *atomic.Int64
}

func (c countingAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// countingReader is countingAt for a stream (an image layout's blob).
type countingReader struct {
	io.ReadCloser
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// countingBlobs counts the reads of an image layout's blobs.
type countingBlobs struct {
	b blobs
	n *atomic.Int64
}

func (c countingBlobs) open(name string) (io.ReadCloser, error) {
	rc, err := c.b.open(name)
	if err != nil {
		return nil, err
	}
	return countingReader{rc, c.n}, nil
}

// progress calls Options.Progress. A zip's directory and a member's
// local header are read twice, so the count may pass the size: it is
// shown as the size.
func (w *walker) progress(member string) {
	w.opt.Progress(member, min(w.read.Load(), w.size), w.size)
}

// progressEvery is how much of a member is read between Progress calls.
const progressEvery = 1 << 20

// memberProgress calls Options.Progress as a member's content is read,
// so a large member (a 129 MB libLLVM) does not freeze the report.
type memberProgress struct {
	r    io.Reader
	w    *walker
	name string
	left int
}

func (m *memberProgress) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	if m.left -= n; m.left <= 0 {
		m.left = progressEvery
		m.w.progress(m.name)
	}
	return n, err
}

// file reads a random-access artefact: the top level, or a member held in
// memory.
func (w *walker) file(r io.ReaderAt, size int64) error {
	head := make([]byte, HeadSize)
	n, err := r.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return err
	}
	head = head[:n]
	switch Detect(head) {
	case Zip:
		return w.zip("", newReadAhead(r, size), size, 0)
	case Tar:
		return w.tarFile("", r, size, 0)
	case "":
		return fmt.Errorf("%w: not an artefact this tool reads", ErrFormat)
	}
	return w.stream("", io.NewSectionReader(r, 0, size), 0, 0)
}

// emit hands a member to fn, checking cancellation.
func (w *walker) emit(m *Member) error {
	if err := w.ctx.Err(); err != nil {
		return stop{err}
	}
	if w.replayKeep != nil && !w.replayKept(m.Name) {
		return nil
	}
	if w.opt.Progress != nil && m.Size >= progressEvery {
		w.progress(m.Name) // a large member read
	}
	if m.Err != nil {
		if m.Name == w.lastErr && errors.Is(m.Err, ErrTruncated) {
			return nil
		}
		w.lastErr = m.Name
	}
	w.emitted++
	if w.skip > 0 {
		w.skip--
		return nil
	}
	if err := w.fn(m); err != nil {
		return stop{err}
	}
	return nil
}

func (w *walker) replayKept(name string) bool {
	if w.replayKeep[name] {
		return true
	}
	for i := range len(name) {
		if name[i] == '!' && w.replayKeep[name[:i]] {
			return true // a member of a nested artefact
		}
	}
	return false
}

// cleanName turns an archive's member name into a "/"-rooted path, or
// refuses it: absolute names, names with ".." that climb above the
// root, and names too long to be a path. Tar's "./usr/bin" and zip's "usr/bin" are both "/usr/bin".
func cleanName(name string) (string, error) {
	if len(name) >= pathMax {
		return "", longName("a name", len(name))
	}
	if strings.HasPrefix(name, "/") {
		return "", fmt.Errorf("%w: absolute name", ErrUnsafeName)
	}
	if strings.ContainsRune(name, 0) {
		return "", fmt.Errorf("%w: NUL in name", ErrUnsafeName)
	}
	depth := 0
	for part := range strings.SplitSeq(name, "/") {
		switch part {
		case "", ".":
		case "..":
			depth--
			if depth < 0 {
				return "", fmt.Errorf("%w: %q", ErrUnsafeName, name)
			}
		default:
			depth++
		}
	}
	return path.Clean("/" + name), nil
}

// linkInside reports whether a symbolic link at name (cleaned) whose
// target is target stays inside the artefact, read as it installs: an
// absolute target resolves against the artefact's own root (Debian policy
// makes links between top-level directories absolute: /etc/rmt ->
// /usr/sbin/rmt), and a target that another package ships is no error.
// Only a resolution that climbs out of the root is: "../../../etc" from
// /lib, or "/../etc".
func linkInside(name, target string) bool {
	if rest, abs := strings.CutPrefix(target, "/"); abs {
		_, err := cleanName(strings.TrimLeft(rest, "/"))
		return err == nil
	}
	_, err := cleanName(path.Join(path.Dir(name[1:]), target))
	return err == nil && !strings.HasPrefix(path.Join(path.Dir(name[1:]), target), "..")
}

// regular handles one regular member read from a stream r (exactly size
// bytes, unless truncated): it peeks at the head, reads the whole member
// when selected, opens a nested artefact, and emits. The stream is left
// wherever the reading stopped; the caller's format reader skips the rest.
func (w *walker) regular(prefix, name string, mode fs.FileMode, size int64, r io.Reader, depth int) error {
	m := &Member{Name: prefix + name, Size: size, Mode: mode}
	// decoded: the member's bytes are charged to the budget as they are
	// read (a decompressed stream, or a sparse member's made-up zeros).
	_, sparseZeros := r.(*counted)
	decoded := w.decoding > 0 || sparseZeros
	if w.opt.Progress != nil {
		w.progress(m.Name)
		r = &memberProgress{r: r, w: w, name: m.Name, left: progressEvery}
	}
	head := make([]byte, min(int64(HeadSize), size))
	n, err := io.ReadFull(r, head)
	if err != nil {
		m.Err = readErr(err)
		return w.emit(m)
	}
	head = head[:n]
	sel := w.opt.Select(head)
	if !sel && w.opt.Want != nil && size <= 1<<20 && w.opt.Want(m.Name) {
		if data, err := readWhole(head, r, size); err != nil {
			m.Err = readErr(err)
		} else {
			m.Data, m.Content = data, bytes.NewReader(data)
		}
		return w.emit(m)
	}
	nested := !sel && Detect(head) != ""
	if !sel && !nested {
		return w.emit(m)
	}
	if nested && depth+1 > w.opt.Depth {
		m.Err = fmt.Errorf("%w (%d levels)", ErrTooDeep, depth+1)
		return w.emit(m)
	}
	if nested && Detect(head) != Zip {
		// Streams inside a stream are read as they come; only a zip
		// needs its whole self (its directory is at its end).
		err := w.stream(m.Name+"!", io.MultiReader(bytes.NewReader(head), r), depth+1, 0)
		return w.inner(m, err)
	}
	if size > w.opt.MaxMember {
		m.Err = fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, size, w.opt.MaxMember)
		return w.emit(m)
	}
	if nested {
		// A zip needs random access: it is spilled to a private
		// temporary file, not held in memory (a 293-byte .tar.gz
		// could claim 512 MiB of zip).
		f, err := spill(head, r, size, "a nested zip")
		if err != nil {
			m.Err = readErr(err)
			return w.emit(m)
		}
		defer f.Close()
		return w.inner(m, w.zip(m.Name+"!", newReadAhead(f, size), size, depth+1))
	}
	if sel && w.opt.SparseOver > 0 && size > w.opt.SparseOver && size > sparseHead {
		got := make([]byte, sparseHead)
		copy(got, head)
		if _, err := io.ReadFull(r, got[n:]); err != nil {
			m.Err = readErr(err)
			return w.emit(m)
		}
		if rs, ok := sparseRanges(got, size); ok {
			sp, err := readSparse(got, r, size, rs)
			if err != nil {
				m.Err = readErr(err)
			} else {
				m.Content = sp
			}
			return w.emit(m)
		}
		head = got
	}
	if sel && w.opt.SpillOver > 0 && size > w.opt.SpillOver {
		if decoded && size-int64(len(head)) > w.allowance() {
			m.Err = w.claimErr(size)
			return w.emit(m)
		}
		f, err := spill(head, r, size, "a large member")
		if err != nil {
			m.Err = readErr(err)
			return w.emit(m)
		}
		defer f.Close()
		m.Content = f
		return w.emit(m)
	}
	var data []byte
	if decoded {
		// Every byte of it is charged: one claiming more than the
		// budget has left is a bomb, refused before any is read; one
		// within it gets its whole buffer at once, whose pages cost
		// memory only as the bytes arrive (growing by doubling cost
		// one and a half times the member).
		if size-int64(len(head)) > w.allowance() {
			m.Err = w.claimErr(size)
			return w.emit(m)
		}
		data = make([]byte, len(head), size)
		copy(data, head)
		_, err = io.ReadFull(r, data[len(head):size])
		data = data[:size]
	} else {
		data, err = readWhole(head, r, size)
	}
	if err != nil {
		m.Err = readErr(err)
		return w.emit(m)
	}
	m.Data, m.Content = data, bytes.NewReader(data)
	return w.emit(m)
}

// readWhole returns the size bytes of a member: head, read already, then
// the rest from r. size is the archive's claim: the buffer grows as the
// bytes arrive (from 1 MiB, doubling), so a header claiming more than the
// stream holds costs what the stream holds.
func readWhole(head []byte, r io.Reader, size int64) ([]byte, error) {
	buf := make([]byte, len(head), min(size, max(int64(len(head)), 1<<20)))
	copy(buf, head)
	for int64(len(buf)) < size {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, int(min(size-int64(len(buf)), int64(len(buf)))))
		}
		end := int(min(int64(cap(buf)), size))
		k, err := io.ReadFull(r, buf[len(buf):end])
		buf = buf[:len(buf)+k]
		if err != nil {
			return nil, err
		}
	}
	return buf, nil
}

// claimErr is the error of a decoded member claiming size bytes, more
// than the walk's allowance has left: a bomb, refused before any of it is
// read.
func (w *walker) claimErr(size int64) error {
	return fmt.Errorf("%w: the member claims %d bytes, more than the %d the artefact's allowance has left (%d times its size, and the run's shared %d bytes)", ErrBomb, size, w.allowance(), w.opt.ratio, w.pool.grant())
}

// spill copies a member (head, read already, then the rest of its size
// bytes from r) to a temporary file (what, in errors) that is removed at
// once, so no other process can name it, and returns it open for reading.
// os.CreateTemp makes the file with O_EXCL and mode 0600: a name planted
// in a shared $TMPDIR is never opened.
func spill(head []byte, r io.Reader, size int64, what string) (*os.File, error) {
	f, err := os.CreateTemp("", "abifloor-member-*")
	if err != nil {
		return nil, fmt.Errorf("a temporary file for %s: %w", what, err)
	}
	os.Remove(f.Name())
	if _, err := f.Write(head); err != nil {
		f.Close()
		return nil, fmt.Errorf("a temporary file for %s: %w", what, err)
	}
	n, err := io.CopyN(f, r, size-int64(len(head)))
	if err != nil {
		f.Close()
		if n < size-int64(len(head)) && (err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF)) {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return f, nil
}

// inner ends the reading of a nested artefact m: fn's own error stops
// the walk; an error of the nested artefact is m's, and the outer
// artefact goes on.
func (w *walker) inner(m *Member, err error) error {
	var s stop
	if err == nil || errors.As(err, &s) {
		return err
	}
	if errors.Is(err, ErrNotArtefact) {
		return w.emit(m) // a compressed file (a man page): just a file
	}
	if errors.Is(err, ErrBomb) {
		return err // the budget is the whole artefact's
	}
	m.Err = err
	return w.emit(m)
}

// stop carries an error of fn (or cancellation) through the readers,
// which otherwise turn errors into member errors.
type stop struct{ err error }

func (s stop) Error() string { return s.err.Error() }
func (s stop) Unwrap() error { return s.err }

// readErr names a short read as truncation.
func readErr(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: the data ends early", ErrTruncated)
	}
	return err
}

// counted charges decompressed bytes to the walker's budget. Once the
// budget is spent, every counted reader of the walk fails at once: a read
// that still returned bytes would let the next member or layer go on.
type counted struct {
	r io.Reader
	w *walker
}

func (c *counted) Read(p []byte) (int, error) {
	if c.w.bombed {
		return 0, c.w.bomb()
	}
	// One read charges at most a MiB past the budget: a sparse member's
	// reader fills a whole buffer with zeros at once. The read that
	// spends the budget returns nothing, or io.ReadFull, filling its
	// buffer with it, would drop the error (a 500 MB sparse member was
	// read whole past a spent budget).
	n, err := c.r.Read(p[:min(len(p), countedRead)])
	if !c.w.charge(int64(n)) {
		return 0, c.w.bomb()
	}
	return n, err
}

const countedRead = 1 << 20

// allowance is how many more decompressed bytes the walk may read.
func (w *walker) allowance() int64 {
	if w.bombed {
		return 0
	}
	return w.own + max(w.pool.Left(), 0)
}

// charge counts n decompressed bytes: from the walk's own allowance, then
// from the run's. It reports whether they were within the budget.
func (w *walker) charge(n int64) bool {
	if w.bombed {
		return false
	}
	if w.own >= n {
		w.own -= n
		return true
	}
	n -= w.own
	w.own = 0
	w.pooled += n
	if !w.pool.take(n) {
		w.bombed = true
		return false
	}
	return true
}

func (w *walker) bomb() error {
	return fmt.Errorf("%w: more than %d bytes out of the artefact (%d times its size, and the run's shared allowance of %d bytes is spent)", ErrBomb, w.limit+w.pool.grant(), w.opt.ratio, w.pool.grant())
}
