// Package limits is where the bounds abifloor puts on what reading its
// input may cost are set: what a run shares, and what one input earns
// from its size on disk (For). The packages that read take the part
// they need from here, and docs/security.md's table of limits is held to
// these values by a test (TestSecurityTable), so the two cannot drift.
//
// Values are those the hostile-input tests were measured against; none
// is a tuning knob. A flag that replaces one (--max-debug-size,
// --max-memory) is named in the documentation, not here.
package limits

import (
	"fmt"
	"time"
)

// What one artefact may cost, from its size on disk.
const (
	// HoldRatio and HoldSlack bound what a reader holds of one member of
	// an artefact (a floor's tables, an ABI's member and its DWARF):
	// HoldRatio times the artefact's size plus HoldSlack. Real packages
	// expand 1.5 to 6 times, the most of 19 large Debian packages 14
	// (libx265); a 245 KB .tar.gz held a library whose symbol name was
	// 240 MiB.
	HoldRatio = 32
	HoldSlack = 4 << 20
	// ExpandRatio bounds what is decompressed out of one artefact beyond
	// the run's shared RunExpand: ExpandRatio times its size.
	ExpandRatio = 200
	// RPMHeader caps what is read of an rpm's main header (its Requires),
	// below the hold limit.
	RPMHeader = 64 << 20
)

// What a run shares, whatever its input.
const (
	// RunExpand is the run's shared allowance of decompressed bytes,
	// spent by every worker and artefact together.
	RunExpand = 256 << 20
	// DecoderMemory is what the decoders of a run may hold at once.
	DecoderMemory = 160 << 20
	// MaxMember is the largest member read in full, and the most a zip
	// met inside a stream is spilled to.
	MaxMember = 512 << 20
	// Depth is how deep artefacts inside artefacts are opened.
	Depth = 2
	// ZstdWindow and XZDict are the largest window and dictionary a
	// stream may ask for (zstd --ultra -22, xz -9).
	ZstdWindow = 128 << 20
	XZDict     = 64 << 20
	// ToolTimeout bounds one run of the xz program.
	ToolTimeout = 30 * time.Minute
	// PathMax is Linux's PATH_MAX: a member name, link target or layer
	// name, its NUL included, is at most this long.
	PathMax = 4096
	// Unreadable is how many unreadable members of an artefact are
	// reported one by one; the rest are counted on one line.
	Unreadable = 100
	// SectionRatio and SectionSlack bound one compressed ELF section: it
	// may not claim to expand past SectionRatio times its stored size
	// plus SectionSlack. zlib cannot shrink more than about 1032 times;
	// zstd, with blocks that repeat one byte, 32768 times.
	SectionRatio = 1024
	SectionSlack = 1 << 20
	// CString bounds a string read on its own: a library, soname, search
	// path, interpreter, version or section name.
	CString = 64 << 10
	// SoftMemory is the Go heap's soft limit (runtime/debug) of a run
	// unless GOMEMLIMIT is set: it keeps the collector from letting
	// garbage pile up to twice the live heap on big trees. BindMemory is
	// bind's, whose live heap is larger, and --why's, which keeps every
	// call site until the report: at 48 MiB their collector would run
	// without pause.
	SoftMemory = 48 << 20
	BindMemory = 192 << 20
)

// Limits are the bounds of reading one input of Size bytes on disk.
type Limits struct {
	Size int64
	// Hold is what a reader may hold of one member of the input
	// (HoldRatio × Size + HoldSlack); RPMHeader what it reads of an rpm's
	// main header; Expand what the input may decompress before it draws
	// on the run's RunExpand.
	Hold, RPMHeader, Expand int64
}

// For is the limits of an input of size bytes on disk (0 for one whose
// size is unknown: it earns only the slack).
func For(size int64) Limits {
	size = max(size, 0)
	hold := HoldRatio*size + HoldSlack
	return Limits{Size: size, Hold: hold, RPMHeader: min(hold, RPMHeader), Expand: ExpandRatio * size}
}

// HoldWhy says where Hold comes from, for errors.
func (l Limits) HoldWhy() string {
	return fmt.Sprintf("%d times the artefact's %d bytes, plus %d MiB", HoldRatio, l.Size, HoldSlack>>20)
}

// Row is a row of docs/security.md's table: the limit (its first
// column) and what its default column says of the value.
type Row struct{ Limit, Default string }

// Rows are the rows of docs/security.md's table whose values are set
// here, each with the words its default column holds.
func Rows() []Row {
	return []Row{
		{"what is held of an artefact's member", fmt.Sprintf("%d × the artefact's size + %s", HoldRatio, bytes(HoldSlack))},
		{"a string read on its own: library, soname, search path, interpreter, version or section name", bytes(CString)},
		{"expansion of one compressed section", fmt.Sprintf("%d × its stored size + %s", SectionRatio, bytes(SectionSlack))},
		{"zstd window in an artefact", bytes(ZstdWindow)},
		{"decoder memory, per run", bytes(DecoderMemory) + " for the whole run"},
		{"xz dictionary in an artefact", bytes(XZDict)},
		{"`xz` program run time, per stream", fmt.Sprintf("%d min", int(ToolTimeout/time.Minute))},
		{"decompressed bytes, per run", fmt.Sprintf("%s for the whole run (shared by every worker and artefact), plus %d × each artefact's size", bytes(RunExpand), ExpandRatio)},
		{"a zip inside a tar or compressed stream", "up to " + bytes(MaxMember)},
		{"rpm header entries", fmt.Sprintf("%d × the artefact's size + %s, at most %s", HoldRatio, bytes(HoldSlack), bytes(RPMHeader))},
		{"member name, link target, image layer name", fmt.Sprintf("%d bytes (PATH_MAX with its NUL)", PathMax-1)},
		{"unreadable members reported per artefact", fmt.Sprintf("%d, then one line", Unreadable)},
		{"Go heap, soft limit", fmt.Sprintf("%s (`bind` and `--why`: %s), unless `GOMEMLIMIT` is set", bytes(SoftMemory), bytes(BindMemory))},
	}
}

// bytes writes n in the largest binary unit that divides it.
func bytes(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
