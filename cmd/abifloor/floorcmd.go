package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/abifloor/abifloor/abi/abiread"
	"github.com/abifloor/abifloor/floor"
	"github.com/abifloor/abifloor/internal/limits"
	"github.com/abifloor/abifloor/report"
	"github.com/abifloor/abifloor/targets"
)

type scanFlags struct {
	exclude  multiFlag
	format   string
	follow   bool
	why      bool
	verbose  bool
	quiet    bool
	demangle bool
	jobs     int
	noArt    bool
	strict   bool
	// debugDirs are searched for separate debug files (sites).
	debugDirs multiFlag
}

func (sf *scanFlags) add(fs *flag.FlagSet, formats string) {
	fs.Var(&sf.exclude, "exclude", "skip files and directories whose name or path matches this pattern (repeatable), e.g. --exclude '*.debug'")
	fs.StringVar(&sf.format, "format", "text", "output format: "+formats)
	fs.BoolVar(&sf.follow, "follow", false, "follow symbolic links inside directories")
	fs.BoolVar(&sf.why, "why", false, "name the symbols that set each floor")
	fs.BoolVar(&sf.verbose, "v", false, "also list the versions needed from each library")
	fs.IntVar(&sf.jobs, "j", 0, "files read in parallel (default 2×CPUs)")
	fs.BoolVar(&sf.quiet, "q", false, "print failures only (violations, unreadable files, warnings)")
	fs.BoolVar(&sf.demangle, "demangle", false, "write C++ symbol names demangled (with --why and in violations)")
	fs.BoolVar(&sf.strict, "strict", false, "a malformed artefact met inside a directory, and (check) what a target's loader may refuse (a library outside its base system, a lazily bound symbol no base library defines), is an error (by default a warning)")
	fs.Var(&sf.debugDirs, "debug-dir", "a directory of separate debug files (DIR/.build-id/xx/rest.debug, or named by .gnu_debuglink), searched before /usr/lib/debug for the source lines of call sites (repeatable)")
	fs.BoolVar(&sf.noArt, "no-artefacts", false, "do not open artefacts (wheels, tarballs, packages, jars) met inside directories; those named are still read")
}

// text are the text report's choices these flags make.
func (sf scanFlags) text(env *cmdEnv) floor.TextOptions {
	return floor.TextOptions{Quiet: sf.quiet, Verbose: sf.verbose, Why: sf.why, Color: report.UseColor(env.tty, env.getenv)}
}

func runScan(ctx context.Context, env *cmdEnv, args []string) int {
	fs := newFlags(env, "scan", "[--format text|json] [--why] [-v] [--follow] [--exclude PATTERN]... PATH...")
	var sf scanFlags
	sf.add(fs, "text|json")
	paths, format, code := parsePathsTextJSON(env, fs, args, &sf.format)
	if code >= 0 {
		return code
	}
	if !sf.debugDirsExist(env, "scan") {
		return exitError
	}
	defer sf.memoryLimit(env)()
	opt, done := scanOptions(env, sf)
	// Attribution is what --why asks of scan: where each symbol behind
	// a floor is used.
	opt.Sites = sf.why
	res := floor.Scan(ctx, paths, opt)
	done()
	res.SourceRoot = sourceRoot(env)
	demangleResult(res, sf)
	if format == report.JSON {
		report.WriteJSON(env.stdout, res)
	} else {
		res.WriteText(env.stdout, sf.text(env))
	}
	if res.Incomplete {
		env.sayf("scan", "%s", errText(res.Err))
	}
	return verdictExit(res.Verdict())
}

// scanOptions are the options of a scan with sf, its progress shown
// until done.
func scanOptions(env *cmdEnv, sf scanFlags) (floor.Options, func()) {
	opt := floor.Options{Follow: sf.follow, Exclude: sf.exclude, Why: sf.why, Workers: sf.jobs, NoTreeArtefacts: sf.noArt, Strict: sf.strict, DebugDirs: sf.debugDirs}
	show, done := progress(env)
	opt.Progress = func(files, elf int64) { show("%d files, %d ELF", files, elf) }
	opt.ArtefactProgress = showArtefacts(show)
	return opt, done
}

// memoryLimit raises the soft memory limit for --why until the returned
// function restores it: --why keeps every call site until the report is
// written (some 35 MB for /usr/bin's 258,000). Past the run's 48 MiB the
// collector would run without pause and double the CPU time; at bind's
// 192 MiB (limits.HeavyMemory) it keeps its usual pace. An explicit
// GOMEMLIMIT wins.
func (sf scanFlags) memoryLimit(env *cmdEnv) func() {
	if !sf.why || env.getenv != nil && env.getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	prev := debug.SetMemoryLimit(limits.HeavyMemory)
	return func() { debug.SetMemoryLimit(prev) }
}

func demangleResult(res *floor.Result, sf scanFlags) {
	if sf.demangle {
		res.Demangle(abiread.Demangle)
	}
}

// debugDirsExist says on stderr which --debug-dir is not a directory: a
// typo would otherwise leave every site without its line, silently.
func (sf scanFlags) debugDirsExist(env *cmdEnv, cmd string) bool {
	for _, d := range sf.debugDirs {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			env.sayf(cmd, "--debug-dir %s: not a directory", report.Clean(d))
			return false
		}
	}
	return true
}

// sourceRoot is the directory source paths are shown relative to, and
// within which GitHub annotations and SARIF results are placed at the
// source line: the checkout ($GITHUB_WORKSPACE), else the working
// directory.
func sourceRoot(env *cmdEnv) string {
	if ws := env.getenv("GITHUB_WORKSPACE"); ws != "" {
		if abs, err := filepath.Abs(ws); err == nil {
			return abs
		}
	}
	wd, _ := os.Getwd()
	return wd
}

func runCheck(ctx context.Context, env *cmdEnv, args []string) int {
	return checkWith(ctx, env, args, false)
}

// checkWith runs check. action is set under the GitHub Action (runAction):
// a usage error is then an annotation whatever the format.
func checkWith(ctx context.Context, env *cmdEnv, args []string, action bool) int {
	// Until the arguments are understood, what check says on stderr is
	// also kept: a usage error goes, besides, to the files asked for
	// (--sarif ...) and, under the github format, into an annotation.
	// What check says first on stderr (env.said) is its usage error,
	// which also goes to the files asked for (--sarif ...) and, under
	// the github format, into an annotation.
	env.said = ""
	fs := newFlags(env, "check", "[--max NS=VER]... [--target NAME]... [--image IMAGE] [--format text|json|github|sarif|junit|markdown] [--sarif FILE] [--junit FILE] [--json FILE] [--summary FILE] PATH...")
	var sf scanFlags
	sf.add(fs, "text|json|github|sarif|junit|markdown")
	var maxes, targetNames multiFlag
	fs.Var(&maxes, "max", "highest allowed version, NS=VER (repeatable), e.g. GLIBC=2.35")
	fs.Var(&targetNames, "target", "a target the files must load on (repeatable; see abifloor targets)")
	allowEmpty := fs.Bool("allow-empty", false, "succeed when the paths hold no ELF file (by default that is an error: a gate that checked nothing must not pass)")
	image := fs.String("image", "", "a container image (OCI layout or docker-save tarball) whose own glibc is the GLIBC limit")
	var out checkOutputs
	fs.StringVar(&out.sarif, "sarif", "", "also write the SARIF log to FILE (atomically; on a usage error, a log that says so)")
	fs.StringVar(&out.junit, "junit", "", "also write the JUnit XML report to FILE")
	fs.StringVar(&out.json, "json", "", "also write the JSON report to FILE (not written on a usage error)")
	fs.StringVar(&out.summary, "summary", "", "also write the markdown job summary to FILE")
	fs.StringVar(&out.githubOutput, "github-output", "", "append the outputs a workflow branches on (verdict, violations, floors, floor-glibc, ...) to FILE, as $GITHUB_OUTPUT wants them")
	failOn := fs.String("fail-on", "violation", "what fails the check: violation (a violation or an error) or error (only an error: violations are warnings, exit 0)")
	fail := func() int {
		msg := env.said
		if msg == "" {
			msg = "the check could not start"
		}
		out.fail(env, msg, action || sf.format == string(report.GitHub))
		return exitError
	}
	paths, err := parseFlags(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return fail()
	}
	format, err := report.ParseFormat(sf.format, report.Text, report.JSON, report.GitHub, report.SARIF, report.JUnit, report.Markdown)
	if err != nil {
		env.say("check", errText(err))
		return fail()
	}
	if *failOn != "violation" && *failOn != "error" {
		env.say("check", "--fail-on must be violation or error")
		return fail()
	}
	if len(paths) == 0 {
		env.say("check", "need PATH... (with --max, --target or --image, or packages that claim where they run)")
		fs.Usage()
		return fail()
	}
	var rq floor.Requirements
	for _, m := range maxes {
		ns, ver, err := floor.ParseLimit(m)
		if err != nil {
			env.say("check", errText(err))
			return fail()
		}
		rq.Add(ns, ver, "--max")
	}
	for _, name := range targetNames {
		t, err := targets.Lookup(name)
		if err != nil {
			env.say("check", errText(err), "(abifloor targets lists all)")
			return fail()
		}
		rq.Targets = append(rq.Targets, t)
	}
	if *image != "" {
		// The image's glibc (docs/artefacts.md): a binary copied into
		// it must load with the libc.so.6 its layers leave.
		ver, err := floor.ImageGlibc(ctx, *image)
		if err != nil {
			env.say("check", "--image:", report.Clean(err.Error()))
			return fail()
		}
		rq.Add("GLIBC", ver, "image "+*image)
	}
	if !sf.debugDirsExist(env, "check") {
		return fail()
	}
	defer sf.memoryLimit(env)()
	rq.AllowEmpty, rq.ViolationsWarn = *allowEmpty, *failOn == "error"
	opt, done := scanOptions(env, sf)
	res, err := floor.Check(ctx, paths, rq, opt)
	done()
	res.SourceRoot = sourceRoot(env)
	if errors.Is(err, floor.ErrNothing) {
		env.said = "" // the message is the usage error's
		env.sayf("check", "%s: %v (give at least one --max, --target or --image)", report.Clean(strings.Join(paths, " ")), errText(err))
		return fail()
	}
	demangleResult(res.Result, sf)
	res.Write(env.stdout, format, sf.text(env), buildVersion())
	code := verdictExit(res.Verdict())
	if !out.write(env, res) {
		code = exitError
	}
	switch {
	case res.Incomplete:
		env.sayf("check", "%s", errText(res.Err))
	case res.Verdict() == floor.Warn:
		env.sayf("check", "%s; --fail-on error lets them pass", report.Plural(len(res.Violations), "violation"))
	case res.NothingChecked() && res.Stats.Errors == 0 && len(res.Violations) == 0:
		env.sayf("check", "%s: nothing was checked (--allow-empty accepts this)", noELF(paths))
	}
	return code
}

// verdictExit is the exit code of a check's verdict.
func verdictExit(v floor.Verdict) int {
	switch v {
	case floor.OK, floor.Warn:
		return exitOK
	case floor.Fail:
		return exitViolation
	}
	return exitError
}

func runTargets(_ context.Context, env *cmdEnv, args []string) int {
	fs := newFlags(env, "targets", "[--format text|json]")
	format := fs.String("format", "text", "output format: text|json")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	if len(pos) > 0 {
		return usageError(fs, "unexpected argument %q: targets takes no arguments", pos[0])
	}
	f, err := report.ParseFormat(*format, report.Text, report.JSON)
	if err != nil {
		return env.say("targets", err)
	}
	ts := targets.All()
	if f == report.JSON {
		report.WriteJSON(env.stdout, map[string]any{"targets": ts})
		return exitOK
	}
	targets.WriteText(env.stdout, ts)
	return exitOK
}

// parsePathsTextJSON parses the flags and PATHs of a command whose
// --format (*format, set by the parse) is text or json. code is the exit
// code when the command must stop, and -1 when it goes on.
func parsePathsTextJSON(env *cmdEnv, fs *flag.FlagSet, args []string, format *string) (paths []string, f report.Format, code int) {
	paths, err := parseFlags(fs, args)
	if err != nil {
		return nil, "", flagExit(err)
	}
	f, err = report.ParseFormat(*format, report.Text, report.JSON)
	if err != nil || len(paths) == 0 {
		if err != nil {
			fmt.Fprintf(env.stderr, "abifloor %s: %s\n", fs.Name(), errText(err))
			return nil, "", exitError
		}
		return nil, "", usageError(fs, "missing PATH...: the files and directories to read")
	}
	return paths, f, -1
}

// noELF says why paths held no ELF file: a plain file named on the
// command line is not one ("app.c is not an ELF file"), where a tree
// has none under it.
func noELF(paths []string) string {
	if len(paths) == 1 {
		if fi, err := os.Stat(paths[0]); err == nil && fi.Mode().IsRegular() {
			return report.Clean(paths[0]) + " is not an ELF file, nor an archive abifloor reads"
		}
	}
	return "no ELF file under " + report.Clean(strings.Join(paths, " "))
}
