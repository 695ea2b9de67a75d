package abiread

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/internal/input"
	"github.com/abifloor/abifloor/internal/limits"

	"github.com/abifloor/abifloor/elfx"
	"github.com/ianlancetaylor/demangle"
)

// DefaultDebugDir is searched for separate debug files after the
// directories given in Options.DebugDirs.
const DefaultDebugDir = "/usr/lib/debug"

// Options tune Load.
type Options struct {
	// DebugDirs are searched, in order, for separate debug info of an ELF
	// input: by build ID (DIR/.build-id/xx/rest.debug) and by
	// .gnu_debuglink name.
	DebugDirs []string
	// NoDefaultDebugDir skips DefaultDebugDir.
	NoDefaultDebugDir bool
	// MaxDebugSize bounds what the compressed sections of one file (debug
	// info above all) may expand to, together. 0 means debugRatio (16)
	// times the file's size plus 16 MiB, at most DefaultMaxDebugSize.
	MaxDebugSize int64
	// InputSize is the bytes on disk the input was read from, when they
	// are fewer than its own: an artefact's size, for its member
	// (LoadArg sets it). What abi holds of the input (the sections its
	// compressed sections expand to, the DWARF names it takes) is
	// bounded by it; 0 means the input's size.
	InputSize int64
}

// realSize is what the input of size bytes is held to.
func (opt Options) realSize(size int64) int64 {
	if opt.InputSize > 0 && opt.InputSize < size {
		return opt.InputSize
	}
	return size
}

// debugDirs is where separate debug files are looked for, in order.
func (opt Options) debugDirs() []string {
	dirs := append([]string(nil), opt.DebugDirs...)
	if !opt.NoDefaultDebugDir {
		dirs = append(dirs, DefaultDebugDir)
	}
	return dirs
}

// maxJSON bounds an ABI JSON input: the largest real dumps (libstdc++ with
// its DWARF) are tens of MB.
const maxJSON = limits.ABIJSON

// Load reads the ABI of path, which holds either an ELF file or ABI JSON
// (as abifloor abi dump --format json writes it). For an ELF file it reads
// the exported dynamic symbols and, when debug info is found (in the file,
// by build ID or by .gnu_debuglink, under opt.DebugDirs), the types they
// use; without debug info the ABI has symbols only and DebugInfo "none".
// Only a regular file is read. Errors name path.
//
// C header trees are read by Headers, which runs a compiler instead of
// reading a file.
func Load(ctx context.Context, path string, opt Options) (*abi.ABI, error) {
	var head [4]byte
	in, err := input.Open(path, nil, head[:])
	if errors.Is(err, input.ErrNotRegular) {
		return nil, fmt.Errorf("%s: %w", path, input.ErrNotRegular)
	}
	if err != nil {
		return nil, err
	}
	defer in.Close()
	return load(ctx, path, path, in.FD, in.Size, in.Head, opt)
}

// LoadReader is Load on size bytes held by r, named name in errors and in
// the ABI: a member of an artefact ("pkg.whl!/numpy/x.so"), read in place.
// Separate debug info is looked for by build ID and by .gnu_debuglink name
// under opt.DebugDirs only, since r has no directory to look beside.
func LoadReader(ctx context.Context, name string, r io.ReaderAt, size int64, opt Options) (*abi.ABI, error) {
	var magic [4]byte
	n, _ := r.ReadAt(magic[:], 0)
	return load(ctx, name, "", r, size, magic[:n], opt)
}

// load reads the ABI of r, which starts with head; disk is the path r was
// opened from, "" when it is not a file on disk.
func load(ctx context.Context, name, disk string, r io.ReaderAt, size int64, head []byte, opt Options) (*abi.ABI, error) {
	if elfx.IsELF(head) {
		real := opt.realSize(size)
		a, ef, err := readELF(name, r, size, real, opt.maxDebugSize())
		if err != nil {
			return nil, err
		}
		rel := ef.Type == elf.ET_REL
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !ef.HasDWARF() {
			dbgPath, dbg := findDebug(ef, disk, opt)
			if dbg == nil {
				return a, nil
			}
			defer dbg.Close()
			a.DebugFile = dbgPath
			name, ef, real = dbgPath, dbg.File, dbg.in.Size
		}
		return a, addTypesFrom(ctx, name, a, ef, real, opt.maxDebugSize(), opt.debugDirs(), rel)
	}
	if size > maxJSON {
		return nil, fmt.Errorf("%s: neither an ELF file nor ABI JSON of at most %d bytes", name, maxJSON)
	}
	b, err := io.ReadAll(io.NewSectionReader(r, 0, size))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("%s: neither an ELF file nor ABI JSON", name)
	}
	return parseJSON(name, b)
}

// parseJSON decodes ABI JSON; name is used in errors.
func parseJSON(name string, b []byte) (*abi.ABI, error) {
	var a abi.ABI
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, fmt.Errorf("%s: ABI JSON: %w", name, err)
	}
	if a.Schema < 1 || a.Schema > abi.Schema {
		// Schema 1 (C only) is a subset of 2: it reads as it is.
		return nil, fmt.Errorf("%s: ABI JSON schema %d, want 1 to %d", name, a.Schema, abi.Schema)
	}
	if err := checkNesting(&a); err != nil {
		return nil, fmt.Errorf("%s: ABI JSON: %w", name, err)
	}
	if a.Types == nil {
		a.Types = map[string]*abi.Type{}
	}
	if a.Symbols == nil {
		a.Symbols = []abi.Symbol{}
	}
	// Dumps written before versions were listed apart have each version
	// node as a symbol named like its version.
	syms := a.Symbols[:0]
	for _, s := range a.Symbols {
		if s.Version != "" && s.Name == s.Version {
			if !slices.Contains(a.Versions, s.Version) {
				a.Versions = append(a.Versions, s.Version)
			}
			continue
		}
		syms = append(syms, s)
	}
	a.Symbols = syms
	sort.Strings(a.Versions)
	return &a, nil
}

// readELF reads the exported symbols of the size-byte ELF file r through
// elfx, and its section headers, refusing compressed sections that would
// expand past maxDebug bytes (by default, 0: past debugRatio times real,
// the bytes on disk r was read from).
func readELF(name string, r io.ReaderAt, size, real, maxDebug int64) (*abi.ABI, *elfx.File, error) {
	xf, err := elfx.NewFile(r, size)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	a, err := symbolsOf(xf)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := checkELF(xf, real, maxDebug); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	return a, xf, nil
}

// addTypesFrom reads the DWARF of ef into a, decompressing at most
// maxDebug bytes (0: the default), and looks for a dwz alternate file
// under dirs; name is used in errors. The names it takes are bounded by
// real, the bytes on disk ef was read from (nameBudget). object says a's
// symbols are an object file's (typesOf).
func addTypesFrom(ctx context.Context, name string, a *abi.ABI, ef *elfx.File, real, maxDebug int64, dirs []string, object bool) error {
	d, secs, rel, err := loadDWARF(ef, maxDebug)
	if err != nil {
		return fmt.Errorf("%s: DWARF: %w", name, err)
	}
	// The bytes of .debug_abbrev and .debug_info read: a relocatable
	// object's were read whole for debug/dwarf.
	var abbrevs []byte
	var infoSize int
	var dwarfBytes int64
	if secs != nil {
		abbrevs, infoSize, dwarfBytes = secs.abbrev, len(secs.info), secs.dwarfBytes()
	} else if rel != nil {
		abbrevs, infoSize, dwarfBytes = rel.abbrev, len(rel.info), int64(len(rel.info)+rel.strSize)
	}
	if err := checkAbbrevs(abbrevs); err != nil {
		return fmt.Errorf("%s: DWARF: %w", name, err)
	}
	if err := attachAlt(ctx, ef, name, secs, dirs, maxDebug); err != nil {
		a.Notes = append(a.Notes, fmt.Sprintf("%s: %v: the types it holds are unknown", name, err))
	}
	if err := typesOf(ctx, a, d, secs, ef.ByteOrder(), infoSize, newNameBudget(dwarfBytes, real), object); err != nil {
		return fmt.Errorf("%s: DWARF: %w", name, err)
	}
	a.DebugInfo = abi.DebugDWARF
	return nil
}

// symbolsOf lists what f exports by the loader's rule (elfx.Symbol.Exported)
// and, apart, the versions it defines.
func symbolsOf(f *elfx.File) (*abi.ABI, error) {
	a := &abi.ABI{Schema: abi.Schema, Arch: f.Arch(), DebugInfo: abi.DebugNone, Types: map[string]*abi.Type{}, Symbols: []abi.Symbol{}}
	if f.Type == elf.ET_DYN && f.Dynamic != nil {
		a.SOName = f.Dynamic.Soname
	}
	if f.Type != elf.ET_DYN || f.Dynamic == nil {
		// An object file or an executable: what it defines for other
		// objects is the global functions and variables of .symtab, as
		// abidiff reads them. With no .symtab, an executable's dynamic
		// table (if any) is all there is.
		syms, err := f.StaticSymbols()
		if err != nil {
			return nil, fmt.Errorf("symbol table: %w", err)
		}
		if syms != nil {
			a.SymbolTable = ".symtab"
			for _, s := range syms {
				if !s.Defined() {
					continue
				}
				sym := abi.Symbol{Name: s.Name, Kind: symKind(s.Type), Binding: binding(s.Bind), Size: s.Size, Demangled: Demangle(s.Name)}
				sym.Place = s.Value | uint64(s.Section)<<abi.PlaceSection
				a.Symbols = append(a.Symbols, sym)
			}
			a.Sort()
			return a, nil
		}
	}
	if f.Dynamic == nil {
		return a, nil
	}
	defs, err := f.VersionDefs()
	if err != nil {
		return nil, fmt.Errorf("version definitions: %w", err)
	}
	for _, d := range defs {
		if !d.Base() && !slices.Contains(a.Versions, d.Name) {
			a.Versions = append(a.Versions, d.Name)
		}
	}
	sort.Strings(a.Versions)
	syms, err := f.Symbols()
	if err != nil {
		return nil, fmt.Errorf("dynamic symbols: %w", err)
	}
	for _, s := range syms {
		if !s.Exported() || s.VersionNode() {
			continue
		}
		sym := abi.Symbol{Name: s.Name, Version: s.Version, Default: s.Default, Kind: symKind(s.Type), Binding: binding(s.Bind), Size: s.Size,
			Place: s.Value, Demangled: Demangle(s.Name)}
		a.Symbols = append(a.Symbols, sym)
	}
	a.Sort()
	return a, nil
}

// Demangle returns the C++ name of a mangled symbol name, with parameter
// types (_ZNSt11logic_errorC2EPKc: std::logic_error::logic_error(char
// const*)); "" for a name that is not mangled or does not demangle.
func Demangle(name string) string {
	if !strings.HasPrefix(name, "_Z") {
		return ""
	}
	d, err := demangle.ToString(name, demangle.NoClones)
	if err != nil || d == name {
		return ""
	}
	return d
}

// Demangler is the readers' C++ demangler, for abidiff.Compare: with
// params it is Demangle; without, the qualified name alone
// (_ZN3lib4takeEi: lib::take), as libabigail matches a suppression's name.
type Demangler struct{}

// Demangle returns the C++ name of mangled, with or without its
// parameters; ok is false for a name that does not demangle.
func (Demangler) Demangle(mangled string, params bool) (string, bool) {
	if params {
		d := Demangle(mangled)
		return d, d != ""
	}
	d, err := demangle.ToString(mangled, demangle.NoParams, demangle.NoClones)
	return d, err == nil
}

func binding(b elf.SymBind) abi.Binding {
	switch b {
	case elf.STB_WEAK:
		return abi.BindWeak
	case elfx.STB_GNU_UNIQUE:
		return abi.BindUnique
	}
	return abi.BindGlobal
}

func symKind(t elf.SymType) abi.SymbolKind {
	switch t {
	case elf.STT_FUNC:
		return abi.SymFunc
	case elf.STT_OBJECT:
		return abi.SymObject
	case elf.STT_TLS:
		return abi.SymTLS
	case elf.STT_GNU_IFUNC:
		return abi.SymIFunc
	case elf.STT_COMMON:
		return abi.SymCommon
	}
	return abi.SymNoType
}
