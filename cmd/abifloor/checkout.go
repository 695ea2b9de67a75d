package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
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
func (o checkOutputs) write(env *cmdEnv, c *floor.CheckResult) bool {
	ok := true
	file := func(flagName, path string, format report.Format) bool {
		if path == "" {
			return false
		}
		var b bytes.Buffer
		c.Write(&b, format, floor.TextOptions{}, buildVersion())
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
		c.WriteOutputs(&b)
		if sarif {
			report.GitHubOutput(&b, "sarif", o.sarif)
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
		report.GitHubOutput(&b, "verdict", floor.Error.String())
		if o.sarif != "" {
			report.GitHubOutput(&b, "sarif", o.sarif)
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
