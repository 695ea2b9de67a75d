package sites

import (
	"debug/dwarf"
	"encoding/binary"
	"fmt"
	"io"
	"path"
	"slices"
	"sort"

	"github.com/abifloor/abifloor/elfx"
)

// maxDebugDefault bounds what one file's compressed debug sections may
// expand to by default, whatever its size.
const maxDebugDefault = 512 << 20

// addLines fills in the file, line and inlined-from chain of each site
// from the DWARF of f or of its separate debug file. What cannot be read
// is a note: the sites stand without lines.
func addLines(f *elfx.File, res *Result, opt Options) {
	if len(res.Sites) == 0 {
		return
	}
	src := f
	if !f.HasDWARF() {
		path, dbg := findDebug(f, opt)
		if dbg == nil {
			return
		}
		defer dbg.Close()
		src, res.DebugFile = dbg, path
	}
	d, line, err := loadDWARF(src, opt.MaxDebugSize)
	if err != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("debug info%s: %v: sites without lines", inFile(res.DebugFile), err))
		return
	}
	ix, err := newLineIndex(d, line, src.ByteOrder())
	if err != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("debug info%s: %v: sites without lines", inFile(res.DebugFile), err))
		return
	}
	res.Lines = true
	var pcs []uint64
	for _, s := range res.Sites {
		if s.Kind != Data {
			pcs = append(pcs, s.Address)
		}
	}
	ix.want(pcs)
	for i := range res.Sites {
		s := &res.Sites[i]
		if s.Kind == Data {
			continue // a data word has no line
		}
		ix.locate(s)
	}
	if ix.err != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("debug info%s: %v: some sites without lines", inFile(res.DebugFile), ix.err))
	}
}

func inFile(path string) string {
	if path == "" {
		return ""
	}
	return " (" + path + ")"
}

// loadDWARF reads f's debug sections, decompressed within a budget of
// maxDebug bytes (0: 16 times the file's size plus 16 MiB, at most
// maxDebugDefault), into a dwarf.Data.
func loadDWARF(f *elfx.File, maxDebug int64) (*dwarf.Data, []byte, error) {
	if maxDebug <= 0 {
		maxDebug = min(f.Size()*16+16<<20, maxDebugDefault)
	}
	budget := elfx.NewBudget(maxDebug)
	secs, err := f.Sections()
	if err != nil {
		return nil, nil, err
	}
	dat := map[string][]byte{}
	for i := range secs {
		name := elfx.DWARFName(&secs[i])
		switch name {
		case ".debug_abbrev", ".debug_info", ".debug_str", ".debug_line", ".debug_ranges",
			".debug_addr", ".debug_line_str", ".debug_str_offsets", ".debug_rnglists":
		default:
			continue
		}
		if _, ok := dat[name]; ok {
			continue
		}
		b, err := f.SectionData(&secs[i], budget)
		if err != nil {
			return nil, nil, err
		}
		dat[name] = b
	}
	d, err := dwarf.New(dat[".debug_abbrev"], nil, nil, dat[".debug_info"], dat[".debug_line"], nil, dat[".debug_ranges"], dat[".debug_str"])
	if err != nil {
		return nil, nil, err
	}
	for _, name := range []string{".debug_addr", ".debug_line_str", ".debug_str_offsets", ".debug_rnglists"} {
		if b, ok := dat[name]; ok {
			if err := d.AddSection(name, b); err != nil {
				return nil, nil, err
			}
		}
	}
	return d, dat[".debug_line"], nil
}

// findDebug looks for f's separate debug file as gdb does (see
// elfx.FindDebug): a candidate must be a regular file holding DWARF.
func findDebug(f *elfx.File, opt Options) (string, *elfx.File) {
	dirs := append([]string(nil), opt.DebugDirs...)
	if !opt.NoDefaultDebugDir {
		dirs = append(dirs, DefaultDebugDir)
	}
	c, dbg, _ := elfx.FindDebug(f, opt.Path, dirs, func(c string) (*elfx.File, bool) {
		dbg, err := elfx.Open(c)
		if err != nil {
			return nil, false
		}
		if !dbg.HasDWARF() {
			dbg.Close()
			return nil, false
		}
		return dbg, true
	})
	return c, dbg
}

// lineIndex answers, for an address, its compilation unit's line and
// its inlined-from chain. Units are indexed by their ranges once; a
// unit's line table and scopes are read on the first site in it.
type lineIndex struct {
	d     *dwarf.Data
	line  []byte // .debug_line, for checkLineHeader
	bo    binary.ByteOrder
	units []unitRange // sorted by lo
	cache map[dwarf.Offset]*unitInfo
	names map[dwarf.Offset]string
	// pcs are, per unit, the sorted addresses of the sites in it: only
	// what they need of the unit is kept (a unit of an amalgamation has
	// hundreds of thousands of rows, and the heap is held small).
	pcs map[dwarf.Offset][]uint64
	err error // the first error met after the index was built
}

type unitRange struct {
	lo, hi uint64
	off    dwarf.Offset
}

// unitInfo is what one unit says about addresses.
type unitInfo struct {
	rows []row // every real sequence's rows, by address (without pcs)
	// at is, when the unit was read for known addresses, the row in
	// effect at each (lineOf's answer), in place of rows.
	at     map[uint64]row
	files  []*dwarf.LineFile
	scopes []scope // subprograms and inlined subroutines, in DIE order
}

type row struct {
	addr uint64
	file string
	line int
	end  bool // end of a sequence: no line from here
}

type scope struct {
	ranges   [][2]uint64
	depth    int
	inlined  bool
	name     string
	callFile string
	callLine int
}

func newLineIndex(d *dwarf.Data, line []byte, bo binary.ByteOrder) (*lineIndex, error) {
	ix := &lineIndex{d: d, line: line, bo: bo, cache: map[dwarf.Offset]*unitInfo{}, names: map[dwarf.Offset]string{}}
	r := d.Reader()
	last := dwarf.Offset(0)
	for first := true; ; first = false {
		e, err := r.Next()
		if err != nil {
			return nil, err
		}
		if e == nil {
			break
		}
		// Every entry lies past the one before: a reader that does
		// not move on (a malformed unit) must not spin.
		if !first && e.Tag != 0 && e.Offset <= last {
			return nil, fmt.Errorf("entry at %#x does not follow %#x", e.Offset, last)
		}
		last = max(last, e.Offset)
		if e.Tag == dwarf.TagCompileUnit || e.Tag == dwarf.TagPartialUnit {
			for _, rg := range realRanges(d, e) {
				ix.units = append(ix.units, unitRange{rg[0], rg[1], e.Offset})
			}
		}
		r.SkipChildren()
	}
	sort.Slice(ix.units, func(i, j int) bool { return ix.units[i].lo < ix.units[j].lo })
	return ix, nil
}

// unitOf is the unit whose ranges hold pc.
func (ix *lineIndex) unitOf(pc uint64) (dwarf.Offset, bool) {
	i := sort.Search(len(ix.units), func(i int) bool { return ix.units[i].lo > pc })
	for j := i - 1; j >= 0 && j >= i-8; j-- {
		if u := ix.units[j]; pc >= u.lo && pc < u.hi {
			return u.off, true
		}
	}
	return 0, false
}

// want records, before any unit is read, the addresses sites will be
// located at, so that each unit keeps only what they need.
func (ix *lineIndex) want(pcs []uint64) {
	ix.pcs = map[dwarf.Offset][]uint64{}
	for _, pc := range pcs {
		if off, ok := ix.unitOf(pc); ok {
			ix.pcs[off] = append(ix.pcs[off], pc)
		}
	}
	for off, l := range ix.pcs {
		slices.Sort(l)
		ix.pcs[off] = slices.Compact(l)
	}
}

// locate sets s's file, line and chain; Function too when no symbol
// named it.
func (ix *lineIndex) locate(s *Site) {
	pc := s.Address
	if off, ok := ix.unitOf(pc); ok {
		ui := ix.unit(off)
		if ui == nil {
			return
		}
		if r, ok := ui.lineOf(pc); ok {
			s.File, s.Line = r.file, r.line
		}
		var chain []scope
		for _, sc := range ui.scopes {
			if sc.contains(pc) {
				chain = append(chain, sc)
			}
		}
		// chain is outermost first: a subprogram, then the inlined
		// subroutines nested in it.
		for k := len(chain) - 1; k >= 0; k-- {
			c := chain[k]
			if !c.inlined {
				if s.Function == "" {
					s.Function = c.name
				}
				break
			}
			s.Inlined = append(s.Inlined, Inline{Function: c.name, CallFile: c.callFile, CallLine: c.callLine})
		}
	}
}

func (sc scope) contains(pc uint64) bool {
	for _, r := range sc.ranges {
		if pc >= r[0] && pc < r[1] {
			return true
		}
	}
	return false
}

// lineOf is the row in effect at pc: the last row at or below it in
// its sequence.
func (ui *unitInfo) lineOf(pc uint64) (row, bool) {
	if ui.at != nil {
		r, ok := ui.at[pc]
		return r, ok && !r.end
	}
	i := sort.Search(len(ui.rows), func(i int) bool { return ui.rows[i].addr > pc })
	if i == 0 {
		return row{}, false
	}
	r := ui.rows[i-1]
	if r.end {
		return row{}, false
	}
	return r, true
}

// unit reads the unit at off: its line table and its scopes.
func (ix *lineIndex) unit(off dwarf.Offset) *unitInfo {
	if ui, ok := ix.cache[off]; ok {
		return ui
	}
	ui, err := ix.readUnit(off)
	if err != nil && ix.err == nil {
		ix.err = err
	}
	ix.cache[off] = ui
	return ui
}

func (ix *lineIndex) readUnit(off dwarf.Offset) (*unitInfo, error) {
	r := ix.d.Reader()
	r.Seek(off)
	cu, err := r.Next()
	if err != nil || cu == nil {
		return nil, errOr(err, "no unit at %#x", off)
	}
	ui := &unitInfo{}
	pcs, filtered := ix.pcs[off]
	var at *rowsAt
	if filtered {
		at = newRowsAt(pcs)
	}
	if off, ok := cu.Val(dwarf.AttrStmtList).(int64); ok {
		if err := checkLineHeader(ix.line, off, ix.bo); err != nil {
			return nil, err
		}
	}
	lr, err := ix.d.LineReader(cu)
	if err != nil {
		return nil, err
	}
	// A DWARF 5 line table names files in directories relative to
	// the unit's compilation directory, and debug/dwarf leaves them so
	// (it joins them for DWARF 4): joined here, as objdump and
	// debuggers show them.
	compDir, _ := cu.Val(dwarf.AttrCompDir).(string)
	joined := map[string]string{}
	resolve := func(name string) string {
		if name == "" || compDir == "" || path.IsAbs(name) {
			return name
		}
		j, ok := joined[name]
		if !ok {
			j = path.Join(compDir, name)
			joined[name] = j
		}
		return j
	}
	if lr != nil {
		var e dwarf.LineEntry
		var seq []row
		for {
			if err := lr.Next(&e); err != nil {
				if err != io.EOF {
					return nil, err
				}
				break
			}
			name := ""
			if e.File != nil {
				name = resolve(e.File.Name)
			}
			r := row{e.Address, name, e.Line, e.EndSequence}
			if at != nil {
				// A whole unit's code may be one sequence:
				// its rows stream into at, none kept.
				at.stream(r)
				continue
			}
			// Of rows at one address in a sequence the last
			// counts, as for objdump (bfd keeps the last).
			if n := len(seq); n > 0 && !r.end && !seq[n-1].end && seq[n-1].addr == r.addr {
				seq[n-1] = r
			} else {
				seq = append(seq, r)
			}
			if e.EndSequence {
				// A sequence at address 0 is a function the
				// linker discarded: it covers no real code.
				if seq[0].addr != 0 {
					ui.rows = append(ui.rows, seq...)
				}
				seq = seq[:0]
			}
		}
		ui.files = lr.Files()
		if at != nil {
			ui.at = at.answers()
		}
		// Sequences need not come in address order. Where one ends
		// and the next starts, the start counts: end rows sort first.
		sort.SliceStable(ui.rows, func(i, j int) bool {
			a, b := ui.rows[i], ui.rows[j]
			if a.addr != b.addr {
				return a.addr < b.addr
			}
			return a.end && !b.end
		})
	}
	if !cu.Children {
		return ui, nil
	}
	depth := 0
	last := cu.Offset
	for depth >= 0 {
		e, err := r.Next()
		if err != nil {
			return ui, err
		}
		if e == nil {
			break
		}
		// A null entry (Tag 0) carries no offset; it still
		// consumes its byte.
		if e.Tag != 0 && e.Offset <= last {
			return ui, fmt.Errorf("entry at %#x does not follow %#x", e.Offset, last)
		}
		last = max(last, e.Offset)
		if e.Tag == 0 {
			depth--
			continue
		}
		isScope := e.Tag == dwarf.TagSubprogram || e.Tag == dwarf.TagInlinedSubroutine
		var rs [][2]uint64
		if isScope {
			rs = realRanges(ix.d, e)
		}
		if filtered && e.Children && noSiteWithin(e, rs, pcs) {
			// Nothing under it can hold a site: its entries are not
			// decoded (a sibling attribute jumps past them).
			r.SkipChildren()
			continue
		}
		if isScope {
			if len(rs) > 0 && (!filtered || holdsAny(rs, pcs)) {
				sc := scope{ranges: rs, depth: depth, inlined: e.Tag == dwarf.TagInlinedSubroutine, name: ix.nameOf(e, 0)}
				if sc.inlined {
					if fi, ok := e.Val(dwarf.AttrCallFile).(int64); ok && fi >= 0 && fi < int64(len(ui.files)) && ui.files[fi] != nil {
						sc.callFile = resolve(ui.files[fi].Name)
					}
					if l, ok := e.Val(dwarf.AttrCallLine).(int64); ok {
						sc.callLine = int(l)
					}
				}
				ui.scopes = append(ui.scopes, sc)
			}
		}
		if e.Children {
			depth++
		}
	}
	return ui, nil
}

// nameOf is the name of the function e describes, through its abstract
// origin or specification (a hop or two, never a cycle).
func (ix *lineIndex) nameOf(e *dwarf.Entry, hops int) string {
	if n, ok := e.Val(dwarf.AttrName).(string); ok {
		return n
	}
	if n, ok := e.Val(dwarf.AttrLinkageName).(string); ok {
		return n
	}
	if hops > 3 {
		return ""
	}
	for _, a := range []dwarf.Attr{dwarf.AttrAbstractOrigin, dwarf.AttrSpecification} {
		off, ok := e.Val(a).(dwarf.Offset)
		if !ok {
			continue
		}
		if n, ok := ix.names[off]; ok {
			return n
		}
		r := ix.d.Reader()
		r.Seek(off)
		o, err := r.Next()
		if err != nil || o == nil {
			return ""
		}
		n := ix.nameOf(o, hops+1)
		ix.names[off] = n
		return n
	}
	return ""
}

func errOr(err error, format string, args ...any) error {
	if err != nil {
		return err
	}
	return fmt.Errorf(format, args...)
}

// realRanges are e's address ranges that hold code: not empty, not at
// address 0 (where the linker leaves what it discarded).
func realRanges(d *dwarf.Data, e *dwarf.Entry) [][2]uint64 {
	rs, err := d.Ranges(e)
	if err != nil {
		return nil
	}
	out := rs[:0]
	for _, r := range rs {
		if r[0] != 0 && r[0] < r[1] {
			out = append(out, r)
		}
	}
	return out
}

// holdsAny reports whether a range of rs holds one of pcs (sorted).
func holdsAny(rs [][2]uint64, pcs []uint64) bool {
	for _, r := range rs {
		k, _ := slices.BinarySearch(pcs, r[0])
		if k < len(pcs) && pcs[k] < r[1] {
			return true
		}
	}
	return false
}

// rowsAt finds, as a unit's rows stream by, lineOf's answer for each
// of a few addresses without keeping the rows: the row last in the
// order lineOf sorts them (by address, a sequence's end first, then as
// read) at or below each address.
type rowsAt struct {
	pcs  []uint64
	best []rowAt // per address, the best row above the address before it
	n    int
	// The sequence being read: its last row, which a row at its address
	// replaces, and whether it lies at address 0.
	pending   row
	inSeq     bool
	discarded bool
}

// stream takes the rows of a line program in order and does what
// readUnit does with a sequence's rows: of rows at one address the last
// counts (as for objdump: bfd keeps the last), and a sequence at
// address 0 (a function the linker discarded) counts not at all.
func (ra *rowsAt) stream(r row) {
	switch {
	case !ra.inSeq:
		ra.inSeq, ra.discarded = true, r.addr == 0
	case !r.end && !ra.pending.end && ra.pending.addr == r.addr:
	default:
		if !ra.discarded {
			ra.add(ra.pending)
		}
	}
	ra.pending = r
	if r.end {
		if !ra.discarded {
			ra.add(r)
		}
		ra.inSeq = false
	}
}

type rowAt struct {
	r     row
	order int
	ok    bool
}

func newRowsAt(pcs []uint64) *rowsAt {
	return &rowsAt{pcs: pcs, best: make([]rowAt, len(pcs))}
}

// after reports whether a sorts after b in lineOf's order.
func (a rowAt) after(b rowAt) bool {
	if !b.ok || a.r.addr != b.r.addr {
		return !b.ok || a.r.addr > b.r.addr
	}
	if a.r.end != b.r.end {
		return b.r.end
	}
	return a.order > b.order
}

func (ra *rowsAt) add(r row) {
	c := rowAt{r, ra.n, true}
	ra.n++
	// The first address at or above the row: for later addresses a row
	// at or above this address, if any, comes after it.
	k, _ := slices.BinarySearch(ra.pcs, r.addr)
	if k < len(ra.pcs) && c.after(ra.best[k]) {
		ra.best[k] = c
	}
}

// answers is the row in effect at each address that has one.
func (ra *rowsAt) answers() map[uint64]row {
	out := make(map[uint64]row, len(ra.pcs))
	var cur rowAt
	for k, pc := range ra.pcs {
		if ra.best[k].ok {
			cur = ra.best[k]
		}
		if cur.ok {
			out[pc] = cur.r
		}
	}
	return out
}

// noSiteWithin reports whether no scope under e (whose real ranges are
// rs, for an inlined call) can hold one of pcs: an inlined call whose
// ranges hold none (what it nests lies within them), or a type whose
// children are members. A function's children are always read: a
// function nested in it (a lambda's or a local class's member, with code
// of its own elsewhere) is its child, in its abstract instance or in its
// concrete one; so are a class's and a union's, where GCC puts a local
// class's member functions (fmt's vformat_to and its format_handler).
func noSiteWithin(e *dwarf.Entry, rs [][2]uint64, pcs []uint64) bool {
	switch e.Tag {
	case dwarf.TagInlinedSubroutine:
		return len(rs) > 0 && !holdsAny(rs, pcs)
	case dwarf.TagEnumerationType, dwarf.TagArrayType, dwarf.TagSubroutineType:
		return true
	}
	return false
}
