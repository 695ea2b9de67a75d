// Package elfgen writes small hostile ELF files at test time, for tests
// that check a reader's cost is bounded by the size of its input.
package elfgen

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"runtime"
)

// Allocated runs fn and returns the bytes it allocated on the Go heap: what
// a bounded-cost test compares with the size of the file it read.
func Allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// NameBomb returns a little-endian x86-64 shared object with nsyms
// defined dynamic functions whose names all start at the same offset of a
// string table holding one nameLen-byte string: a file of about
// 24*nsyms + nameLen bytes whose symbol names add up to nsyms*nameLen.
func NameBomb(nsyms, nameLen int) []byte { return dynNames(nsyms, 0, nameLen) }

// NeededBomb is NameBomb with no symbols but nneeded DT_NEEDED entries,
// all naming the one nameLen-byte string: a file of about 16*nneeded +
// nameLen bytes whose needed libraries' names add up to nneeded*nameLen.
func NeededBomb(nneeded, nameLen int) []byte { return dynNames(0, nneeded, nameLen) }

func dynNames(nsyms, nneeded, nameLen int) []byte {
	const (
		ehsize = 64
		phsize = 56
		symsz  = 24
	)
	le := binary.LittleEndian
	// Layout: header, 2 program headers, dynamic, hash, symtab, strtab.
	dynOff := ehsize + 2*phsize
	ndyn := 7 + nneeded
	hashOff := dynOff + ndyn*16
	nchain := nsyms + 1
	hashSize := 8 + 4 + 4*nchain
	symOff := (hashOff + hashSize + 7) &^ 7
	strOff := symOff + nchain*symsz
	strSize := 1 + nameLen + 1
	size := strOff + strSize
	b := make([]byte, size)

	copy(b, elf.ELFMAG)
	b[elf.EI_CLASS], b[elf.EI_DATA], b[elf.EI_VERSION] = byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)
	le.PutUint16(b[16:], uint16(elf.ET_DYN))
	le.PutUint16(b[18:], uint16(elf.EM_X86_64))
	le.PutUint32(b[20:], uint32(elf.EV_CURRENT))
	le.PutUint64(b[32:], ehsize) // e_phoff
	le.PutUint16(b[52:], ehsize)
	le.PutUint16(b[54:], phsize)
	le.PutUint16(b[56:], 2)

	ph := func(i int, typ elf.ProgType, flags elf.ProgFlag, off, filesz int) {
		p := b[ehsize+i*phsize:]
		le.PutUint32(p, uint32(typ))
		le.PutUint32(p[4:], uint32(flags))
		le.PutUint64(p[8:], uint64(off))
		le.PutUint64(p[16:], uint64(off)) // vaddr = offset
		le.PutUint64(p[24:], uint64(off))
		le.PutUint64(p[32:], uint64(filesz))
		le.PutUint64(p[40:], uint64(filesz))
		le.PutUint64(p[48:], 8)
	}
	ph(0, elf.PT_LOAD, elf.PF_R|elf.PF_X, 0, size)
	ph(1, elf.PT_DYNAMIC, elf.PF_R, dynOff, ndyn*16)

	dyn := b[dynOff:]
	tags := [][2]uint64{
		{uint64(elf.DT_HASH), uint64(hashOff)},
		{uint64(elf.DT_STRTAB), uint64(strOff)},
		{uint64(elf.DT_STRSZ), uint64(strSize)},
		{uint64(elf.DT_SYMTAB), uint64(symOff)},
		{uint64(elf.DT_SYMENT), symsz},
		{uint64(elf.DT_SONAME), 0}, // "" is a name like any other
	}
	for range nneeded {
		tags = append(tags, [2]uint64{uint64(elf.DT_NEEDED), 1})
	}
	for i, d := range append(tags, [2]uint64{uint64(elf.DT_NULL), 0}) {
		le.PutUint64(dyn[i*16:], d[0])
		le.PutUint64(dyn[i*16+8:], d[1])
	}

	le.PutUint32(b[hashOff:], 1) // nbucket
	le.PutUint32(b[hashOff+4:], uint32(nchain))

	for i := 1; i <= nsyms; i++ {
		s := b[symOff+i*symsz:]
		le.PutUint32(s, 1) // st_name: every name is the one long string
		s[4] = byte(elf.ST_INFO(elf.STB_GLOBAL, elf.STT_FUNC))
		le.PutUint16(s[6:], 1)                // a section: defined
		le.PutUint64(s[8:], 0x1000+uint64(i)) // st_value
	}
	copy(b[strOff+1:], bytes.Repeat([]byte{'A'}, nameLen))
	return b
}
