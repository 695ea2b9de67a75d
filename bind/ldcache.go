package bind

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// The two on-disk formats of /etc/ld.so.cache written by ldconfig. The old
// one (libc5 era) may precede the new one in the same file; glibc reads
// only the new one when it is there, and so do we.
const (
	oldCacheMagic = "ld.so-1.7.0"
	newCacheMagic = "glibc-ld.so.cache1.1"
)

// Cache entry flags (glibc's ldconfig.h). The low byte is the library
// kind, the next byte says which ABI of a multi-ABI machine the library is
// for; the loader takes only entries whose ABI byte is its own.
const (
	cacheTypeMask = 0x00ff
	cacheELFLibc6 = 0x0003
	cacheArchMask = 0xff00
)

// cacheEntry is one library of ld.so.cache.
type cacheEntry struct {
	Name  string // the soname looked up (libc.so.6)
	Path  string // where it is (/lib/x86_64-linux-gnu/libc.so.6)
	Flags uint32
	HWCap uint64 // non-zero for glibc-hwcaps subdirectory entries
}

// ldCache is a parsed ld.so.cache, indexed by name. The entries of one
// name keep their order in the file, which is the loader's preference.
type ldCache struct {
	byName map[string][]cacheEntry
	n      int
}

// Lookup returns the path the loader would take for name, for a file of
// the given machine and class ("" when the cache has none). Entries for a
// glibc-hwcaps subdirectory are taken only when no baseline entry exists:
// they hold the same library built for a newer CPU, so for symbol
// resolution either will do.
func (c *ldCache) Lookup(name string, m elf.Machine, class elf.Class) string {
	if c == nil {
		return ""
	}
	hw := ""
	for _, e := range c.byName[name] {
		if e.Flags&cacheTypeMask != cacheELFLibc6 && e.Flags&cacheTypeMask != 1 {
			continue
		}
		if !cacheABI(m, class, e.Flags&cacheArchMask) {
			continue
		}
		if e.HWCap == 0 {
			return e.Path
		}
		if hw == "" {
			hw = e.Path
		}
	}
	return hw
}

// cacheABI reports whether the loader of machine m takes a cache entry
// whose ABI byte (flags&cacheArchMask) is abi; a machine not listed takes
// any (the machine check on the file decides then). A switch, not a set:
// it runs for every cache lookup.
func cacheABI(m elf.Machine, class elf.Class, abi uint32) bool {
	is64 := class == elf.ELFCLASS64
	switch m {
	case elf.EM_X86_64:
		if is64 {
			return abi == 0x0300
		}
		return abi == 0x0800
	case elf.EM_386:
		return abi == 0
	case elf.EM_AARCH64:
		return abi == 0x0a00
	case elf.EM_ARM:
		return abi == 0 || abi == 0x0900 || abi == 0x0b00
	case elf.EM_PPC64:
		return abi == 0x0500
	case elf.EM_S390:
		if is64 {
			return abi == 0x0400
		}
		return abi == 0
	case elf.EM_SPARCV9:
		return abi == 0x0100
	case elf.EM_RISCV:
		if is64 {
			return abi == 0x0f00 || abi == 0x1000
		}
	case elf.EM_LOONGARCH:
		return abi == 0x1100 || abi == 0x1200
	}
	return true
}

// parseCache decodes an ld.so.cache image. Every count and string offset
// is checked against len(b); a malformed cache is an error, never a panic.
func parseCache(b []byte) (*ldCache, error) {
	if bytes.HasPrefix(b, []byte(newCacheMagic)) {
		return parseNewCache(b, 0)
	}
	if !bytes.HasPrefix(b, []byte(oldCacheMagic)) {
		return nil, fmt.Errorf("not an ld.so.cache (unknown magic)")
	}
	// Old header: magic[11], pad to 12, nlibs; entries of 12 bytes; then,
	// aligned to 8, possibly the new format, whose strings it shares.
	if len(b) < 16 {
		return nil, fmt.Errorf("ld.so.cache: old header truncated (%d bytes)", len(b))
	}
	nlibs := uint64(binary.LittleEndian.Uint32(b[12:]))
	end := 16 + nlibs*12
	if nlibs > uint64(len(b))/12 || end > uint64(len(b)) {
		return nil, fmt.Errorf("ld.so.cache: %d old-format entries cannot fit in %d bytes", nlibs, len(b))
	}
	if next := (end + 7) &^ 7; next < uint64(len(b)) && bytes.HasPrefix(b[next:], []byte(newCacheMagic)) {
		return parseNewCache(b, int(next))
	}
	// Old-format strings are relative to the end of the entry array.
	c := &ldCache{byName: map[string][]cacheEntry{}}
	strs := string(b[end:])
	for i := uint64(0); i < nlibs; i++ {
		e := b[16+i*12:]
		flags := binary.LittleEndian.Uint32(e)
		k, v := binary.LittleEndian.Uint32(e[4:]), binary.LittleEndian.Uint32(e[8:])
		name, err1 := cacheString(strs, k)
		path, err2 := cacheString(strs, v)
		if err := errors.Join(err1, err2); err != nil {
			if errors.Is(err, errLongString) {
				continue
			}
			return nil, fmt.Errorf("ld.so.cache: old entry %d: %w", i, err)
		}
		c.add(cacheEntry{Name: name, Path: path, Flags: flags})
	}
	return c, nil
}

// parseNewCache decodes the glibc 2.x format starting at off. Its string
// offsets are relative to its own header.
func parseNewCache(b []byte, off int) (*ldCache, error) {
	const hdr, ent = 48, 24
	h := b[off:]
	if len(h) < hdr {
		return nil, fmt.Errorf("ld.so.cache: header truncated (%d bytes)", len(h))
	}
	var bo binary.ByteOrder = binary.LittleEndian
	switch h[28] { // 0 unknown (little on every machine that wrote it), 2 little, 3 big
	case 3:
		bo = binary.BigEndian
	case 1:
		return nil, fmt.Errorf("ld.so.cache: endianness marked invalid")
	}
	nlibs := uint64(bo.Uint32(h[20:]))
	if nlibs > uint64(len(h)-hdr)/ent {
		return nil, fmt.Errorf("ld.so.cache: %d entries cannot fit in %d bytes", nlibs, len(h))
	}
	c := &ldCache{byName: make(map[string][]cacheEntry, nlibs)}
	strs := string(h)
	for i := uint64(0); i < nlibs; i++ {
		e := h[hdr+i*ent:]
		flags := bo.Uint32(e)
		name, err1 := cacheString(strs, bo.Uint32(e[4:]))
		path, err2 := cacheString(strs, bo.Uint32(e[8:]))
		if err := errors.Join(err1, err2); err != nil {
			if errors.Is(err, errLongString) {
				continue
			}
			return nil, fmt.Errorf("ld.so.cache: entry %d: %w", i, err)
		}
		c.add(cacheEntry{Name: name, Path: path, Flags: flags, HWCap: bo.Uint64(e[16:])})
	}
	return c, nil
}

func (c *ldCache) add(e cacheEntry) {
	c.byName[e.Name] = append(c.byName[e.Name], e)
	c.n++
}

// errLongString is a cache string of PATH_MAX bytes or more. ldconfig
// writes none; ld.so could not open such a path, so its entry is passed
// over, as it would find nothing.
var errLongString = errors.New("string longer than PATH_MAX")

// cacheString is the NUL-terminated string at off of strs, which is the
// whole cache (or its string area) converted to a string once: every
// name and path is a substring of it, so entries that share a string (or
// all point at one long string) cost no copy, and the memory of a parsed
// cache is bounded by the file's size whatever its entries say. The scan
// for the NUL stops at PATH_MAX, so the time is bounded by entries ×
// PATH_MAX, not entries × string length.
func cacheString(strs string, off uint32) (string, error) {
	if uint64(off) >= uint64(len(strs)) {
		return "", fmt.Errorf("string offset %d outside %d bytes", off, len(strs))
	}
	s := strs[off:]
	i := strings.IndexByte(s[:min(len(s), pathMax)], 0)
	switch {
	case i >= 0:
		return s[:i], nil
	case len(s) >= pathMax:
		return "", errLongString
	}
	return "", fmt.Errorf("string at %d not terminated", off)
}
