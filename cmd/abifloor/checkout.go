package main

import (
	"bytes"
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

// files writes each report file asked for with write (false: the
// format has no report, and no file is written); ok is false when one
// could not be written (said on stderr), sarif true when the SARIF file
// was.
func (o checkOutputs) files(env *cmdEnv, write func(io.Writer, report.Format) (bool, error)) (ok, sarif bool) {
	ok = true
	for _, f := range []struct {
		flag, path string
		format     report.Format
	}{{"sarif", o.sarif, report.SARIF}, {"junit", o.junit, report.JUnit}, {"json", o.json, report.JSON}, {"summary", o.summary, report.Markdown}} {
		var b bytes.Buffer
		if f.path == "" {
			continue
		}
		if some, _ := write(&b, f.format); !some {
			continue
		}
		if err := atomicfile.WriteFile(f.path, b.Bytes(), 0o644); err != nil {
			env.sayf("check", "--%s: %s", f.flag, errText(err))
			ok = false
			continue
		}
		sarif = sarif || f.format == report.SARIF
	}
	return ok, sarif
}

// write writes c's reports to the files asked for; false when one could
// not be written (said on stderr).
func (o checkOutputs) write(env *cmdEnv, c *floor.CheckResult) bool {
	ok, sarif := o.files(env, func(w io.Writer, f report.Format) (bool, error) {
		return true, c.Write(w, f, floor.TextOptions{}, buildVersion())
	})
	if o.githubOutput != "" {
		var b strings.Builder
		c.WriteOutputs(&b)
		if sarif {
			report.GitHubOutput(&b, "sarif", o.sarif)
		}
		ok = o.appendOutputs(env, b.String()) && ok
	}
	return ok
}

// fail writes what the files asked for say of a check that could not
// start (msg, a usage error; floor.WriteNotStarted): no JSON report,
// whose shape has no place for it, and verdict=error in the outputs.
// With annotate, msg is also an ::error annotation on stdout (the github
// format, the Action).
func (o checkOutputs) fail(env *cmdEnv, msg string, annotate bool) {
	if annotate {
		report.WriteAnnotation(env.stdout, report.Annotation{Level: "error", Title: "abifloor check", Message: msg})
	}
	o.files(env, func(w io.Writer, f report.Format) (bool, error) {
		return floor.WriteNotStarted(w, f, buildVersion(), msg)
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
		env.sayf("check", "--github-output: %s", errText(err))
		return false
	}
	return true
}
