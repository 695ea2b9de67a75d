package glibc

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/abifloor/abifloor/elfx"
)

// arMember is one object of an archive: its name (a base name) and its
// contents.
type arMember struct {
	name string
	data []byte
}

// writeArchive returns the GNU ar archive of members, in order, as
// `ar rcs` makes it with Debian's default D (deterministic: dates, owners
// zero, mode 644): the symbol index the link editor searches (the "/"
// member: a big-endian count, each symbol's member offset, the names
// NUL-terminated), the long-name table ("//") for names over 15 bytes,
// then the members, each padded to an even size.
func writeArchive(members []arMember) ([]byte, error) {
	type entry struct {
		member int
		name   string
	}
	var (
		index []entry
		names bytes.Buffer // the long-name table
		field = make([]string, len(members))
	)
	for i, m := range members {
		if m.name == "" || strings.ContainsAny(m.name, "/\n") {
			return nil, fmt.Errorf("glibc: archive member name %q", m.name)
		}
		syms, err := arSymbols(m.data)
		if err != nil {
			return nil, fmt.Errorf("glibc: archive member %s: %w", m.name, err)
		}
		for _, s := range syms {
			index = append(index, entry{i, s})
		}
		if len(m.name) <= 15 {
			field[i] = m.name + "/"
		} else {
			field[i] = "/" + strconv.Itoa(names.Len())
			names.WriteString(m.name + "/\n")
		}
	}
	if names.Len()%2 != 0 {
		names.WriteByte('\n')
	}
	var symtab bytes.Buffer // the index's names
	for _, e := range index {
		symtab.WriteString(e.name)
		symtab.WriteByte(0)
	}
	indexSize := 4 + 4*len(index) + symtab.Len()
	if indexSize%2 != 0 {
		symtab.WriteByte(0)
		indexSize++
	}
	const hdr = 60
	pos := 8 + hdr + indexSize
	if names.Len() > 0 {
		pos += hdr + names.Len()
	}
	offsets := make([]int, len(members))
	for i, m := range members {
		offsets[i] = pos
		pos += hdr + len(m.data) + len(m.data)%2
	}
	if pos > math.MaxUint32 {
		return nil, fmt.Errorf("glibc: archive of %d bytes: a 32-bit index cannot address it", pos)
	}
	out := bytes.NewBuffer(make([]byte, 0, pos))
	out.WriteString("!<arch>\n")
	header := func(name, mode string, size int) {
		fmt.Fprintf(out, "%-16s%-12s%-6s%-6s%-8s%-10d`\n", name, "0", "0", "0", mode, size)
	}
	header("/", "0", indexSize)
	out.Write(binary.BigEndian.AppendUint32(nil, uint32(len(index))))
	for _, e := range index {
		out.Write(binary.BigEndian.AppendUint32(nil, uint32(offsets[e.member])))
	}
	out.Write(symtab.Bytes())
	if names.Len() > 0 {
		// The long-name table has a name and a size only.
		fmt.Fprintf(out, "%-48s%-10d`\n", "//", names.Len())
		out.Write(names.Bytes())
	}
	for i, m := range members {
		header(field[i], "644", len(m.data))
		out.Write(m.data)
		if len(m.data)%2 != 0 {
			out.WriteByte('\n')
		}
	}
	return out.Bytes(), nil
}

// arSymbols are the names an ELF object defines for other objects, in
// its symbol table's order: global, weak and unique symbols that are not
// undefined (common ones included), which ar puts in the index.
func arSymbols(obj []byte) ([]string, error) {
	f, err := elfx.NewFile(bytes.NewReader(obj), int64(len(obj)))
	if err != nil {
		return nil, err
	}
	syms, err := f.StaticSymbols()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range syms {
		switch s.Bind {
		case elf.STB_GLOBAL, elf.STB_WEAK, elfx.STB_GNU_UNIQUE:
		default:
			continue
		}
		if s.Section == elf.SHN_UNDEF || s.Name == "" {
			continue
		}
		out = append(out, s.Name)
	}
	return out, nil
}
