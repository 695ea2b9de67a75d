package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/abifloor/abifloor/floor"
	"github.com/abifloor/abifloor/internal/atomicfile"
	"github.com/abifloor/abifloor/report"
)

// checkOutputs are the files one run of check writes beside its stdout
// (--sarif, --junit, --json, --summary, --github-output): one scan, every
// report. Each report file is written whole or not at all
// (internal/atomicfile), so a reader such as upload-sarif never meets a
// part or an empty file.
type checkOutputs struct {
	sarif, junit, json, summary, githubOutput string
}

// write writes c's reports to the files asked for; false when one could
// not be written (said on stderr).
func (o checkOutputs) write(env *cmdEnv, c *checked) bool {
	ok := true
	file := func(flagName, path string, format report.Format) bool {
		if path == "" {
			return false
		}
		var b bytes.Buffer
		c.write(&b, format, floor.TextOptions{})
		if err := atomicfile.WriteFile(path, b.Bytes(), 0o644); err != nil {
			fmt.Fprintf(env.stderr, "abifloor check: --%s: %s\n", flagName, errText(err))
			ok = false
			return false
		}
		return true
	}
	sarif := file("sarif", o.sarif, report.SARIF)
	file("junit", o.junit, report.JUnit)
	file("json", o.json, report.JSON)
	file("summary", o.summary, report.Markdown)
	if o.githubOutput != "" {
		var b strings.Builder
		writeOutputs(&b, c)
		if sarif {
			githubOutput(&b, "sarif", o.sarif)
		}
		if !o.appendOutputs(env, b.String()) {
			ok = false
		}
	}
	return ok
}

// fail writes what the files asked for say of a check that could not
// start (msg, a usage error): a SARIF log whose invocation failed, a
// JUnit error, a summary saying ERROR, verdict=error in the outputs; no
// JSON report, whose shape has no place for it. With annotate, msg is
// also an ::error annotation on stdout (the github format, the Action).
func (o checkOutputs) fail(env *cmdEnv, msg string, annotate bool) {
	if annotate {
		report.WriteAnnotation(env.stdout, report.Annotation{Level: "error", Title: "abifloor check", Message: msg})
	}
	file := func(flagName, path string, write func(io.Writer) error) {
		if path == "" {
			return
		}
		var b bytes.Buffer
		write(&b)
		if err := atomicfile.WriteFile(path, b.Bytes(), 0o644); err != nil {
			fmt.Fprintf(env.stderr, "abifloor check: --%s: %s\n", flagName, errText(err))
		}
	}
	file("sarif", o.sarif, func(w io.Writer) error { return report.WriteSARIFFailure(w, buildVersion(), msg) })
	file("junit", o.junit, func(w io.Writer) error {
		return report.WriteJUnit(w, "abifloor check", []report.JUnitCase{{Name: "(usage)", ClassName: "abifloor.check", Error: msg}})
	})
	file("summary", o.summary, func(w io.Writer) error {
		return report.WriteMarkdown(w, report.MarkdownSummary{Title: "abifloor check", Verdict: "ERROR", Says: "the check could not start: " + msg})
	})
	if o.githubOutput != "" {
		var b strings.Builder
		githubOutput(&b, "verdict", "error")
		if o.sarif != "" {
			githubOutput(&b, "sarif", o.sarif)
		}
		o.appendOutputs(env, b.String())
	}
}

// appendOutputs appends s to the --github-output file, which the runner
// made and other steps' commands append to: appended in one write, never
// replaced.
func (o checkOutputs) appendOutputs(env *cmdEnv, s string) bool {
	f, err := os.OpenFile(o.githubOutput, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err == nil {
		_, err = io.WriteString(f, s)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(env.stderr, "abifloor check: --github-output: %s\n", errText(err))
		return false
	}
	return true
}

// outputName and outputVersion are what a namespace and a floor must look
// like to be an output. A workflow pastes outputs into scripts
// (${{ steps.abifloor.outputs.floors }} is text substitution), and a
// namespace is read from the files checked, so a name such as
// "$(curl ...)" or "<img ...>" is left out: the JSON report has it.
var (
	outputName    = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)
	outputVersion = regexp.MustCompile(`^[0-9][0-9A-Za-z._+-]{0,63}$`)
)

// writeOutputs writes the outputs of a check a workflow branches on:
// verdict (ok, fail, warn: violations that fail-on: error lets pass,
// error), violations and errors (counts), floors (the tree's floor per
// namespace, a JSON object) and floor-NS (lower case: floor-glibc=2.34).
func writeOutputs(b *strings.Builder, c *checked) {
	res := c.res
	verdict := "ok"
	switch {
	case res.Incomplete || res.Stats.Errors > 0 || len(res.Violations) == 0 && c.empty:
		verdict = "error"
	case len(res.Violations) > 0 && c.failOn == "error":
		verdict = "warn"
	case len(res.Violations) > 0:
		verdict = "fail"
	}
	githubOutput(b, "verdict", verdict)
	githubOutput(b, "violations", strconv.Itoa(len(res.Violations)))
	githubOutput(b, "errors", strconv.FormatInt(res.Stats.Errors, 10))
	floors := map[string]string{}
	for ns, v := range res.Floors {
		if outputName.MatchString(ns) && outputVersion.MatchString(v) {
			floors[ns] = v
		}
	}
	j, _ := json.Marshal(floors)
	githubOutput(b, "floors", string(j))
	for _, ns := range slices.Sorted(maps.Keys(floors)) {
		githubOutput(b, "floor-"+strings.ToLower(ns), floors[ns])
	}
}

// githubOutput writes name=value as $GITHUB_OUTPUT reads it: one line,
// or, for a value with a line break, between delimiter lines no value
// can hold (random), as the runner's own toolkit does.
func githubOutput(b *strings.Builder, name, value string) {
	if !strings.ContainsAny(value, "\r\n") {
		fmt.Fprintf(b, "%s=%s\n", name, value)
		return
	}
	var r [16]byte
	rand.Read(r[:])
	delim := "ghadelimiter_" + hex.EncodeToString(r[:])
	fmt.Fprintf(b, "%s<<%s\n%s\n%s\n", name, delim, value, delim)
}

// summaryRows is the most files a job summary lists, and summaryBytes
// about the most text it holds: GitHub takes at most 1 MiB of summary
// per step.
const (
	summaryRows  = 500
	summaryBytes = 512 << 10
)

// checkSummary is check's job summary (--format markdown, --summary;
// the GitHub Action writes it to $GITHUB_STEP_SUMMARY): the verdict the
// exit code gives, then a row per file, those that failed first: its
// floors, and each violation's cause in the words of the other reports
// (floor.Violation.Cause, whatever the rule) with the symbols behind
// it, or why it could not be read; then the warnings, the artefacts'
// claims and the artefacts skipped.
func checkSummary(c *checked) report.MarkdownSummary {
	res, empty := c.res, c.empty
	s := report.MarkdownSummary{Title: "abifloor check", Header: []string{"file", "floors", "violations"}}
	switch {
	case res.Incomplete:
		s.Verdict, s.Says = "ERROR", "the check was interrupted before every file was checked; see the step's log."
	case res.Stats.Errors > 0:
		s.Verdict, s.Says = "ERROR", report.Plural64(res.Stats.Errors, "file")+" could not be read; see the step's log."
	case len(res.Violations) > 0 && c.failOn == "error":
		s.Verdict, s.Says = "WARN", report.Plural(len(res.Violations), "violation")+": some files need more than the limits allow; fail-on: error lets the check pass."
	case len(res.Violations) > 0:
		s.Verdict, s.Says = "FAIL", report.Plural(len(res.Violations), "violation")+": some files need more than the limits allow."
	case empty:
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
	for _, v := range res.Advisories {
		s.Notes = append(s.Notes, "warning: "+v.Path+": "+violationText(v))
	}
	for _, w := range c.warnings {
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
func violationText(v floor.Violation) string {
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
