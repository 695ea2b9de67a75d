package sites

import (
	"cmp"
	"debug/elf"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/abifloor/abifloor/elfx"
)

// Kind says how a site uses its symbol.
type Kind string

const (
	// Call is a call or jump to the symbol's PLT entry.
	Call Kind = "call"
	// GOT is a call or load through the symbol's GOT slot (-fno-plt
	// code, an address taken in position-independent code).
	GOT Kind = "got"
	// Address is the PLT entry's address taken (non-PIE code).
	Address Kind = "address"
	// Data is a data word the loader sets to the symbol's address (a
	// function pointer in .data or .data.rel.ro); Function names the
	// object holding it.
	Data Kind = "data"
	// Pointer is code reading such a data word.
	Pointer Kind = "pointer"
	// Copy is code using the program's copy of an imported object
	// (a copy relocation: stdout, environ).
	Copy Kind = "copy"
	// Relocation is the relocation alone, on a machine whose code is
	// not decoded.
	Relocation Kind = "relocation"
)

// Site is one place that uses an imported symbol.
type Site struct {
	// Symbol is the symbol used, name@VERSION.
	Symbol  string
	Address uint64
	Kind    Kind
	// Function is the function (for Data, the object) the site lies
	// in: from .symtab, else the dynamic symbols, else DWARF; "" when
	// none says.
	Function string
	// File and Line are where the line table puts the site ("" and 0
	// without line information). For inlined code that is a line of the
	// inlined function, and Inlined says where it was inlined.
	File string
	Line int
	// Inlined is the inlined-from chain, innermost first.
	Inlined []Inline
}

// Inline is one inlined call around a site: Function's body was inlined
// at CallFile:CallLine.
type Inline struct {
	Function string
	CallFile string
	CallLine int
}

// String is the site as one line: function, file:line and the chain.
func (s Site) String() string {
	var b strings.Builder
	fn := s.Function
	if fn == "" {
		fn = fmt.Sprintf("%#x", s.Address)
	}
	b.WriteString(fn)
	if s.File != "" {
		fmt.Fprintf(&b, " %s:%d", s.File, s.Line)
	}
	for _, in := range s.Inlined {
		fmt.Fprintf(&b, ", in %s inlined at %s:%d", in.Function, in.CallFile, in.CallLine)
	}
	return b.String()
}

// Options tune Find.
type Options struct {
	// Path is where the file lies on disk, for .gnu_debuglink; "" for
	// a file that is not on disk (an artefact's member).
	Path string
	// DebugDirs are searched, in order, for a separate debug file, by
	// build ID (DIR/.build-id/xx/rest.debug) and .gnu_debuglink name;
	// DefaultDebugDir follows unless NoDefaultDebugDir.
	DebugDirs         []string
	NoDefaultDebugDir bool
	// NoLines skips DWARF: sites get their function only.
	NoLines bool
	// MaxDebugSize bounds what compressed debug sections may expand to,
	// together; 0 is 16 times the debug file's size plus 16 MiB, at most
	// 512 MiB.
	MaxDebugSize int64
}

// DefaultDebugDir is searched for separate debug files after
// Options.DebugDirs.
const DefaultDebugDir = "/usr/lib/debug"

// Result is what Find found.
type Result struct {
	// Sites are ordered by symbol, then address.
	Sites []Site
	// RelocOnly is set when the machine's code is not decoded: each
	// site is a relocation, attributed to its enclosing symbol.
	RelocOnly bool
	// Lines is set when DWARF line information was read.
	Lines bool
	// DebugFile is the separate debug file the lines came from.
	DebugFile string
	// Notes say what could not be done (unreadable DWARF, no section
	// headers), without failing the rest.
	Notes []string
}

// For returns the sites of symbol.
func (r *Result) For(symbol string) []Site {
	i := sort.Search(len(r.Sites), func(i int) bool { return r.Sites[i].Symbol >= symbol })
	j := i
	for j < len(r.Sites) && r.Sites[j].Symbol == symbol {
		j++
	}
	return r.Sites[i:j]
}

// ErrNoSections is wrapped when the file has no section headers: without
// them code cannot be told from data.
var ErrNoSections = errors.New("no section headers")

// Find returns every site in f of the imported symbols named in want
// (name@VERSION, or a name alone for an unversioned reference). A symbol
// the file does not import has no sites. Errors are about f's structure
// and do not name a path; a DWARF problem is a note, not an error.
func Find(f *elfx.File, want []string, opt Options) (*Result, error) {
	res := &Result{}
	if len(want) == 0 || f.Dynamic == nil {
		return res, nil
	}
	wanted := map[string]bool{}
	for _, w := range want {
		wanted[w] = true
	}
	syms, err := f.Symbols()
	if err != nil {
		return nil, fmt.Errorf("dynamic symbols: %w", err)
	}
	keys := map[uint32]string{}
	for i := 1; i < len(syms); i++ {
		s := syms[i]
		if !s.Undefined() && s.Library == "" {
			continue // the file's own definition, not an import
		}
		if k := s.String(); wanted[k] {
			keys[uint32(i)] = k
		}
	}
	if len(keys) == 0 {
		return res, nil
	}
	secs, err := f.Sections()
	if err != nil {
		return nil, fmt.Errorf("section headers: %w", err)
	}
	if len(secs) == 0 {
		return nil, ErrNoSections
	}
	relocs, err := f.SymbolRelocs()
	if err != nil {
		return nil, fmt.Errorf("relocations: %w", err)
	}
	sc := &scan{f: f, secs: secs, syms: syms, keys: keys, plt: map[uint64]string{}}
	if err := sc.symbols(); err != nil {
		return nil, err
	}
	arch := archOf(f)
	sc.classify(relocs, arch)
	switch arch {
	case archX86:
		err = sc.x86()
	case archARM64:
		err = sc.arm64()
	default:
		res.RelocOnly = true
	}
	if err != nil {
		return nil, err
	}
	// One instruction uses one symbol; a data word holds one: the
	// first site found at an address is kept.
	slices.SortStableFunc(sc.sites, func(a, b Site) int { return cmp.Compare(a.Address, b.Address) })
	res.Sites = slices.CompactFunc(sc.sites, func(a, b Site) bool { return a.Address == b.Address })
	for i := range res.Sites {
		s := &res.Sites[i]
		if s.Kind == Data || s.Kind == Relocation {
			s.Function = sc.enclosing(s.Address, true)
		} else {
			s.Function = sc.enclosing(s.Address, false)
		}
	}
	if !opt.NoLines {
		addLines(f, res, opt)
	}
	sort.Slice(res.Sites, func(i, j int) bool {
		a, b := res.Sites[i], res.Sites[j]
		if a.Symbol != b.Symbol {
			return a.Symbol < b.Symbol
		}
		return a.Address < b.Address
	})
	return res, nil
}

type archKind int

const (
	archOther archKind = iota
	archX86
	archARM64
)

func archOf(f *elfx.File) archKind {
	switch {
	case f.Machine == elf.EM_X86_64 && f.Class == elf.ELFCLASS64:
		return archX86
	case f.Machine == elf.EM_AARCH64 && f.Class == elf.ELFCLASS64 && f.Data == elf.ELFDATA2LSB:
		return archARM64
	}
	return archOther
}

// scan is one Find's state.
type scan struct {
	f    *elfx.File
	secs []elfx.Section
	syms []elfx.Symbol
	keys map[uint32]string // dynamic symbol index → name@VERSION, the wanted ones
	// targets are the addresses whose use is a site: GOT slots, data
	// words and copies of the wanted symbols, sorted by lo.
	targets []target
	// plt maps a wanted symbol's PLT entry to its key.
	plt   map[uint64]string
	funcs []span // function symbols, sorted
	objs  []span // object symbols, sorted
	syncs []uint64
	sites []Site
}

// target is an address range whose use names a symbol.
type target struct {
	lo, hi uint64
	key    string
	kind   Kind // GOT, Pointer or Copy
}

type span struct {
	lo, hi uint64
	name   string
}

// classify turns the wanted symbols' relocations into targets, and into
// sites where the relocation is itself the use (a data word; every
// relocation on a machine whose code is not decoded).
func (sc *scan) classify(relocs []elfx.Reloc, arch archKind) {
	for _, r := range relocs {
		key, ok := sc.keys[r.Sym]
		if !ok {
			continue
		}
		if arch == archOther {
			sc.add(Site{Symbol: key, Address: r.Off, Kind: Relocation})
			continue
		}
		if isCopy(sc.f.Machine, r.Type) {
			size := max(sc.syms[r.Sym].Size, 1)
			sc.targets = append(sc.targets, target{r.Off, r.Off + min(size, 1<<32), key, Copy})
			continue
		}
		inGOT := false
		if s := sc.sectionAt(r.Off); s != nil && strings.HasPrefix(s.Name, ".got") {
			inGOT = true
		}
		kind := GOT
		if !inGOT {
			kind = Pointer
			sc.add(Site{Symbol: key, Address: r.Off, Kind: Data})
		}
		sc.targets = append(sc.targets, target{r.Off, r.Off + 8, key, kind})
	}
	sort.Slice(sc.targets, func(i, j int) bool { return sc.targets[i].lo < sc.targets[j].lo })
}

func isCopy(m elf.Machine, t uint32) bool {
	switch m {
	case elf.EM_X86_64:
		return elf.R_X86_64(t) == elf.R_X86_64_COPY
	case elf.EM_AARCH64:
		return elf.R_AARCH64(t) == elf.R_AARCH64_COPY
	}
	return false
}

// add records a site; Find keeps the first of each address.
func (sc *scan) add(s Site) { sc.sites = append(sc.sites, s) }

// lookup returns the target holding addr.
func (sc *scan) lookup(addr uint64) (target, bool) {
	i := sort.Search(len(sc.targets), func(i int) bool { return sc.targets[i].lo > addr })
	for j := i - 1; j >= 0 && j >= i-4; j-- {
		if t := sc.targets[j]; addr >= t.lo && addr < t.hi {
			return t, true
		}
	}
	return target{}, false
}

// sectionAt is the allocated section holding addr.
func (sc *scan) sectionAt(addr uint64) *elfx.Section {
	for i := range sc.secs {
		s := &sc.secs[i]
		if s.Flags&elf.SHF_ALLOC != 0 && addr >= s.Addr && addr-s.Addr < s.Size {
			return s
		}
	}
	return nil
}

// symbols indexes the functions and objects the file names (.symtab,
// else its dynamic symbols) and the function starts .eh_frame_hdr lists,
// where decoding can start.
func (sc *scan) symbols() error {
	st, err := sc.f.StaticSymbols()
	if err != nil {
		return fmt.Errorf("symbol table: %w", err)
	}
	all := st
	if len(st) == 0 {
		all = sc.syms
	}
	for _, s := range all {
		if s.Undefined() || s.Value == 0 || s.Section >= elf.SHN_LORESERVE || s.Name == "" {
			continue
		}
		sp := span{s.Value, s.Value + s.Size, s.Name}
		switch s.Type {
		case elf.STT_FUNC, elf.STT_GNU_IFUNC:
			sc.funcs = append(sc.funcs, sp)
			sc.syncs = append(sc.syncs, s.Value)
		case elf.STT_OBJECT, elf.STT_TLS:
			sc.objs = append(sc.objs, sp)
		}
	}
	for _, l := range []*[]span{&sc.funcs, &sc.objs} {
		// Of two names at one address the first in the table is
		// kept first (a stable sort), so names are deterministic.
		slices.SortStableFunc(*l, func(a, b span) int {
			switch {
			case a.lo < b.lo:
				return -1
			case a.lo > b.lo:
				return 1
			}
			return 0
		})
	}
	sc.syncs = append(sc.syncs, ehFrameStarts(sc.f, sc.secs)...)
	slices.Sort(sc.syncs)
	sc.syncs = slices.Compact(sc.syncs)
	return nil
}

// enclosing names the function (data: the object) holding addr.
func (sc *scan) enclosing(addr uint64, data bool) string {
	l := sc.funcs
	if data {
		l = sc.objs
	}
	i := sort.Search(len(l), func(i int) bool { return l[i].lo > addr })
	// Sizes may be 0 (hand-written code): the nearest start below wins
	// only when no sized symbol holds addr.
	best := ""
	for j := i - 1; j >= 0 && j >= i-64; j-- {
		s := l[j]
		if addr < s.hi {
			return s.name
		}
		if s.hi == s.lo && best == "" && !data {
			best = s.name
		}
	}
	return best
}

// syncBefore is the last address at or below addr where code is known to
// start an instruction.
func (sc *scan) syncBefore(addr uint64) (uint64, bool) {
	i := sc.syncIndex(addr)
	if i == 0 {
		return 0, false
	}
	return sc.syncs[i-1], true
}

// syncIndex is the index of the first known instruction start above
// addr (len(sc.syncs) when there is none).
func (sc *scan) syncIndex(addr uint64) int {
	return sort.Search(len(sc.syncs), func(i int) bool { return sc.syncs[i] > addr })
}

// codeSections are the executable sections with contents, PLT sections
// apart.
func (sc *scan) codeSections() (code, plt []*elfx.Section) {
	for i := range sc.secs {
		s := &sc.secs[i]
		if s.Flags&elf.SHF_EXECINSTR == 0 || s.Type != elf.SHT_PROGBITS || s.Size == 0 {
			continue
		}
		if isPLT(s.Name) {
			plt = append(plt, s)
		} else {
			code = append(code, s)
		}
	}
	return code, plt
}

func isPLT(name string) bool {
	return name == ".plt" || name == ".plt.sec" || name == ".plt.got" || name == ".iplt" || name == ".plt.bnd"
}

// data reads section s whole (it lies inside the file: elfx checks).
func (sc *scan) data(s *elfx.Section) ([]byte, error) {
	b, err := sc.f.SectionData(s, elfx.NewBudget(sc.f.Size()))
	if err != nil {
		return nil, fmt.Errorf("section %s: %w", s.Name, err)
	}
	return b, nil
}
