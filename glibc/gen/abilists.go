package main

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The zig toolchain ships upstream glibc's *.abilist files of every release,
// merged into one binary file (lib/libc/glibc/abilists, format described in
// ziglang/libc-abi-tools' README). Each inclusion says: symbol name, the
// targets and the library it applies to, and the symbol versions
// (GLIBC_2.2.5, ...) it has there. The library is the one that first defined
// that version: zig keeps the earliest release's placement.

// abilists is a parsed abilists file.
type abilists struct {
	libs     []string // "c", "m", "pthread", ...
	versions []string // "2.0", "2.2.5", ...
	targets  []string // "x86_64-linux-gnu", ...
	incls    []inclusion
}

// inclusion is one symbol in one library, for a set of targets.
type inclusion struct {
	name     string
	kind     byte // 'F', 'O' or 'T'
	size     uint64
	targets  uint64 // bit i: targets[i]
	lib      int
	versions []int // indexes into versions
}

type zreader struct {
	b      []byte
	off    int
	err    error
	zig011 bool // the zig 0.11 layout
}

func (r *zreader) fail(format string, a ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("abilists: offset %d: %s", r.off, fmt.Sprintf(format, a...))
	}
}

func (r *zreader) u8() byte {
	if r.err != nil {
		return 0
	}
	if r.off >= len(r.b) {
		r.fail("truncated")
		return 0
	}
	r.off++
	return r.b[r.off-1]
}

func (r *zreader) u16() int {
	if r.err != nil {
		return 0
	}
	if r.off+2 > len(r.b) {
		r.fail("truncated")
		return 0
	}
	r.off += 2
	return int(binary.LittleEndian.Uint16(r.b[r.off-2:]))
}

func (r *zreader) uleb() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.fail("bad uleb128")
		return 0
	}
	r.off += n
	return v
}

func (r *zreader) u32() uint32 {
	if r.err != nil {
		return 0
	}
	if r.off+4 > len(r.b) {
		r.fail("truncated")
		return 0
	}
	r.off += 4
	return binary.LittleEndian.Uint32(r.b[r.off-4:])
}

func (r *zreader) str() string {
	if r.err != nil {
		return ""
	}
	for i := r.off; i < len(r.b); i++ {
		if r.b[i] == 0 {
			s := string(r.b[r.off:i])
			r.off = i + 1
			return s
		}
	}
	r.fail("unterminated string")
	return ""
}

// parseAbilists reads the whole file. Two layouts exist: zig 0.12 and later
// write each inclusion's target set as a uleb128 and mark a symbol's last
// inclusion in its library byte (the layout libc-abi-tools documents);
// zig 0.11 wrote a 32-bit target set whose bit 31 marks the last inclusion.
// The newer layout is tried first.
func parseAbilists(b []byte) (*abilists, error) {
	z, err := parseLayout(b, false)
	if err != nil {
		if z11, err11 := parseLayout(b, true); err11 == nil {
			return z11, nil
		}
	}
	return z, err
}

func parseLayout(b []byte, zig011 bool) (*abilists, error) {
	r := &zreader{b: b, zig011: zig011}
	z := r.header()
	for _, kind := range []byte{'F', 'O', 'T'} {
		if kind == 'T' && r.off == len(b) {
			break // no TLS list
		}
		// The count is of inclusions; a name starts a run of inclusions
		// that ends with one marked last.
		name := ""
		for n := r.u16(); n > 0 && r.err == nil; n-- {
			if name == "" {
				if name = r.str(); name == "" && r.err == nil {
					r.fail("empty symbol name")
				}
			}
			in, last := r.inclusion(z, name, kind)
			if last {
				name = ""
			}
			z.incls = append(z.incls, in)
		}
		if name != "" {
			r.fail("symbol %s: its last inclusion is not marked", name)
		}
	}
	if r.err == nil && r.off != len(b) {
		r.fail("%d bytes left over", len(b)-r.off)
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(z.incls) == 0 {
		return nil, errors.New("abilists: no symbols")
	}
	return z, nil
}

// header reads the lists of libraries, versions and targets.
func (r *zreader) header() *abilists {
	z := &abilists{}
	for n := int(r.u8()); n > 0 && r.err == nil; n-- {
		z.libs = append(z.libs, r.str())
	}
	for n := int(r.u8()); n > 0 && r.err == nil; n-- {
		major, minor, patch := r.u8(), r.u8(), r.u8()
		v := fmt.Sprintf("%d.%d", major, minor)
		if patch != 0 {
			v += fmt.Sprintf(".%d", patch)
		}
		z.versions = append(z.versions, v)
	}
	for n := int(r.u8()); n > 0 && r.err == nil; n-- {
		z.targets = append(z.targets, r.str())
	}
	if max := map[bool]int{false: 64, true: 31}[r.zig011]; len(z.targets) > max {
		r.fail("%d targets, at most %d fit the target set", len(z.targets), max)
	}
	return z
}

// inclusion reads one inclusion of name; last is set on the name's last.
func (r *zreader) inclusion(z *abilists, name string, kind byte) (in inclusion, last bool) {
	in = inclusion{name: name, kind: kind}
	if r.zig011 {
		t := r.u32()
		in.targets, last = uint64(t&^(1<<31)), t&(1<<31) != 0
		if kind != 'F' {
			in.size = uint64(r.u16())
		}
		in.lib = int(r.u8())
	} else {
		in.targets = r.uleb()
		if kind != 'F' {
			in.size = r.uleb()
		}
		l := r.u8()
		in.lib, last = int(l&^0x80), l&0x80 != 0
	}
	if in.lib >= len(z.libs) {
		r.fail("library index %d of %d", in.lib, len(z.libs))
	}
	for end := false; !end && r.err == nil; {
		v := r.u8()
		end = v&0x80 != 0
		if int(v&^0x80) >= len(z.versions) {
			r.fail("version index %d of %d", v&^0x80, len(z.versions))
		}
		in.versions = append(in.versions, int(v&^0x80))
	}
	return in, last
}
