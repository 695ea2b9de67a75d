package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLibabigailTables runs abifloor diff on the ELF pairs of libabigail's
// own test tables (tests/test-abidiff-exit.cc, test-diff-dwarf.cc,
// test-diff-filter.cc, test-diff-suppr.cc) and prints how often its exit
// status agrees with the expected one: the table's status where the table
// has one (test-abidiff-exit), else the status of the abidiff on PATH run
// with the table's options. It is a measurement, not a gate: it is skipped
// unless ABIFLOOR_LIBABIGAIL names a checkout of libabigail (its tests/
// directory is read in place, outside this repository; nothing of it is
// copied here). It fails only when a case panics, runs over 60 s or uses
// more than 256 MB. ABIFLOOR_LIBABIGAIL_V=1 lists every disagreement.
//
//	ABIFLOOR_LIBABIGAIL=/tmp/libabigail go test ./cmd/abifloor -run TestLibabigailTables -v
func TestLibabigailTables(t *testing.T) {
	root := os.Getenv("ABIFLOOR_LIBABIGAIL")
	if root == "" {
		t.Skip("ABIFLOOR_LIBABIGAIL is not set (a libabigail checkout whose tests/ to run)")
	}
	tests := filepath.Join(root, "tests")
	self, err := exec.LookPath("abifloor")
	if err != nil {
		t.Skip("no abifloor on PATH:", err)
	}
	peer, _ := exec.LookPath("abidiff")
	var cases []libabigailCase
	for _, table := range []string{"test-abidiff-exit.cc", "test-diff-dwarf.cc", "test-diff-filter.cc", "test-diff-suppr.cc"} {
		src, err := os.ReadFile(filepath.Join(tests, table))
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, parseLibabigailTable(table, string(src))...)
	}
	var agree, total, agreePeer, withPeer int
	var selfTime, peerTime time.Duration
	verbose := os.Getenv("ABIFLOOR_LIBABIGAIL_V") != ""
	for _, c := range cases {
		a, b := filepath.Join(tests, c.old), filepath.Join(tests, c.new)
		if !isELFFile(a) || !isELFFile(b) {
			continue
		}
		args := []string{"diff", a, b}
		pargs := []string{}
		if c.suppr != "" {
			for _, s := range strings.Split(c.suppr, ",") {
				args = append(args, "--suppressions", filepath.Join(tests, s))
				pargs = append(pargs, "--suppressions", filepath.Join(tests, s))
			}
		}
		// Directory fields may list several, separated by commas.
		for i, ds := range c.debug {
			for _, d := range splitDirs(ds) {
				args = append(args, fmt.Sprintf("--debug-dir%d", i+1), filepath.Join(tests, d))
				pargs = append(pargs, fmt.Sprintf("--debug-info-dir%d", i+1), filepath.Join(tests, d))
			}
		}
		for i, ds := range c.headers {
			for _, d := range splitDirs(ds) {
				pargs = append(pargs, fmt.Sprintf("--headers-dir%d", i+1), filepath.Join(tests, d))
				args = append(args, fmt.Sprintf("--headers-dir%d", i+1), filepath.Join(tests, d))
			}
		}
		pargs = append(pargs, strings.Fields(c.options)...)
		// test-diff-dwarf.cc reports with a default diff_context, which
		// shows every category, the harmless ones too.
		if strings.Contains(c.options, "--harmless") || c.table == "test-diff-dwarf.cc" {
			args = append(args, "--harmless")
		}
		pargs = append(pargs, a, b)
		got, dur, rss, out := runMeasured(t, self, args...)
		selfTime += dur
		if rss > 256<<20 {
			t.Errorf("%s: %d MB", c.name(), rss>>20)
		}
		if got < 0 || got&^15 != 0 {
			t.Errorf("%s: abifloor died (%d): %s", c.name(), got, out)
		}
		want := c.status
		peerCode := -1
		if peer != "" {
			var pd time.Duration
			peerCode, pd, _, _ = runMeasured(t, peer, pargs...)
			peerTime += pd
			withPeer++
			if peerCode == got {
				agreePeer++
			}
		}
		if want < 0 && c.report != "" {
			want = statusOfReport(filepath.Join(tests, c.report))
		}
		if want < 0 {
			want = peerCode
		}
		if want < 0 {
			continue
		}
		total++
		if got == want {
			agree++
		} else if verbose {
			t.Logf("DIFF %s: abifloor %d, expected %d (abidiff %d)\n%s", c.name(), got, want, peerCode, firstLines(out, 12))
		}
	}
	t.Logf("libabigail tables: %d of %d comparable ELF cases give the expected exit status (%.1f%%); %d of %d agree with the abidiff on PATH", agree, total, 100*float64(agree)/float64(max(total, 1)), agreePeer, withPeer)
	if peerTime > 0 {
		t.Logf("time: abifloor %v, abidiff %v, ratio %.2fx", selfTime.Round(time.Millisecond), peerTime.Round(time.Millisecond), float64(peerTime)/float64(selfTime))
	}
}

type libabigailCase struct {
	table, old, new, suppr, options string
	report                          string // the reference report, for tables without a status
	debug, headers                  [2]string
	status                          int // -1: none in the table
}

func (c libabigailCase) name() string { return c.table + ":" + filepath.Base(c.old) }

var (
	specRe     = regexp.MustCompile(`(?s)in_out_specs\[\]\s*=\s*\{(.*?)\n\};`)
	entryRe    = regexp.MustCompile(`(?s)\{(.*?)\}`)
	adjacentRe = regexp.MustCompile(`"\s+"`)
	fieldRe    = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"|\bNULL\b|abigail::tools_utils::(ABIDIFF_\w+)|\bABIDIFF_\w+`)
	statusOf   = map[string]int{"ABIDIFF_OK": 0, "ABIDIFF_ERROR": 1, "ABIDIFF_USAGE_ERROR": 2, "ABIDIFF_ABI_CHANGE": 4, "ABIDIFF_ABI_INCOMPATIBLE_CHANGE": 8}
)

// parseLibabigailTable reads the in_out_specs array of one test source.
func parseLibabigailTable(table, src string) []libabigailCase {
	m := specRe.FindStringSubmatch(src)
	if m == nil {
		return nil
	}
	var out []libabigailCase
	for _, e := range entryRe.FindAllStringSubmatch(m[1], -1) {
		var strs []string
		status, hasStatus := 0, false
		// Adjacent literals are one string, as in C ("a, " "b").
		body := adjacentRe.ReplaceAllString(e[1], "")
		for _, f := range fieldRe.FindAllStringSubmatch(body, -1) {
			switch {
			case strings.HasPrefix(f[0], `"`):
				s, err := strconv.Unquote(f[0])
				if err != nil {
					s = f[1]
				}
				strs = append(strs, s)
			case f[0] == "NULL":
				strs = append(strs, "")
			default:
				name := f[2]
				if name == "" {
					name = f[0]
				}
				status |= statusOf[name]
				hasStatus = true
			}
		}
		if len(strs) < 2 || strs[0] == "" {
			continue
		}
		c := libabigailCase{table: table, old: strs[0], new: strs[1], status: -1}
		switch table {
		case "test-abidiff-exit.cc":
			// old, new, suppr, headers1, headers2, debug1, debug2, options, status
			if len(strs) >= 8 {
				c.suppr, c.headers, c.debug, c.options = strs[2], [2]string{strs[3], strs[4]}, [2]string{strs[5], strs[6]}, strs[7]
			}
			if hasStatus {
				c.status = status
			}
		case "test-diff-dwarf.cc":
			if len(strs) >= 3 {
				c.report = strs[2]
			}
		case "test-diff-filter.cc":
			if len(strs) >= 4 {
				c.options, c.report = strs[2], strs[3]
			}
		case "test-diff-suppr.cc":
			// old, new, headers1, headers2, suppr, options
			if len(strs) >= 7 {
				c.headers, c.suppr, c.options, c.report = [2]string{strs[2], strs[3]}, strs[4], strs[5], strs[6]
			}
		}
		out = append(out, c)
	}
	return out
}

var (
	summaryRe  = regexp.MustCompile(`(?m)^\s*([A-Za-z/ ]+) summary: (.*)$`)
	countRe    = regexp.MustCompile(`(\d+) (Removed|Changed|Added|removed|changed|added|artifacts? changed|leaf types? changed)`)
	incompatRe = regexp.MustCompile(`SONAME changed|architecture changed|ABI incompatible change to the vtable|the vtable offset of method|adds a new entry to the vtable`)
	nonEmpty   = regexp.MustCompile(`\S`)
)

// statusOfReport is the exit status a reference report implies, read from
// its summary lines as libabigail's corpus_diff::has_net_changes and
// has_incompatible_changes count: changes a suppression or filter took out
// ("(N filtered out)") do not count. It is 12 when a function, variable or
// symbol is removed, an unreachable type is removed or changed, a vtable
// changed, or the SONAME or architecture changed; 4 for any other net
// change; 0 for an empty report or one whose every count is 0; -1 when it
// is unreadable.
func statusOfReport(name string) int {
	b, err := os.ReadFile(name)
	if err != nil {
		return -1
	}
	return statusOfReportText(string(b))
}

func statusOfReportText(s string) int {
	if !nonEmpty.MatchString(s) {
		return 0
	}
	sums := summaryRe.FindAllStringSubmatch(s, -1)
	if len(sums) == 0 {
		if incompatRe.MatchString(s) {
			return 12
		}
		return 4
	}
	status := 0
	for _, m := range sums {
		unreachable := strings.HasPrefix(m[1], "Unreachable")
		for _, c := range countRe.FindAllStringSubmatch(m[2], -1) {
			if c[1] == "0" {
				continue
			}
			status |= 4
			switch strings.ToLower(c[2]) {
			case "removed":
				status |= 8
			case "changed":
				if unreachable {
					status |= 8
				}
			}
		}
	}
	if incompatRe.MatchString(s) && (status != 0 || strings.Contains(s, "SONAME changed") || strings.Contains(s, "architecture changed")) {
		status |= 12
	}
	return status
}

func splitDirs(s string) []string {
	var out []string
	for _, d := range strings.Split(s, ",") {
		if d = strings.TrimSpace(d); d != "" {
			out = append(out, d)
		}
	}
	return out
}

func isELFFile(name string) bool {
	f, err := os.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [4]byte
	_, err = f.Read(b[:])
	return err == nil && string(b[:]) == "\x7fELF"
}

// runMeasured runs a program with a 60 s limit and returns its exit code
// (-1 when killed), wall time, peak RSS and combined output.
func runMeasured(t *testing.T, prog string, args ...string) (int, time.Duration, int64, string) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if ctx.Err() != nil {
		t.Errorf("%s %v: over 60 s", filepath.Base(prog), args)
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && cmd.ProcessState != nil {
		rss = ru.Maxrss << 10
	}
	code := cmd.ProcessState.ExitCode()
	_ = err
	return code, d, rss, out.String()
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// TestStatusOfReport checks the reading of a reference report's summary.
func TestStatusOfReport(t *testing.T) {
	for _, c := range []struct {
		report string
		want   int
	}{
		{"", 0},
		{"Functions changes summary: 0 Removed, 0 Changed (1 filtered out), 0 Added function\nVariables changes summary: 0 Removed, 0 Changed, 0 Added variable\n", 0},
		{"Functions changes summary: 0 Removed, 1 Changed, 0 Added function\nVariables changes summary: 0 Removed, 0 Changed, 0 Added variable\n", 4},
		{"Functions changes summary: 1 Removed, 0 Changed, 0 Added function\n", 12},
		{"Function symbols changes summary: 1 Removed, 0 Added function symbol not referenced by debug info\n", 12},
		{"Leaf changes summary: 1 artifact changed\nChanged leaf types summary: 1 leaf type changed\nRemoved/Changed/Added functions summary: 0 Removed, 0 Changed, 0 Added function\n", 4},
		{"Leaf changes summary: 0 artifact changed (1 filtered out)\nChanged leaf types summary: 0 (1 filtered out) leaf type changed\n", 0},
		{"  Unreachable types summary: 0 removed, 1 changed, 0 added types\n", 12},
		{"Functions changes summary: 0 Removed, 1 Changed, 0 Added function\n  note that this is an ABI incompatible change to the vtable of struct S\n", 12},
		{"ELF SONAME changed\nFunctions changes summary: 0 Removed, 0 Changed, 0 Added function\n", 12},
		// A virtual function added makes every member function that
		// reaches the class a change in VIRTUAL_MEMBER_CHANGE_CATEGORY.
		{"Functions changes summary: 0 Removed, 3 Changed, 1 Added functions\n  [A] 'method virtual void S::fn1()'\n    note that this adds a new entry to the vtable of struct S\n", 12},
	} {
		if got := statusOfReportText(c.report); got != c.want {
			t.Errorf("%q: %d, want %d", c.report, got, c.want)
		}
	}
}
