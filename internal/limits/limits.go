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
	// garbage pile up to twice the live heap on big trees. HeavyMemory is
	// bind's, whose live heap is larger, --why's, which keeps every call
	// site until the report, and ranges build's and add's, whose
	// compilers want the CPU a busy collector takes: at 48 MiB their
	// collector would run without pause (NVIDIA's 144 tags: 35.7 s of CPU
	// against 27.1 s at 192 MiB).
	SoftMemory  = 48 << 20
	HeavyMemory = 192 << 20
)

// Reading ELF files, their DWARF and ABI JSON (abi/abiread).
const (
	// DebugSize bounds what the compressed sections of one file (its
	// debug info above all) may expand to, unless --max-debug-size
	// replaces it: the types of glibc or libstdc++ need a few tens of MB.
	// By default they may also claim, together, at most DebugRatio times
	// the file's size (for a member, its artefact's) plus DebugSlack: a
	// 260 KB file whose .debug_str held 250 MiB of one string cost 2.8 GB
	// and 19 s to dump.
	DebugSize  = 512 << 20
	DebugRatio = 16
	DebugSlack = 16 << 20
	// NamesRatio, NamesReal and NamesSlack bound the bytes of the DWARF
	// names one file's readers take and compose: NamesRatio times its
	// info and string sections, at most NamesReal times the bytes on disk
	// they were read from, plus NamesSlack. Real files charge 0.19 to 0.28
	// times their DWARF (glibc's debug files), a C++ library of three
	// units 1.66 (qualified names); DWARF shrinks 2.6 to 4.2 times on
	// disk, so NamesReal is more than four times what that library needs.
	NamesRatio = 16
	NamesReal  = 32
	NamesSlack = 256 << 10
	// TypeNodes bounds the type nodes built from one file's DWARF (a
	// small .debug_info gets fewer: a quarter of its bytes plus 1024).
	TypeNodes = 1 << 22
	// DWARFDepth bounds the nesting of inline type nodes read from DWARF;
	// JSONDepth that of ABI JSON, which comes from elsewhere: a pointer
	// chain 9,000 deep in a 945 KB file cost diff 38 s and 650 MB.
	DWARFDepth = 256
	JSONDepth  = 2 * DWARFDepth
	// ABIJSON bounds an ABI JSON input: the largest real dumps
	// (libstdc++ with its DWARF) are tens of MB.
	ABIJSON = 1 << 30
	// SpillOver is the size past which a member read whole for its ABI
	// goes to a private temporary file, not to memory.
	SpillOver = 4 << 20
)

// The compiler behind `abi headers`: a header is input like any other
// (one that includes /dev/zero drove cc1 to 12 GB).
const (
	CompileTimeout = 60 * time.Second
	CompileMemory  = 2 << 30
	// CompilerStderr is how much of the compiler's diagnostics is kept.
	CompilerStderr = 64 << 10
)

// bind: resolving a loader's search in a root or an image.
const (
	// Symlinks is how many symbolic links one resolution follows, as
	// Linux's MAXSYMLINKS.
	Symlinks = 40
	// Listing is the most names a directory listing holds; a larger
	// directory is probed name by name.
	Listing = 1 << 16
	// Candidates is how many passed-over candidates one search lists;
	// the rest are counted.
	Candidates = 8
	// LDCache bounds the ld.so.cache read.
	LDCache = 64 << 20
	// ImageMemory is what an image holds of its ELF files (their
	// objects, never their bytes), unless --max-memory replaces it.
	ImageMemory = 256 << 20
	// BuildInfo bounds the .go.buildinfo section read (a few KiB in
	// practice).
	BuildInfo = 1 << 20
)

// Suppression files (abidiff): Go's regexp matches in time proportional
// to the program's size times the text's length, so these bound what one
// file can make a comparison do.
const (
	// SuppressionLine bounds one line, SuppressionRules what one file
	// may declare.
	SuppressionLine  = 1 << 20
	SuppressionRules = 1 << 16
	// RegexpBytes bounds one pattern's text, RegexpInsts its compiled
	// program ("(?:x){1000}" is short text and a long program), and
	// FileInsts all of a file's programs together.
	RegexpBytes = 16 << 10
	RegexpInsts = 1 << 16
	FileInsts   = 1 << 20
	// MatchCost bounds one match (program size times the text's length,
	// the worst case of Go's matcher); MatchWork a comparison's matching,
	// in the same unit. Past either no rule hides a change, and a note
	// says so.
	MatchCost = 1 << 24
	MatchWork = 1 << 28
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
