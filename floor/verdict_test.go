package floor

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/abifloor/abifloor/internal/input"
	"github.com/abifloor/abifloor/report"
)

// TestCheckSummaryIncomplete: a run cut short says ERROR and how far it
// got, never OK, whatever it read before.
func TestCheckSummaryIncomplete(t *testing.T) {
	c := &CheckResult{Result: &Result{Incomplete: true, Err: errors.New("interrupted by SIGTERM after 3 of the files found"),
		Files: []FileReport{{Path: "a.so", Floors: map[string]string{"GLIBC": "2.17"}}}, Floors: map[string]string{"GLIBC": "2.17"}}}
	var b strings.Builder
	report.WriteMarkdown(&b, c.Summary())
	for _, want := range []string{"**ERROR**: the check was interrupted", "- incomplete: interrupted by SIGTERM after 3 of the files found"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	if c.Verdict() != Error {
		t.Errorf("verdict %v", c.Verdict())
	}
	var out strings.Builder
	c.WriteOutputs(&out)
	if !strings.Contains(out.String(), "verdict=error\n") {
		t.Errorf("outputs:\n%s", out.String())
	}
}

// TestGitHubOutputs: a namespace or floor that is not a plain word (read
// from the files, pasted into scripts by workflows) is no output; a value
// with a line break is delimited by a line it cannot hold.
func TestGitHubOutputs(t *testing.T) {
	c := &CheckResult{Result: &Result{Floors: map[string]string{"GLIBC": "2.34", "GLIBCXX": "3.4.30",
		"<img src=x>": "1.0", "$(id)": "1", "X\nfloor-glibc=9": "1", "OK": "1.0\nverdict=ok"}}}
	var b strings.Builder
	c.WriteOutputs(&b)
	want := "verdict=ok\nviolations=0\nerrors=0\nfloors={\"GLIBC\":\"2.34\",\"GLIBCXX\":\"3.4.30\"}\nfloor-glibc=2.34\nfloor-glibcxx=3.4.30\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	report.GitHubOutput(&b, "sarif", "out/x\n::add-mask::y.sarif")
	lines := strings.Split(b.String(), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "sarif<<ghadelimiter_") || lines[3] != lines[0][len("sarif<<"):] {
		t.Errorf("delimited output: %q", b.String())
	}
}

// The annotation for one unreadable file is at that file, wherever it
// comes in the results.
func TestCheckGitHubUnreadableAt(t *testing.T) {
	c := &CheckResult{Result: &Result{Files: []FileReport{{Path: "good.so"}, {Path: "bad.so", Error: errors.New("malformed ELF: truncated")}}}}
	var out bytes.Buffer
	c.WriteGitHub(&out)
	if !strings.Contains(out.String(), "::error file=bad.so,title=unreadable ELF file::") {
		t.Errorf("annotations:\n%s", out.String())
	}
}

// TestVerdict: the verdict of each outcome, in the order the checks
// come: an error beats violations, violations beat an empty run.
func TestVerdict(t *testing.T) {
	viol := []Violation{{Path: "a.so"}}
	for _, c := range []struct {
		name string
		res  Result
		rq   Requirements
		emp  bool
		want Verdict
	}{
		{"ok", Result{Stats: Stats{ELF: 1}}, Requirements{}, false, OK},
		{"violation", Result{Violations: viol}, Requirements{}, false, Fail},
		{"violation passes", Result{Violations: viol}, Requirements{ViolationsWarn: true}, false, Warn},
		{"unreadable", Result{Violations: viol, Stats: Stats{Errors: 1}}, Requirements{ViolationsWarn: true}, false, Error},
		{"incomplete", Result{Incomplete: true}, Requirements{}, false, Error},
		{"empty", Result{}, Requirements{}, true, Error},
		{"empty allowed", Result{}, Requirements{AllowEmpty: true}, true, OK},
	} {
		res := c.res
		cr := &CheckResult{Result: &res, Empty: c.emp, Requirements: c.rq}
		if got := cr.Verdict(); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// TestFileFitJSON: an unreadable file's fit keeps its error a value until
// printed, and its JSON is what it was when Error was a string: the
// message without the path, last, absent when the file was read.
func TestFileFitJSON(t *testing.T) {
	type old struct {
		Path string `json:"path"`
		Arch string `json:"arch,omitempty"`
		Libc string `json:"libc,omitempty"`
		Fits
		Error string `json:"error,omitempty"`
	}
	err := &input.FileError{Path: "lib<a>.so", Err: &os.PathError{Op: "open", Path: "lib<a>.so", Err: syscall.EACCES}}
	for _, f := range []FileFit{{Path: "lib<a>.so", Error: err, Fits: Fits{Distros: []DistroFit{}}}, {Path: "b.so", Arch: "x86_64", Fits: Fits{Policy: "manylinux_2_17", Distros: []DistroFit{}}}} {
		got, _ := json.Marshal(f)
		want, _ := json.Marshal(old{Path: f.Path, Arch: f.Arch, Fits: f.Fits, Error: f.ErrorMessage()})
		if !bytes.Equal(got, want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
	if got := (FileFit{Path: "lib<a>.so", Error: err}).ErrorMessage(); got != "open: permission denied" {
		t.Errorf("message %q", got)
	}
}
