package abi

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/abifloor/abifloor/elfx"
)

// DefaultDebugDir is searched for separate debug files after the
// directories given in Options.DebugDirs.
const DefaultDebugDir = "/usr/lib/debug"

// Options tune ReadELF.
type Options struct {
	// DebugDirs are searched, in order, for separate debug info: by build
	// ID (DIR/.build-id/xx/rest.debug) and by .gnu_debuglink name.
	DebugDirs []string
	// NoDefaultDebugDir skips DefaultDebugDir.
	NoDefaultDebugDir bool
	// MaxDebugSize bounds what the compressed sections of one file (debug
	// info above all) may expand to, together; 0 means DefaultMaxDebugSize.
	MaxDebugSize int64
}

// Load reads an ABI from path, which may hold ABI JSON (as written by
// abifloor abi dump --format json) or an ELF file.
func Load(path string) (*ABI, error) {
	return LoadWith(path, Options{})
}

// LoadWith is Load with options for ELF inputs.
func LoadWith(path string, opt Options) (*ABI, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var magic [4]byte
	n, _ := f.ReadAt(magic[:], 0)
	if n == 4 && string(magic[:]) == elf.ELFMAG {
		return ReadELF(path, opt)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("%s: neither an ELF file nor ABI JSON", path)
	}
	return ParseJSON(path, b)
}

// ParseJSON decodes ABI JSON; name is used in errors.
func ParseJSON(name string, b []byte) (*ABI, error) {
	var a ABI
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, fmt.Errorf("%s: ABI JSON: %w", name, err)
	}
	if a.Schema != Schema {
		return nil, fmt.Errorf("%s: ABI JSON schema %d, want %d", name, a.Schema, Schema)
	}
	if a.Types == nil {
		a.Types = map[string]*Type{}
	}
	return &a, nil
}

// ReadELF reads the exported symbols of an ELF file and, when debug info is
// found (in the file, by build ID or by .gnu_debuglink), the types they use.
// Without debug info the ABI has symbols only and DebugInfo "none".
func ReadELF(path string, opt Options) (*ABI, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ef, err := newELF(f, opt.maxDebugSize())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	a, err := guard(path, func() (*ABI, error) { return symbolsOf(ef) })
	if err != nil {
		return nil, err
	}
	if !hasDWARF(ef) {
		dbgPath, dbg := findDebug(ef, path, opt)
		if dbg == nil {
			return a, nil
		}
		defer dbg.Close()
		a.DebugFile = dbgPath
		path, ef = dbgPath, dbg.File
	}
	return guard(path, func() (*ABI, error) { return addTypes(path, a, ef, opt.maxDebugSize()) })
}

// addTypes reads the DWARF of ef into a, holding at most maxDebug bytes of
// uncompressed debug sections; name is used in errors.
func addTypes(name string, a *ABI, ef *elf.File, maxDebug int64) (*ABI, error) {
	d, secs, err := loadDWARF(ef, maxDebug)
	if err != nil {
		return nil, fmt.Errorf("%s: DWARF: %w", name, err)
	}
	if err := typesOf(a, d, secs); err != nil {
		return nil, fmt.Errorf("%s: DWARF: %w", name, err)
	}
	a.DebugInfo = DebugDWARF
	return a, nil
}

// FromELF reads an ABI from an ELF image in memory, with only the debug
// info it contains. It is the entry point the fuzzer drives.
func FromELF(name string, r io.ReaderAt) (*ABI, error) {
	ef, err := newELF(r, DefaultMaxDebugSize)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return guard(name, func() (*ABI, error) {
		a, err := symbolsOf(ef)
		if err != nil || !hasDWARF(ef) {
			return a, err
		}
		return addTypes(name, a, ef, DefaultMaxDebugSize)
	})
}

// guard turns a panic in debug/elf or debug/dwarf (which trust some
// lengths in the file) into an error naming the file.
func guard(name string, fn func() (*ABI, error)) (a *ABI, err error) {
	defer func() {
		if r := recover(); r != nil {
			a, err = nil, fmt.Errorf("%s: malformed ELF or DWARF: %v", name, r)
		}
	}()
	return fn()
}

// loadDWARF reads only the sections type extraction needs. (*elf.File).DWARF
// also decompresses line tables and location lists, which in a libc debug
// file are larger than the types. For a relocatable object, whose
// .debug_info needs relocating, it returns a dwarf.Data; otherwise the
// section bytes, from which a dwarf.Data is built only if needed.
// Compressed sections count against maxSize (their uncompressed size) and
// are refused past it before anything is decompressed.
func loadDWARF(f *elf.File, maxSize int64) (*dwarf.Data, *sections, error) {
	if f.Type == elf.ET_REL {
		if err := checkDebugSizes(f, maxSize); err != nil {
			return nil, nil, err
		}
		d, err := f.DWARF()
		return d, nil, err
	}
	budget := newDebugBudget(maxSize)
	s := &sections{order: f.ByteOrder}
	for _, x := range []struct {
		name string
		dst  *[]byte
	}{
		{".debug_info", &s.info}, {".debug_abbrev", &s.abbrev}, {".debug_str", &s.str},
		{".debug_line_str", &s.lineStr}, {".debug_str_offsets", &s.strOffsets}, {".debug_addr", &s.addr},
	} {
		sec := f.Section(x.name)
		if sec == nil || sec.Type == elf.SHT_NOBITS {
			continue
		}
		b, err := sectionData(sec, budget)
		if err != nil {
			return nil, nil, err
		}
		*x.dst = b
	}
	return nil, s, nil
}

// data builds the debug/dwarf view of the sections.
func (s *sections) data() (*dwarf.Data, error) {
	d, err := dwarf.New(s.abbrev, nil, nil, s.info, nil, nil, nil, s.str)
	if err != nil {
		return nil, err
	}
	// Forms of DWARF 5 that point into these sections (strx, addrx,
	// line_strp) need them; the rest are not read.
	for _, x := range []struct {
		name string
		b    []byte
	}{{".debug_line_str", s.lineStr}, {".debug_str_offsets", s.strOffsets}, {".debug_addr", s.addr}} {
		if x.b != nil {
			if err := d.AddSection(x.name, x.b); err != nil {
				return nil, err
			}
		}
	}
	return d, nil
}

func hasDWARF(f *elf.File) bool {
	s := f.Section(".debug_info")
	return s != nil && s.Type != elf.SHT_NOBITS && s.Size > 0
}

func symbolsOf(f *elf.File) (*ABI, error) {
	a := &ABI{Schema: Schema, Arch: archName(f), DebugInfo: DebugNone, Types: map[string]*Type{}, Symbols: []Symbol{}}
	if f.Type == elf.ET_DYN {
		if so, err := f.DynString(elf.DT_SONAME); err == nil && len(so) > 0 {
			a.SOName = so[0]
		}
	}
	syms, err := f.DynamicSymbols()
	if err != nil {
		if errors.Is(err, elf.ErrNoSymbols) {
			return a, nil
		}
		return nil, fmt.Errorf("dynamic symbols: %w", err)
	}
	for _, s := range syms {
		if s.Section == elf.SHN_UNDEF || s.Name == "" {
			continue
		}
		bind := elf.ST_BIND(s.Info)
		var binding string
		switch bind {
		case elf.STB_GLOBAL:
			binding = "global"
		case elf.STB_WEAK:
			binding = "weak"
		case stbGNUUnique:
			binding = "unique"
		default:
			continue
		}
		if v := elf.ST_VISIBILITY(s.Other); v == elf.STV_HIDDEN || v == elf.STV_INTERNAL {
			continue
		}
		sym := Symbol{Name: s.Name, Binding: binding, Kind: symKind(elf.ST_TYPE(s.Info)), Size: s.Size, addr: s.Value}
		if s.HasVersion && s.Version != "" {
			sym.Version = s.Version
			sym.Default = !s.VersionIndex.IsHidden()
		}
		a.Symbols = append(a.Symbols, sym)
	}
	a.Sort()
	return a, nil
}

// stbGNUUnique is STB_GNU_UNIQUE (STB_LOOS), which debug/elf does not name.
const stbGNUUnique elf.SymBind = 10

func symKind(t elf.SymType) string {
	switch t {
	case elf.STT_FUNC:
		return "func"
	case elf.STT_OBJECT:
		return "object"
	case elf.STT_TLS:
		return "tls"
	case elf.STT_GNU_IFUNC:
		return "ifunc"
	case elf.STT_COMMON:
		return "common"
	}
	return "notype"
}

func archName(f *elf.File) string { return elfx.ArchName(f.Machine, f.Class, f.Data) }

// debugFile is a separate debug file kept open while its DWARF is read.
type debugFile struct {
	*elf.File
	os *os.File
}

func (d *debugFile) Close() { d.os.Close() }

// findDebug looks for the separate debug file of f as gdb does: by build
// ID under each debug directory, then by .gnu_debuglink next to the file,
// in its .debug directory and under each debug directory.
func findDebug(f *elf.File, path string, opt Options) (string, *debugFile) {
	dirs := append([]string(nil), opt.DebugDirs...)
	if !opt.NoDefaultDebugDir {
		dirs = append(dirs, DefaultDebugDir)
	}
	id := buildID(f)
	var cands []string
	if len(id) >= 2 {
		h := hex.EncodeToString(id)
		for _, d := range dirs {
			cands = append(cands, filepath.Join(d, ".build-id", h[:2], h[2:]+".debug"))
		}
	}
	if link := debugLink(f); link != "" {
		dir := filepath.Dir(path)
		abs, _ := filepath.Abs(dir)
		cands = append(cands, filepath.Join(dir, link), filepath.Join(dir, ".debug", link))
		for _, d := range dirs {
			cands = append(cands, filepath.Join(d, abs, link), filepath.Join(d, link))
		}
	}
	for _, c := range cands {
		if c == path {
			continue
		}
		// A debug file must be a regular file: a FIFO named by a
		// planted .gnu_debuglink would block the open or the read.
		osf, err := openRegular(c)
		if err != nil {
			continue
		}
		ef, err := newELF(osf, opt.maxDebugSize())
		if err != nil || !hasDWARF(ef) || (len(id) > 0 && !bytes.Equal(buildID(ef), id) && buildID(ef) != nil) {
			osf.Close()
			continue
		}
		return c, &debugFile{File: ef, os: osf}
	}
	return "", nil
}

// buildID returns the GNU build ID note's descriptor, or nil.
func buildID(f *elf.File) []byte {
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOTE || s.Size > 1<<16 {
			continue
		}
		b, err := s.Data()
		if err != nil {
			continue
		}
		for len(b) >= 12 {
			nsz := f.ByteOrder.Uint32(b[0:])
			dsz := f.ByteOrder.Uint32(b[4:])
			typ := f.ByteOrder.Uint32(b[8:])
			b = b[12:]
			na, da := align4(nsz), align4(dsz)
			if uint64(na)+uint64(da) > uint64(len(b)) {
				break
			}
			if typ == 3 && nsz == 4 && string(b[:4]) == "GNU\x00" {
				return b[na : na+dsz]
			}
			b = b[na+da:]
		}
	}
	return nil
}

func align4(n uint32) uint32 { return (n + 3) &^ 3 }

func debugLink(f *elf.File) string {
	s := f.Section(".gnu_debuglink")
	if s == nil || s.Size > 4096 {
		return ""
	}
	b, err := s.Data()
	if err != nil {
		return ""
	}
	if i := bytes.IndexByte(b, 0); i > 0 {
		return filepath.Base(string(b[:i]))
	}
	return ""
}
