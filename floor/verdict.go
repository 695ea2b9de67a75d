package floor

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/abifloor/abifloor/internal/lazyre"
	"github.com/abifloor/abifloor/report"
)

// Verdict is what a check comes to, the meaning of abifloor check's exit
// code: OK and Warn exit 0, Fail 1, Error 2.
type Verdict int

const (
	// OK: something was checked, and every file is within the limits.
	OK Verdict = iota
	// Warn: violations, which Requirements.ViolationsWarn lets pass.
	Warn
	// Fail: violations.
	Fail
	// Error: a file could not be read, the run was cut short, or nothing
	// was checked (and Requirements.AllowEmpty does not accept that).
	// A check that could not start is an error too, though it has no
	// result.
	Error
)

// String is the verdict's word as the GitHub Action's "verdict" output
// spells it: ok, warn, fail, error.
func (v Verdict) String() string {
	switch v {
	case OK:
		return "ok"
	case Warn:
		return "warn"
	case Fail:
		return "fail"
	}
	return "error"
}

// NothingChecked reports whether the check is an error for having read no
// ELF file: Empty, and Requirements.AllowEmpty not set.
func (c *CheckResult) NothingChecked() bool {
	return c.Empty && !c.Requirements.AllowEmpty
}

// Verdict is what the check comes to. A run cut short or a file that
// could not be read is an error whatever else was found; violations come
// before an empty run.
func (c *CheckResult) Verdict() Verdict {
	switch {
	case c.Incomplete || c.Stats.Errors > 0:
		return Error
	case len(c.Violations) > 0 && c.Requirements.ViolationsWarn:
		return Warn
	case len(c.Violations) > 0:
		return Fail
	case c.NothingChecked():
		return Error
	}
	return OK
}

// Verdict is a scan's: OK, or Error when it was cut short or a file
// could not be read (abifloor scan exits 2). A scan holds files to
// nothing, so it has no Fail; a check's result has its own Verdict.
func (res *Result) Verdict() Verdict {
	if res.Incomplete || res.Stats.Errors > 0 {
		return Error
	}
	return OK
}

// unusedWarnings are the warnings of limits that checked nothing.
func unusedWarnings(unused []Limit) []string {
	ws := []string{}
	for _, l := range unused {
		ws = append(ws, report.Clean(fmt.Sprintf("%s %s=%s: no file needs a %s version, so this limit checked nothing", l.Source, l.Namespace, l.Version, l.Namespace)))
	}
	return ws
}

// checkDocument is a check's JSON document (docs/json.md): the scan's
// fields, "violations" always present ([] when there are none, so tools
// read it without a special case), and "warnings".
type checkDocument struct {
	*Result
	Violations []Violation `json:"violations"`
	Warnings   []string    `json:"warnings"`
}

func (c *CheckResult) document() checkDocument {
	viol, warn := c.Violations, c.Warnings
	if viol == nil {
		viol = []Violation{}
	}
	if warn == nil {
		warn = []string{}
	}
	return checkDocument{c.Result, viol, warn}
}

// MarshalJSON is the check's JSON document, as WriteJSON writes it.
func (c *CheckResult) MarshalJSON() ([]byte, error) { return json.Marshal(c.document()) }

// WriteJSON writes the check's JSON document (docs/json.md), indented,
// names unescaped, the long arrays streamed (report.WriteJSON).
func (c *CheckResult) WriteJSON(w io.Writer) error { return report.WriteJSON(w, c.document()) }

// Write writes the check's report in format: text (with text's
// choices), json, github, sarif (version is the tool's), junit or
// markdown.
func (c *CheckResult) Write(w io.Writer, format report.Format, text TextOptions, version string) error {
	switch format {
	case report.JSON:
		return c.WriteJSON(w)
	case report.GitHub:
		c.WriteGitHub(w)
	case report.SARIF:
		return c.WriteSARIF(w, version)
	case report.JUnit:
		return c.WriteJUnit(w)
	case report.Markdown:
		return report.WriteMarkdown(w, c.Summary())
	default:
		c.WriteText(w, text)
	}
	return nil
}

// outputName and outputVersion are what a namespace and a floor must look
// like to be an output. A workflow pastes outputs into scripts
// (${{ steps.abifloor.outputs.floors }} is text substitution), and a
// namespace is read from the files checked, so a name such as
// "$(curl ...)" or "<img ...>" is left out: the JSON report has it.
var (
	outputName    = lazyre.New(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)
	outputVersion = lazyre.New(`^[0-9][0-9A-Za-z._+-]{0,63}$`)
)

// WriteOutputs writes the outputs of a check a workflow branches on, as
// $GITHUB_OUTPUT wants them: verdict (Verdict's word), violations and
// errors (counts), floors (the tree's floor per namespace, a JSON object)
// and floor-NS (lower case: floor-glibc=2.34).
func (c *CheckResult) WriteOutputs(w io.Writer) error {
	b := &strings.Builder{}
	report.GitHubOutput(b, "verdict", c.Verdict().String())
	report.GitHubOutput(b, "violations", strconv.Itoa(len(c.Violations)))
	report.GitHubOutput(b, "errors", strconv.FormatInt(c.Stats.Errors, 10))
	floors := map[string]string{}
	for ns, v := range c.Floors {
		if outputName().MatchString(ns) && outputVersion().MatchString(v) {
			floors[ns] = v
		}
	}
	j, _ := json.Marshal(floors)
	report.GitHubOutput(b, "floors", string(j))
	for _, ns := range slices.Sorted(maps.Keys(floors)) {
		report.GitHubOutput(b, "floor-"+strings.ToLower(ns), floors[ns])
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// summaryRows is the most files a job summary lists, and summaryBytes
// about the most text it holds: GitHub takes at most 1 MiB of summary
// per step.
const (
	summaryRows  = 500
	summaryBytes = 512 << 10
)

// Summary is the check's job summary (markdown; the GitHub Action writes
// it to $GITHUB_STEP_SUMMARY): the verdict, then a row per file, those
// that failed first: its floors, and each violation's cause in the words
// of the other reports (Violation.Cause, whatever the rule) with the
// symbols behind it, or why it could not be read; then the warnings, the
// artefacts' claims and the artefacts skipped.
func (c *CheckResult) Summary() report.MarkdownSummary {
	res := c // the check's result, as its other reports name it
	s := report.MarkdownSummary{Title: "abifloor check", Header: []string{"file", "floors", "violations"}}
	switch v := c.Verdict(); {
	case res.Incomplete:
		s.Verdict, s.Says = "ERROR", "the check was interrupted before every file was checked; see the step's log."
	case res.Stats.Errors > 0:
		s.Verdict, s.Says = "ERROR", report.Plural64(res.Stats.Errors, "file")+" could not be read; see the step's log."
	case v == Warn:
		s.Verdict, s.Says = "WARN", report.Plural(len(res.Violations), "violation")+": some files need more than the limits allow; fail-on: error lets the check pass."
	case v == Fail:
		s.Verdict, s.Says = "FAIL", report.Plural(len(res.Violations), "violation")+": some files need more than the limits allow."
	case v == Error:
		s.Verdict, s.Says = "ERROR", "no ELF file was checked; see the step's log."
	default:
		s.Verdict, s.Says = "OK", "every file is within the limits."
	}
	causes := map[string][]string{}
	var order []string // the paths of violations, in their order
	for _, v := range res.Violations {
		if causes[v.Path] == nil {
			order = append(order, v.Path)
		}
		causes[v.Path] = append(causes[v.Path], violationText(v))
	}
	var bad, good [][]report.MarkdownCell
	listed := map[string]bool{}
	for _, f := range res.Files {
		listed[f.Path] = true
		var floors []string
		for _, ns := range slices.Sorted(maps.Keys(f.Floors)) {
			floors = append(floors, ns+" "+f.Floors[ns])
		}
		row := []report.MarkdownCell{{Text: f.Path, Code: true}, {Text: strings.Join(floors, ", ")}, {Text: joinCauses(causes[f.Path])}}
		switch {
		case f.Error != nil:
			row[2].Text = "could not be read: " + f.ErrorMessage()
			bad = append(bad, row)
		case len(causes[f.Path]) > 0:
			bad = append(bad, row)
		default:
			good = append(good, row)
		}
	}
	// A violation of a path that is no file row (an artefact's own
	// claim) still has a row: no verdict goes unsaid.
	for _, p := range order {
		if !listed[p] {
			bad = append(bad, []report.MarkdownCell{{Text: p, Code: true}, {}, {Text: joinCauses(causes[p])}})
		}
	}
	rows := append(bad, good...)
	size := 0
	for i, row := range rows {
		for _, cell := range row {
			size += 2*len(cell.Text) + 8
		}
		if i == summaryRows || size > summaryBytes {
			s.More = len(rows) - i
			rows = rows[:i]
			break
		}
	}
	s.Rows = rows
	for _, v := range c.Advisories {
		s.Notes = append(s.Notes, "warning: "+v.Path+": "+violationText(v))
	}
	for _, w := range c.Warnings {
		s.Notes = append(s.Notes, "warning: "+w)
	}
	for _, cl := range res.Claims {
		held := "kept by " + report.Plural(cl.Files, "file")
		if !cl.Held {
			held = "NOT kept (see the violations)"
		}
		s.Notes = append(s.Notes, "claim of "+cl.Artefact+": "+cl.Claim+": "+held)
	}
	for _, sk := range res.Skipped {
		s.Notes = append(s.Notes, "skipped "+sk.Path+": "+sk.ErrorMessage()+" (--strict makes this an error)")
	}
	if res.Incomplete && res.Err != nil {
		s.Notes = append(s.Notes, "incomplete: "+res.Err.Error())
	}
	if len(s.Notes) > summaryRows {
		s.Notes = append(s.Notes[:summaryRows], fmt.Sprintf("and %d more notes (see the step's log)", len(s.Notes)-summaryRows))
	}
	return s
}

// violationText is a violation's cause and, when it names them, the
// first symbols behind it.
func violationText(v Violation) string {
	t := v.Cause()
	if len(v.Symbols) > 0 {
		var syms []string
		for _, r := range v.Symbols[:min(len(v.Symbols), 5)] {
			syms = append(syms, r.String())
		}
		t += ": needs " + strings.Join(syms, ", ")
		if len(v.Symbols) > 5 {
			t += fmt.Sprintf(" and %d more", len(v.Symbols)-5)
		}
	}
	return t
}

// joinCauses is a cell of at most ten causes.
func joinCauses(cs []string) string {
	if len(cs) > 10 {
		cs = append(cs[:10:10], fmt.Sprintf("and %d more", len(cs)-10))
	}
	return strings.Join(cs, "; ")
}

// WriteNotStarted writes, in format, the report of a check that could
// not start (msg says why: a usage error): a SARIF log whose invocation
// failed (version is the tool's), a JUnit error, a summary saying ERROR.
// JSON and text have no such report: it returns false for them.
func WriteNotStarted(w io.Writer, format report.Format, version, msg string) (bool, error) {
	switch format {
	case report.SARIF:
		return true, report.WriteSARIFFailure(w, version, msg)
	case report.JUnit:
		return true, report.WriteJUnit(w, "abifloor check", []report.JUnitCase{{Name: "(usage)", ClassName: "abifloor.check", Error: msg}})
	case report.Markdown:
		return true, report.WriteMarkdown(w, report.MarkdownSummary{Title: "abifloor check", Verdict: "ERROR", Says: "the check could not start: " + msg})
	}
	return false, nil
}
