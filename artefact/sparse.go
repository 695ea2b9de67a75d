package artefact

import (
	"debug/elf"
	"fmt"
	"io"
	"runtime"
	"sort"
	"sync"

	"github.com/abifloor/abifloor/elfx"
	"github.com/klauspost/compress/s2"
)

// A large ELF member (libLLVM.so is 120 MB) is not held whole: a floor, a
// binding audit and a symbol count read the ELF header, the program and
// section header tables, the dynamic segment and the tables it points to
// (symbols, strings, versions, relocations, hashes), which the linker puts
// in the loaded segments that are not executable. Code is never read. So
// a member over Options.SparseOver keeps only those parts: the first 64
// KiB, the header tables, every segment but the executable ones (unless
// one starts the file, as in layouts without separate code, where the
// tables share its pages), and the 64 KiB before the section headers
// (where .shstrtab usually is). Each part is kept with 64 KiB more after
// it, because readers read ahead (elfx reads 4 KiB chunks from where a
// table starts). A read that starts anywhere else is an error that says
// so, never wrong bytes.

// DefaultSparseOver is the size above which ELF members are kept sparse.
const DefaultSparseOver = 32 << 20

const (
	sparseHead = 64 << 10
	blockSize  = 64 << 10
)

// Sparse is the kept parts of a member, readable where kept. The parts
// are held compressed with S2 in 64 KiB blocks (code and tables shrink to
// about half), and a read decompresses the blocks it touches, so even a
// library whose code shares a segment with its tables costs less than its
// size.
type Sparse struct {
	size   int64
	chunks []chunk // sorted, disjoint
	mu     sync.Mutex
	cache  [2]struct {
		key [2]int // chunk, block
		raw []byte
	}
	next  int
	arena *arena
}

type chunk struct {
	off    int64
	n      int64
	blocks [][]byte // S2-compressed, blockSize raw bytes each but the last
}

// Kept is how many bytes of the member are readable; Held is what they
// cost in memory.
func (s *Sparse) Kept() int64 {
	var n int64
	for _, c := range s.chunks {
		n += c.n
	}
	return n
}

// Held is the memory the kept parts take, compressed.
func (s *Sparse) Held() int64 {
	var n int64
	for _, c := range s.chunks {
		for _, b := range c.blocks {
			n += int64(len(b))
		}
	}
	return n
}

// ReadAt reads kept bytes; a read that touches a dropped part fails.
func (s *Sparse) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off >= s.size {
		return 0, io.EOF
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	done := 0
	for done < len(p) {
		at := off + int64(done)
		if at >= s.size {
			return done, io.EOF
		}
		ci := sort.Search(len(s.chunks), func(i int) bool { return s.chunks[i].off+s.chunks[i].n > at })
		if ci == len(s.chunks) || s.chunks[ci].off > at {
			return done, fmt.Errorf("bytes %d to %d of this %d-byte member were not kept (a large member keeps only its non-executable segments and header tables)", at, off+int64(len(p)), s.size)
		}
		c := &s.chunks[ci]
		bi := int((at - c.off) / blockSize)
		raw, err := s.block(ci, bi)
		if err != nil {
			return done, err
		}
		done += copy(p[done:], raw[(at-c.off)%blockSize:])
	}
	return done, nil
}

func (s *Sparse) block(ci, bi int) ([]byte, error) {
	for _, e := range s.cache {
		if e.raw != nil && e.key == [2]int{ci, bi} {
			return e.raw, nil
		}
	}
	raw, err := s2.Decode(nil, s.chunks[ci].blocks[bi])
	if err != nil {
		return nil, err
	}
	s.next = (s.next + 1) % len(s.cache)
	s.cache[s.next].key, s.cache[s.next].raw = [2]int{ci, bi}, raw
	return raw, nil
}

// sparseRanges says which byte ranges of an ELF file of size bytes to
// keep, from its first bytes; ok is false when head does not hold the
// program headers (then the whole file is read).
func sparseRanges(head []byte, size int64) (rs [][2]int64, ok bool) {
	// The ELF header and program headers are decoded by elfx, the one
	// package that reads them; the table must lie in head.
	f, err := elfx.HeadLayout(head)
	if err != nil {
		return nil, false // extended numbering or tables out of reach
	}
	shoff, shsize := f.SectionTable()
	add := func(off, n int64) {
		if off < 0 || n <= 0 || off >= size {
			return
		}
		rs = append(rs, [2]int64{off, min(off+min(n, size)+sparseHead, size)}) // n is a claim: clamped before the sum
	}
	add(0, sparseHead)
	add(shoff, shsize)
	add(shoff-sparseHead, sparseHead)
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 && p.Off != 0 {
			continue // code
		}
		if p.Off > 1<<62 || p.Filesz > 1<<62 {
			continue // claims past any file
		}
		add(int64(p.Off), int64(p.Filesz))
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i][0] < rs[j][0] })
	merged := rs[:1]
	for _, r := range rs[1:] {
		last := &merged[len(merged)-1]
		if r[0] <= last[1] {
			last[1] = max(last[1], r[1])
		} else {
			merged = append(merged, r)
		}
	}
	return merged, true
}

// readSparse reads the kept ranges of a member: got is its start, read
// already, and r the rest.
func readSparse(got []byte, r io.Reader, size int64, rs [][2]int64) (*Sparse, error) {
	s := &Sparse{size: size, arena: new(arena)}
	// The blocks live outside the Go heap (arena.go), released when s is
	// collected.
	runtime.AddCleanup(s, func(a *arena) { a.free() }, s.arena)
	pos := int64(len(got))
	raw := make([]byte, blockSize)
	scratch := make([]byte, s2.MaxEncodedLen(blockSize))
	for _, rg := range rs {
		if rg[0] > pos {
			if _, err := io.CopyN(io.Discard, r, rg[0]-pos); err != nil {
				return nil, err
			}
			pos = rg[0]
		}
		c := chunk{off: rg[0], n: rg[1] - rg[0]}
		for at := rg[0]; at < rg[1]; at += blockSize {
			b := raw[:min(blockSize, rg[1]-at)]
			k := 0
			if at < int64(len(got)) {
				k = copy(b, got[at:])
			}
			if k < len(b) {
				if _, err := io.ReadFull(r, b[k:]); err != nil {
					return nil, err
				}
				pos = at + int64(len(b))
			}
			// Encode into scratch, then keep an exact copy: the
			// encoder's own buffer would keep 64 KiB per block alive.
			c.blocks = append(c.blocks, s.arena.keep(s2.Encode(scratch, b)))
		}
		s.chunks = append(s.chunks, c)
	}
	return s, nil
}
