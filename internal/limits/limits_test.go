package limits

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// TestSecurityTable holds docs/security.md's table of limits to the
// values set here: each row of Rows is in the table, and its default
// column says the value.
func TestSecurityTable(t *testing.T) {
	b, err := os.ReadFile("../../docs/security.md")
	if err != nil {
		t.Fatal(err)
	}
	cells := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		cols := strings.Split(line, " | ")
		if len(cols) >= 2 {
			cells[strings.TrimPrefix(cols[0], "| ")] = cols[1]
		}
	}
	for _, r := range Rows() {
		cell, ok := cells[r.Limit]
		if !ok {
			t.Errorf("docs/security.md has no row %q", r.Limit)
			continue
		}
		if !strings.Contains(cell, r.Default) {
			t.Errorf("docs/security.md, row %q: %q does not say %q", r.Limit, cell, r.Default)
		}
	}
}

func TestFor(t *testing.T) {
	l := For(1 << 20)
	if l.Hold != 36<<20 || l.RPMHeader != 36<<20 || l.Expand != 200<<20 {
		t.Errorf("For(1 MiB) = %+v", l)
	}
	if l := For(10 << 20); l.RPMHeader != RPMHeader {
		t.Errorf("For(10 MiB).RPMHeader = %d, want the cap", l.RPMHeader)
	}
	if l := For(-1); l.Hold != HoldSlack || l.Expand != 0 {
		t.Errorf("For(-1) = %+v", l)
	}
}

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
		{"Go heap, soft limit", fmt.Sprintf("%s (`bind`, `--why`, `ranges build` and `add`: %s), unless `GOMEMLIMIT` is set", bytes(SoftMemory), bytes(HeavyMemory))},
		// ELF, DWARF and ABI JSON (abi/abiread).
		{"uncompressed size of compressed sections, per file", fmt.Sprintf("%d × the file's size (for a member, its artefact's) + %s, at most %s", DebugRatio, bytes(DebugSlack), bytes(DebugSize))},
		{"DWARF names read and composed, per file", fmt.Sprintf("%d × its info and string sections, at most %d × its bytes on disk, + %s", NamesRatio, NamesReal, bytes(NamesSlack))},
		{"DWARF type nodes per file", fmt.Sprintf("%dM, or fewer", TypeNodes>>20)},
		{"DWARF nesting of inline type nodes", fmt.Sprint(DWARFDepth)},
		{"ABI JSON nesting of inline type nodes", fmt.Sprint(JSONDepth)},
		{"ABI JSON input", bytes(ABIJSON)},
		{"a member `abi dump`/`diff` read whole", "past " + bytes(SpillOver)},
		{"compiler run time", fmt.Sprintf("%d s", int(CompileTimeout/time.Second))},
		{"compiler address space", bytes(CompileMemory)},
		{"compiler diagnostics kept", bytes(CompilerStderr)},
		// bind.
		{"`ld.so.cache` size", bytes(LDCache)},
		{"`ld.so.cache` string, `bind` search directory name", fmt.Sprintf("%d bytes (PATH_MAX)", PathMax)},
		{"`bind` candidates listed per missing library", fmt.Sprintf("%d, then a count", Candidates)},
		{"`bind` directory listing", count(Listing) + " names"},
		{"`.go.buildinfo` section read by `bind`", bytes(BuildInfo)},
		{"symbolic links per lookup in a sysroot", fmt.Sprint(Symlinks)},
		{"what an image holds of its ELF files", bytes(ImageMemory)},
		{"unreadable members reported per artefact", fmt.Sprintf("`bind --image` warnings: %d, then a count", Unreadable)},
		// Suppression files (abidiff).
		{"suppression file line", bytes(SuppressionLine)},
		{"suppression rules per file", count(SuppressionRules) + " sections"},
		{"suppression regexp", fmt.Sprintf("%s of text and %s compiled instructions each, %s instructions per file", bytes(RegexpBytes), count(RegexpInsts), count(FileInsts))},
		{"suppression matching", fmt.Sprintf("%s (the program's size times the text's length) per match, %s per comparison", count(MatchCost), count(MatchWork))},
	}
}

// count writes n with a comma between each group of three digits.
func count(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
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

// Row is a row of docs/security.md's table: the limit (its first
// column) and what its default column says of the value.
type Row struct{ Limit, Default string }
