package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/abifloor/abifloor/internal/shellwords"
	"github.com/abifloor/abifloor/report"
)

// actionCommand is the hidden command that is the GitHub Action's step
// (action.yml runs .github/action/run.sh, which runs it). It is in no
// usage, completion or manual page: its interface is the Action's inputs.
const actionCommand = "_action"

// runAction reads the step's inputs as the runner passes them
// (INPUT_PATHS, INPUT_TARGET, INPUT_MAX, INPUT_ARGS, INPUT_FORMAT,
// INPUT_SARIF, INPUT_FAIL_ON) and runs check on them once, writing the
// annotations on stdout, the SARIF file, the job summary (appended to
// $GITHUB_STEP_SUMMARY) and the step's outputs ($GITHUB_OUTPUT).
//
// No shell reads an input. Each is split into words as a shell would
// split it (internal/shellwords: quotes honoured, nothing expanded, and
// '$', '`', operators refused), so args: --exclude 'app*' excludes app*,
// and a word of paths with an unquoted *, ? or [ is a pattern
// (filepath.Glob), expanded here: a pattern that matches nothing is an
// error, as is anything that cannot be read, never a silent skip.
func runAction(ctx context.Context, env *cmdEnv, args []string) int {
	if len(args) > 0 {
		fmt.Fprintf(env.stderr, "abifloor %s: takes no arguments: its inputs are the INPUT_* variables of a GitHub Action step\n", actionCommand)
		return exitError
	}
	get := env.getenv
	var out checkOutputs
	out.githubOutput = get("GITHUB_OUTPUT")
	out.sarif = get("INPUT_SARIF")
	failOn := get("INPUT_FAIL_ON")
	if failOn == "" {
		failOn = "violation"
	}
	// check writes the summary whole into a file of its own, which is
	// then appended to the step's: the runner made that file, and other
	// steps' summaries go there too.
	if s := get("GITHUB_STEP_SUMMARY"); s != "" {
		dir, err := os.MkdirTemp(get("RUNNER_TEMP"), "abifloor-summary-")
		if err != nil {
			return env.sayf("check", "a directory for the job summary: %s", errText(err))
		}
		defer os.RemoveAll(dir)
		out.summary = filepath.Join(dir, "summary.md")
		code := actionStep(ctx, env, out, failOn)
		if !appendSummary(env, out.summary, s) {
			code = exitError
		}
		return code
	}
	return actionStep(ctx, env, out, failOn)
}

// actionStep is runAction once its files are known.
func actionStep(ctx context.Context, env *cmdEnv, out checkOutputs, failOn string) int {
	get := env.getenv
	fail := func(format string, a ...any) int {
		msg := fmt.Sprintf(format, a...)
		env.say("check", report.Clean(msg))
		out.fail(env, msg, true)
		return exitError
	}
	if out.sarif != "" {
		// The SARIF file's directory (out/abifloor.sarif) need not exist.
		if err := os.MkdirAll(filepath.Dir(out.sarif), 0o755); err != nil {
			return fail("the sarif input: %v", err)
		}
	}
	if failOn != "violation" && failOn != "error" {
		// Not the value: an input is echoed nowhere it could be read as
		// a workflow command, and this one has no reason to be.
		return fail("the fail-on input must be violation or error")
	}
	format := get("INPUT_FORMAT")
	if format == "" {
		format = "github"
	}
	argv := []string{"--format", format, "--fail-on", failOn}
	if out.sarif != "" {
		argv = append(argv, "--sarif", out.sarif)
	}
	if out.summary != "" {
		argv = append(argv, "--summary", out.summary)
	}
	if out.githubOutput != "" {
		argv = append(argv, "--github-output", out.githubOutput)
	}
	for _, in := range []struct{ name, flag string }{{"target", "--target"}, {"max", "--max"}} {
		ws, err := shellwords.Split(get("INPUT_" + strings.ToUpper(in.name)))
		if err != nil {
			return fail("the %s input: %v", in.name, err)
		}
		for _, w := range ws {
			argv = append(argv, in.flag, w.Text)
		}
	}
	ws, err := shellwords.Split(get("INPUT_ARGS"))
	if err != nil {
		return fail("the args input: %v", err)
	}
	argv = append(argv, shellwords.Texts(ws)...)
	paths, err := shellwords.Paths(get("INPUT_PATHS"), ".")
	if err != nil {
		return fail("the paths input: %v", err)
	}
	argv = append(append(argv, "--"), paths...)
	return checkWith(ctx, env, argv, true)
}

// appendSummary appends the summary check wrote to the step's summary
// file; when it wrote none, a summary saying the step failed.
func appendSummary(env *cmdEnv, from, to string) bool {
	b, err := os.ReadFile(from)
	if err != nil || len(b) == 0 {
		b = []byte("## abifloor check\n\n**ERROR**: the check wrote no summary; see the step's log.\n")
	}
	f, err := os.OpenFile(to, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err == nil {
		_, err = f.Write(b)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		env.sayf("check", "GITHUB_STEP_SUMMARY: %s", errText(err))
		return false
	}
	return true
}
