package elfgen

// Compressed-section bombs: ELF files whose compression headers claim more
// than they hold, or streams that expand thousands of times.

import (
	"bytes"
	"compress/zlib"
	"debug/elf"
	"encoding/binary"
)

// Section is one section of an ELF file built by Sections.
type Section struct {
	Name  string
	Type  elf.SectionType
	Flags elf.SectionFlag
	Data  []byte
}

// Sections returns a little-endian x86-64 ELF64 file of the given type holding
// secs after a null section, with a section name table (.shstrtab) of its
// own placed last. It has no program headers: readers of sections need none.
func Sections(typ elf.Type, secs []Section) []byte {
	le := binary.LittleEndian
	var shstr bytes.Buffer
	shstr.WriteByte(0)
	nameOff := make([]uint32, len(secs)+1)
	for i, s := range secs {
		nameOff[i] = uint32(shstr.Len())
		shstr.WriteString(s.Name + "\x00")
	}
	nameOff[len(secs)] = uint32(shstr.Len())
	shstr.WriteString(".shstrtab\x00")
	all := append(append([]Section(nil), secs...), Section{Name: ".shstrtab", Type: elf.SHT_STRTAB, Data: shstr.Bytes()})

	var body bytes.Buffer
	body.Write(make([]byte, 64))
	offs := make([]uint64, len(all))
	for i, s := range all {
		for body.Len()%8 != 0 {
			body.WriteByte(0)
		}
		offs[i] = uint64(body.Len())
		body.Write(s.Data)
	}
	for body.Len()%8 != 0 {
		body.WriteByte(0)
	}
	shoff := uint64(body.Len())
	body.Write(make([]byte, 64)) // the null section
	for i, s := range all {
		var h [64]byte
		le.PutUint32(h[0:], nameOff[i])
		le.PutUint32(h[4:], uint32(s.Type))
		le.PutUint64(h[8:], uint64(s.Flags))
		le.PutUint64(h[24:], offs[i])
		le.PutUint64(h[32:], uint64(len(s.Data)))
		le.PutUint64(h[48:], 1)
		body.Write(h[:])
	}
	b := body.Bytes()
	copy(b, elf.ELFMAG)
	b[elf.EI_CLASS] = byte(elf.ELFCLASS64)
	b[elf.EI_DATA] = byte(elf.ELFDATA2LSB)
	b[elf.EI_VERSION] = byte(elf.EV_CURRENT)
	le.PutUint16(b[16:], uint16(typ))
	le.PutUint16(b[18:], uint16(elf.EM_X86_64))
	le.PutUint32(b[20:], uint32(elf.EV_CURRENT))
	le.PutUint64(b[40:], shoff)
	le.PutUint16(b[52:], 64) // e_ehsize
	le.PutUint16(b[54:], 56) // e_phentsize
	le.PutUint16(b[58:], 64) // e_shentsize
	le.PutUint16(b[60:], uint16(len(all)+1))
	le.PutUint16(b[62:], uint16(len(all))) // .shstrtab is last
	return b
}

// Compressed returns the contents of an SHF_COMPRESSED section: an
// Elf64_Chdr that claims claim bytes once decompressed, then payload.
func Compressed(ct elf.CompressionType, claim uint64, payload []byte) []byte {
	h := make([]byte, 24, 24+len(payload))
	binary.LittleEndian.PutUint32(h[0:], uint32(ct))
	binary.LittleEndian.PutUint64(h[8:], claim)
	binary.LittleEndian.PutUint64(h[16:], 1)
	return append(h, payload...)
}

// ZstdZeros returns a zstd frame that decompresses to n zero bytes, in RLE
// blocks of 128 KiB: four bytes of input per block, a ratio of 32768.
func ZstdZeros(n int64) []byte {
	b := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x50} // magic, descriptor, 1 MiB window
	for n > 0 || len(b) == 6 {
		size := min(n, 128<<10)
		n -= size
		h := uint32(size)<<3 | 1<<1 // Block_Type 1: RLE
		if n == 0 {
			h |= 1 // Last_Block
		}
		b = append(b, byte(h), byte(h>>8), byte(h>>16), 0)
	}
	return b
}

// ZlibZeros returns a zlib stream of n zero bytes (about a thousandfold
// smaller).
func ZlibZeros(n int64) []byte {
	var buf bytes.Buffer
	w, _ := zlib.NewWriterLevel(&buf, zlib.BestCompression)
	zero := make([]byte, 64<<10)
	for n > 0 {
		k := min(n, int64(len(zero)))
		w.Write(zero[:k])
		n -= k
	}
	w.Close()
	return buf.Bytes()
}

// DebugBomb returns an executable whose .debug_info is zstd-compressed,
// claims claim bytes and holds a stream of real zero bytes; .debug_abbrev
// is empty. With real = claim it is the 48 KB file that asked for
// gigabytes.
func DebugBomb(claim uint64, real int64) []byte {
	return Sections(elf.ET_EXEC, []Section{
		{Name: ".debug_info", Type: elf.SHT_PROGBITS, Flags: elf.SHF_COMPRESSED, Data: Compressed(elf.COMPRESS_ZSTD, claim, ZstdZeros(real))},
		{Name: ".debug_abbrev", Type: elf.SHT_PROGBITS, Data: []byte{0}},
	})
}
