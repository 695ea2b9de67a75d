package elfgen

import (
	"debug/elf"
	"encoding/binary"
)

// Needing returns a little-endian x86-64 position-independent program
// (interpreter /lib64/ld-linux-x86-64.so.2) that needs the libraries
// named and has the given DT_RPATH and DT_RUNPATH (none when ""): the
// input of a library search, with nothing else in it.
func Needing(needed []string, rpath, runpath string) []byte {
	const (
		ehsize = 64
		phsize = 56
		symsz  = 24
		interp = "/lib64/ld-linux-x86-64.so.2\x00"
	)
	le := binary.LittleEndian
	var strtab []byte
	str := func(s string) uint64 {
		off := len(strtab)
		strtab = append(append(strtab, s...), 0)
		return uint64(off)
	}
	str("")
	tags := [][2]uint64{}
	for _, n := range needed {
		tags = append(tags, [2]uint64{uint64(elf.DT_NEEDED), str(n)})
	}
	if rpath != "" {
		tags = append(tags, [2]uint64{uint64(elf.DT_RPATH), str(rpath)})
	}
	if runpath != "" {
		tags = append(tags, [2]uint64{uint64(elf.DT_RUNPATH), str(runpath)})
	}
	tags = append(tags, [2]uint64{uint64(elf.DT_FLAGS_1), uint64(elf.DF_1_PIE)})
	nph := 3
	interpOff := ehsize + nph*phsize
	dynOff := (interpOff + len(interp) + 7) &^ 7
	ndyn := len(tags) + 6
	hashOff := dynOff + ndyn*16
	symOff := hashOff + 16
	strOff := symOff + symsz
	size := strOff + len(strtab)
	tags = append([][2]uint64{
		{uint64(elf.DT_HASH), uint64(hashOff)},
		{uint64(elf.DT_STRTAB), uint64(strOff)},
		{uint64(elf.DT_STRSZ), uint64(len(strtab))},
		{uint64(elf.DT_SYMTAB), uint64(symOff)},
		{uint64(elf.DT_SYMENT), symsz},
	}, tags...)
	tags = append(tags, [2]uint64{uint64(elf.DT_NULL), 0})

	b := make([]byte, size)
	copy(b, elf.ELFMAG)
	b[elf.EI_CLASS], b[elf.EI_DATA], b[elf.EI_VERSION] = byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)
	le.PutUint16(b[16:], uint16(elf.ET_DYN))
	le.PutUint16(b[18:], uint16(elf.EM_X86_64))
	le.PutUint32(b[20:], uint32(elf.EV_CURRENT))
	le.PutUint64(b[32:], ehsize)
	le.PutUint16(b[52:], ehsize)
	le.PutUint16(b[54:], phsize)
	le.PutUint16(b[56:], uint16(nph))
	ph := func(i int, typ elf.ProgType, flags elf.ProgFlag, off, filesz int) {
		p := b[ehsize+i*phsize:]
		le.PutUint32(p, uint32(typ))
		le.PutUint32(p[4:], uint32(flags))
		le.PutUint64(p[8:], uint64(off))
		le.PutUint64(p[16:], uint64(off))
		le.PutUint64(p[24:], uint64(off))
		le.PutUint64(p[32:], uint64(filesz))
		le.PutUint64(p[40:], uint64(filesz))
		le.PutUint64(p[48:], 8)
	}
	ph(0, elf.PT_INTERP, elf.PF_R, interpOff, len(interp))
	ph(1, elf.PT_LOAD, elf.PF_R|elf.PF_X, 0, size)
	ph(2, elf.PT_DYNAMIC, elf.PF_R, dynOff, ndyn*16)
	copy(b[interpOff:], interp)
	for i, d := range tags {
		le.PutUint64(b[dynOff+i*16:], d[0])
		le.PutUint64(b[dynOff+i*16+8:], d[1])
	}
	le.PutUint32(b[hashOff:], 1)
	le.PutUint32(b[hashOff+4:], 1)
	copy(b[strOff:], strtab)
	return b
}
