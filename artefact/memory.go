package artefact

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/abifloor/abifloor/internal/limits"
)

// Decoder memory. A decoder holds memory its stream's header asks for
// (a zstd window, an xz dictionary, bzip2's block), not what the stream
// holds: a 12 KB .tar.zst may ask for 128 MiB. Each decoder of a run
// reserves what it will hold from one pool, shared by every worker and
// artefact of the run (Budget), before it starts, and gives it back when
// it ends; so a directory of such files costs the pool, not the files'
// number times their windows.
//
// A reservation never waits while its walk holds another one, so no
// cycle of waiting walks can form:
//   - a walk holding nothing (its first decoder, or the next layer of an
//     image) waits until the pool has room;
//   - a walk holding a decoder that meets a nested stream takes the
//     nested decoder's memory from the slack it reserved with its first
//     decoder (room for the small decoders, gzip and bzip2, that nest in
//     real packages), else from the pool if it has room at once, else
//     gives up the whole walk (errAlone): the walk ends, frees all it
//     holds, and is read again alone once no other decoder runs, the
//     members already handed to fn skipped;
//   - a walk read alone waits for the others' memory, which only drains
//     (no new decoder starts while it runs). If even alone its decoders
//     need more than the pool, it fails with ErrDecoderMemory.

// DefaultDecoderMemory is the memory the decoders of a run may hold at
// once: one zstd --ultra -22 stream (a 128 MiB window) or two xz -9
// streams (64 MiB dictionaries), with room for the small decoders nested
// in them.
const DefaultDecoderMemory = limits.DecoderMemory

// nestSlack is reserved with a walk's first decoder for the decoders
// nested in its stream (a .gz man page in a .deb's data.tar.xz): two
// bzip2 -9 decoders, or many gzip ones.
const nestSlack = 8 << 20

// ErrDecoderMemory is returned for an artefact whose decoders need more
// memory than the run's whole decoder budget, even read alone.
var ErrDecoderMemory = errors.New("decoder memory budget exhausted")

// errAlone ends a walk that must be read again alone (see above).
var errAlone = errors.New("the walk must be read again alone")

// memPool is a run's decoder memory.
type memPool struct {
	mu    sync.Mutex
	size  int64
	used  int64
	peak  int64         // the most used at once (tests)
	alone bool          // a walk is read alone: no other decoder starts
	wake  chan struct{} // closed (and replaced) when used or alone change
	token chan struct{} // held by the walk read alone
}

func newMemPool(n int64) *memPool {
	if n <= 0 {
		n = DefaultDecoderMemory
	}
	return &memPool{size: n, wake: make(chan struct{}), token: make(chan struct{}, 1)}
}

// changed wakes the waiters; p.mu is held.
func (p *memPool) changed() {
	close(p.wake)
	p.wake = make(chan struct{})
}

// waitFor waits until ok holds (p.mu held on return, and on entry),
// or ctx ends (p.mu held too).
func (p *memPool) waitFor(ctx context.Context, ok func() bool) error {
	for !ok() {
		ch := p.wake
		p.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			p.mu.Lock()
			return stop{ctx.Err()}
		}
		p.mu.Lock()
	}
	return nil
}

// enterAlone waits for the right to read alone, then stops new
// decoders from starting.
func (p *memPool) enterAlone(ctx context.Context) error {
	select {
	case p.token <- struct{}{}:
	case <-ctx.Done():
		return stop{ctx.Err()}
	}
	p.mu.Lock()
	p.alone = true
	p.changed()
	p.mu.Unlock()
	return nil
}

func (p *memPool) leaveAlone() {
	p.mu.Lock()
	p.alone = false
	p.changed()
	p.mu.Unlock()
	<-p.token
}

// decoderMemory is the decoder memory reserved now, and the most
// reserved at once (tests).
func (b *Budget) decoderMemory() (used, peak int64) {
	b.mem.mu.Lock()
	defer b.mem.mu.Unlock()
	return b.mem.used, b.mem.peak
}

// SetDecoderMemory sets the run's decoder memory (DefaultDecoderMemory
// when n <= 0). Call it before the budget is used.
func (b *Budget) SetDecoderMemory(n int64) { b.mem = newMemPool(n) }

// reserve takes need bytes of decoder memory for a decoder of the walk
// (what), and returns what gives them back.
func (w *walker) reserve(need int64, what string) (func(), error) {
	p := w.pool.mem
	if need <= w.slack {
		w.slack -= need
		return func() { w.slack += need }, nil
	}
	if w.held+need > p.size {
		return nil, fmt.Errorf("%w: %s needs %d MiB of decoder memory (with %d MiB held by the decoders it is nested in), more than the run's %d MiB", ErrDecoderMemory, what, mib(need), mib(w.held), mib(p.size))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if w.held == 0 {
		total := need + nestSlack
		if total > p.size {
			total = need
		}
		if err := p.waitFor(w.ctx, func() bool { return p.used+total <= p.size && (!p.alone || w.alone) }); err != nil {
			return nil, err
		}
		p.used += total
		p.peak = max(p.peak, p.used)
		w.held, w.slack = total, total-need
		return func() {
			p.mu.Lock()
			p.used -= w.held
			w.held, w.slack = 0, 0
			p.changed()
			p.mu.Unlock()
		}, nil
	}
	switch {
	case w.alone:
		// The others only give memory back while this walk runs.
		if err := p.waitFor(w.ctx, func() bool { return p.used+need <= p.size }); err != nil {
			return nil, err
		}
	case p.used+need > p.size || p.alone:
		return nil, stop{errAlone}
	}
	p.used += need
	p.peak = max(p.peak, p.used)
	w.held += need
	return func() {
		p.mu.Lock()
		p.used -= need
		w.held -= need
		p.changed()
		p.mu.Unlock()
	}, nil
}

func mib(n int64) int64 { return (n + 1<<20 - 1) >> 20 }

// retrying runs a walk (body, on a fresh walker each time) and, when it
// gave up for want of decoder memory (errAlone), runs it again alone:
// the members the first run handed to fn are not handed again, and what
// it charged to the run's decompression allowance is given back.
func retrying(ctx context.Context, opt Options, fn func(*Member) error, size int64, setup func(*walker), body func(*walker) error) error {
	w := newWalker(ctx, opt, fn, size)
	if setup != nil {
		setup(w)
	}
	err := body(w)
	if !errors.Is(err, errAlone) {
		return err
	}
	w.pool.left.Add(w.pooled)
	skip := w.emitted
	p := w.pool.mem
	if err := p.enterAlone(ctx); err != nil {
		return err
	}
	defer p.leaveAlone()
	w = newWalker(ctx, opt, fn, size)
	if setup != nil {
		setup(w)
	}
	w.alone, w.skip = true, skip
	return body(w)
}

// Decoder memory of each format: what the decoder allocates for a
// stream whose first bytes are head, and for zstd the largest window
// the decoder then accepts (a later frame asking for more is refused).

// gzipMemory: klauspost's inflater (a 32 KiB window and its tables) and
// the 64 KiB read buffer of the stream under it.
const gzipMemory = 256 << 10

// bzip2Memory: compress/bzip2 holds a block of up to 900 kB as 4-byte
// entries (bzip2 -9), whatever level the header names (a later stream
// may name another).
const bzip2Memory = 4 << 20

// zstdFrameWindow reads the window a zstd frame header asks for: its
// window descriptor, or for a single-segment frame its content size. ok
// is false when head is too short to tell.
func zstdFrameWindow(head []byte) (window uint64, ok bool) {
	if len(head) < 6 || binary.LittleEndian.Uint32(head) != 0xfd2fb528 {
		return 0, false
	}
	fhd := head[4]
	single := fhd&0x20 != 0
	if !single {
		wd := head[5]
		wlog := 10 + uint(wd>>3)
		base := uint64(1) << wlog
		return base + base/8*uint64(wd&7), true
	}
	i := 5 + [4]int{0, 1, 2, 4}[fhd&3] // the dictionary ID
	switch fhd >> 6 {
	case 0:
		if len(head) < i+1 {
			return 0, false
		}
		return uint64(head[i]), true
	case 1:
		if len(head) < i+2 {
			return 0, false
		}
		return uint64(binary.LittleEndian.Uint16(head[i:])) + 256, true
	case 2:
		if len(head) < i+4 {
			return 0, false
		}
		return uint64(binary.LittleEndian.Uint32(head[i:])), true
	default:
		if len(head) < i+8 {
			return 0, false
		}
		return binary.LittleEndian.Uint64(head[i:]), true
	}
}

// minZstdWindow is the window granted to a stream whose first frame asks
// for less (later frames of a multi-frame stream may ask up to this):
// zstd -19 uses 8 MiB.
const minZstdWindow = 8 << 20

// zstdMemory is the window a zstd stream starting with head is allowed,
// and the memory its decoder holds: the window, half a block more (the
// low-memory decoder), and its block buffers.
func zstdMemory(head []byte) (window, mem int64) {
	win, ok := zstdFrameWindow(head)
	if !ok || win > maxZstdWindow {
		win = maxZstdWindow // refused by the decoder with its own error when larger
	}
	window = max(int64(win), minZstdWindow)
	return window, window + 1<<20
}

// xzMemory is the memory an xz stream starting with head holds: its
// first block's dictionary (the largest allowed when it cannot be read
// from head) and the decoder's state.
func xzMemory(head []byte) (int64, error) {
	dict, err := xzDict(head)
	if err != nil {
		return 0, err
	}
	if dict == 0 {
		dict = maxXZDict
	}
	return int64(dict) + 2<<20, nil
}

// zipMemory is what reading a zip's central directory holds: archive/zip
// keeps a File of about 200 bytes for each entry, which takes at least 46
// bytes of directory, and the entry's name and extra fields; plus the
// read-ahead window. The directory's size comes from the end record (or
// its zip64 form), bounded by the file's size.
func zipMemory(r io.ReaderAt, size int64) int64 {
	return 6*zipDirSize(r, size) + readAheadWindow
}

// zipDirSize reads the size of a zip's central directory from its end
// record, bounded by size; 0 when there is none (zip.NewReader then
// says what is wrong).
func zipDirSize(r io.ReaderAt, size int64) int64 {
	const eocd = 22
	n := min(size, eocd+65535)
	if n < eocd {
		return 0
	}
	tail := make([]byte, n)
	if _, err := r.ReadAt(tail, size-n); err != nil && err != io.EOF {
		return 0
	}
	for i := len(tail) - eocd; i >= 0; i-- {
		if string(tail[i:i+4]) != "PK\x05\x06" {
			continue
		}
		dir := int64(binary.LittleEndian.Uint32(tail[i+12:]))
		if dir == 0xffffffff && i >= 20 && string(tail[i-20:i-16]) == "PK\x06\x07" {
			off := binary.LittleEndian.Uint64(tail[i-12:])
			var z [56]byte
			if off < uint64(size) {
				if _, err := r.ReadAt(z[:], int64(off)); err == nil && string(z[:4]) == "PK\x06\x06" {
					dir = int64(min(binary.LittleEndian.Uint64(z[40:]), uint64(size)))
				}
			}
		}
		return min(dir, size)
	}
	return 0
}
