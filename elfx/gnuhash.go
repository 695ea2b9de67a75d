package elfx

import (
	"debug/elf"
)

// GNUHash is a file's DT_GNU_HASH table with the dynamic symbols it
// indexes: the loader's own index of a library's definitions (glibc's
// do_lookup_x). A name is looked up with one hash, one bloom-filter word
// and one chain of the file's own table; nothing is built per symbol, and
// what it keeps is plain bytes, which the garbage collector never scans.
type GNUHash struct {
	t       *SymTab
	n       uint32 // symbols in t
	symoff  uint32
	shift   uint32
	bloom   []uint64 // 32-bit files: one word per entry, high half zero
	buckets []uint32
	chain   []uint32 // hash values of symbols symoff..n-1
	is64    bool
}

// maxGNURun is the longest chain GNUHash accepts. A linker's chains hold
// a few symbols each; a table whose chains are longer turns every lookup
// into a walk (a 1 MB file could make one chain of 40,000), so such a
// file is looked up another way.
const maxGNURun = 4096

// GNUHash returns the file's DT_GNU_HASH table, nil when it has none or
// one the loader could not use either (no buckets, no bloom filter, a
// bloom filter whose size is not a power of two) or whose chains are too
// long to walk per lookup (maxGNURun).
func (f *File) GNUHash() (*GNUHash, error) {
	off, ok, err := f.tableOffset(elf.DT_GNU_HASH)
	if err != nil || !ok {
		return nil, err
	}
	t, err := f.SymTab()
	if err != nil || t == nil {
		return nil, err
	}
	n := int64(t.Len())
	hb, err := f.rd.at(off, 16)
	if err != nil {
		return nil, formatErr(off, "DT_GNU_HASH header past end of file")
	}
	nbuckets, symoffset := int64(f.bo.Uint32(hb)), int64(f.bo.Uint32(hb[4:]))
	nbloom, shift := int64(f.bo.Uint32(hb[8:])), f.bo.Uint32(hb[12:])
	word := int64(4)
	if f.is64() {
		word = 8
	}
	if nbuckets == 0 || nbloom == 0 || nbloom&(nbloom-1) != 0 || symoffset > n || n > 1<<32-1 {
		return nil, nil
	}
	if nbuckets > f.rd.size/4 || nbloom > f.rd.size/word || n-symoffset > f.rd.size/4 {
		return nil, formatErr(off, "DT_GNU_HASH claims %d buckets, %d bloom words and %d chained symbols in a %d-byte file", nbuckets, nbloom, n-symoffset, f.rd.size)
	}
	raw, err := f.rd.fresh(off+16, nbloom*word+nbuckets*4+(n-symoffset)*4)
	if err != nil {
		return nil, formatErr(off, "DT_GNU_HASH table past end of file")
	}
	h := &GNUHash{t: t, is64: f.is64(), n: uint32(n), symoff: uint32(symoffset), shift: shift}
	h.bloom = make([]uint64, nbloom)
	for i := range h.bloom {
		if word == 8 {
			h.bloom[i] = f.bo.Uint64(raw[i*8:])
		} else {
			h.bloom[i] = uint64(f.bo.Uint32(raw[i*4:]))
		}
	}
	raw = raw[nbloom*word:]
	h.buckets = make([]uint32, nbuckets)
	for i := range h.buckets {
		h.buckets[i] = f.bo.Uint32(raw[i*4:])
	}
	raw = raw[nbuckets*4:]
	h.chain = make([]uint32, n-symoffset)
	run := 0
	for i := range h.chain {
		h.chain[i] = f.bo.Uint32(raw[i*4:])
		if run++; h.chain[i]&1 != 0 {
			run = 0
		} else if run > maxGNURun {
			return nil, nil
		}
	}
	return h, nil
}

// GNUHashOf is the GNU hash of name (dl_new_hash).
func GNUHashOf(name string) uint32 {
	h := uint32(5381)
	for i := 0; i < len(name); i++ {
		h = h*33 + uint32(name[i])
	}
	return h
}

// Lookup calls fn with each symbol of the table named name, whose
// GNUHashOf is hash, until fn returns true, as the loader walks it: the
// bloom filter first, then the name's bucket chain. Symbols are decoded
// as Symbols decodes them.
func (h *GNUHash) Lookup(name string, hash uint32, fn func(Symbol) bool) {
	h.walk(name, hash, func(_ uint32, s Symbol) bool { return fn(s) })
}

func (h *GNUHash) walk(name string, hash uint32, fn func(uint32, Symbol) bool) {
	c := uint32(5) // log2 of the bits of a bloom word
	if h.is64 {
		c = 6
	}
	w := h.bloom[(hash>>c)&uint32(len(h.bloom)-1)]
	bits := uint32(1)<<c - 1
	mask := uint64(1)<<(hash&bits) | uint64(1)<<((hash>>(h.shift&31))&bits)
	if w&mask != mask {
		return
	}
	i := h.buckets[hash%uint32(len(h.buckets))]
	if i == 0 || i < h.symoff {
		return
	}
	for ; i < h.n; i++ {
		ch := h.chain[i-h.symoff]
		if (ch^hash)>>1 == 0 {
			if s, ok := h.symbol(i, name); ok && fn(i, s) {
				return
			}
		}
		if ch&1 != 0 {
			return
		}
	}
}

// symbol decodes symbol i when it is named name.
func (h *GNUHash) symbol(i uint32, name string) (Symbol, bool) {
	t := h.t
	var s Symbol
	off := int(decodeSymEntry(t.bo, t.is64, t.raw[int64(i)*t.ent:], &s))
	if off >= len(t.strs) || len(t.strs)-off < len(name) || t.strs[off:off+len(name)] != name ||
		off+len(name) < len(t.strs) && t.strs[off+len(name)] != 0 {
		return s, false
	}
	s.Name = name
	t.version(int(i), &s)
	return s, true
}

// Each calls fn with every symbol a lookup of its name reaches: what the
// loader can find in the file. It costs a lookup per symbol.
func (h *GNUHash) Each(fn func(Symbol)) {
	for i := h.symoff; i < h.n; i++ {
		s := h.t.At(int(i))
		h.walk(s.Name, GNUHashOf(s.Name), func(j uint32, t Symbol) bool {
			if j == i {
				fn(t)
			}
			return j == i
		})
	}
}

// Hashed is the number of symbols the table indexes.
func (h *GNUHash) Hashed() int { return int(h.n - h.symoff) }

// HashedName is the name of the i-th symbol the table indexes
// (0 <= i < Hashed()).
func (h *GNUHash) HashedName(i int) string {
	return h.t.name(int(h.symoff) + i)
}
