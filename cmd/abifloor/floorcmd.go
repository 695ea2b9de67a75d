package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/abifloor/abifloor/floor"
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
	fs.BoolVar(&sf.strict, "strict", false, "a malformed artefact met inside a directory is an error (by default a warning)")
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
	opt, done := scanOptions(env, sf)
	res := floor.Scan(ctx, paths, opt)
	done()
	demangleResult(res, sf)
	if format == report.JSON {
		report.WriteJSON(env.stdout, res)
	} else {
		res.WriteText(env.stdout, sf.text(env))
	}
	if res.Incomplete {
		fmt.Fprintf(env.stderr, "abifloor scan: %s\n", errText(res.Err))
		return exitError
	}
	if res.Stats.Errors > 0 {
		return exitError
	}
	return exitOK
}

// scanOptions are the options of a scan with sf, its progress shown
// until done.
func scanOptions(env *cmdEnv, sf scanFlags) (floor.Options, func()) {
	opt := floor.Options{Follow: sf.follow, Exclude: sf.exclude, Why: sf.why, Workers: sf.jobs, NoTreeArtefacts: sf.noArt, Strict: sf.strict}
	show, done := progress(env)
	opt.Progress = func(files, elf int64) { show("%d files, %d ELF", files, elf) }
	opt.ArtefactProgress = showArtefacts(show)
	return opt, done
}

func demangleResult(res *floor.Result, sf scanFlags) {
	if sf.demangle {
		for i := range res.Violations {
			demangleAll(res.Violations[i].Symbols)
		}
		for _, f := range res.Files {
			for _, syms := range f.Why {
				demangleAll(syms)
			}
		}
	}
}

func runCheck(ctx context.Context, env *cmdEnv, args []string) int {
	fs := newFlags(env, "check", "[--max NS=VER]... [--target NAME]... [--image IMAGE] [--format text|json|github|sarif|junit|markdown] PATH...")
	var sf scanFlags
	sf.add(fs, "text|json|github|sarif|junit|markdown")
	var maxes, targetNames multiFlag
	fs.Var(&maxes, "max", "highest allowed version, NS=VER (repeatable), e.g. GLIBC=2.35")
	fs.Var(&targetNames, "target", "a target the files must load on (repeatable; see abifloor targets)")
	allowEmpty := fs.Bool("allow-empty", false, "succeed when the paths hold no ELF file (by default that is an error: a gate that checked nothing must not pass)")
	image := fs.String("image", "", "a container image (OCI layout or docker-save tarball) whose own glibc is the GLIBC limit")
	paths, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	format, err := report.ParseFormat(sf.format, report.Text, report.JSON, report.GitHub, report.SARIF, report.JUnit, report.Markdown)
	if err != nil {
		fmt.Fprintln(env.stderr, "abifloor check:", errText(err))
		return exitError
	}
	if len(paths) == 0 {
		fmt.Fprintln(env.stderr, "abifloor check: need PATH... (with --max, --target or --image, or packages that claim where they run)")
		fs.Usage()
		return exitError
	}
	var rq floor.Requirements
	for _, m := range maxes {
		ns, ver, err := floor.ParseLimit(m)
		if err != nil {
			fmt.Fprintln(env.stderr, "abifloor check:", errText(err))
			return exitError
		}
		rq.Add(ns, ver, "--max")
	}
	for _, name := range targetNames {
		t, err := targets.Lookup(name)
		if err != nil {
			fmt.Fprintln(env.stderr, "abifloor check:", err, "(abifloor targets lists all)")
			return exitError
		}
		rq.Targets = append(rq.Targets, t)
	}
	if *image != "" {
		// The image's glibc (docs/artefacts.md): a binary copied into
		// it must load with the libc.so.6 its layers leave.
		ver, err := floor.ImageGlibc(ctx, *image)
		if err != nil {
			fmt.Fprintln(env.stderr, "abifloor check: --image:", report.Clean(err.Error()))
			return exitError
		}
		rq.Add("GLIBC", ver, "image "+*image)
	}
	opt, done := scanOptions(env, sf)
	res, err := floor.Check(ctx, paths, rq, opt)
	done()
	if errors.Is(err, floor.ErrNothing) {
		fmt.Fprintf(env.stderr, "abifloor check: %s: %v (give at least one --max, --target or --image)\n", report.Clean(strings.Join(paths, " ")), errText(err))
		return exitError
	}
	demangleResult(res.Result, sf)
	warnings := []string{}
	for _, l := range res.Unused {
		warnings = append(warnings, report.Clean(fmt.Sprintf("%s %s=%s: no file needs a %s version, so this limit checked nothing", l.Source, l.Namespace, l.Version, l.Namespace)))
	}
	empty := res.Empty && !*allowEmpty
	switch format {
	case report.JSON:
		// check always has "violations", [] when there are none, so tools
		// can read it without a special case.
		viol := res.Violations
		if viol == nil {
			viol = []floor.Violation{}
		}
		report.WriteJSON(env.stdout, struct {
			*floor.Result
			Violations []floor.Violation `json:"violations"`
			Warnings   []string          `json:"warnings"`
		}{res.Result, viol, warnings})
	case report.GitHub:
		if res.Incomplete {
			// Never the OK summary: one error saying how far it got.
			report.WriteAnnotation(env.stdout, report.Annotation{Level: "error", Title: "abifloor check", Message: res.Err.Error()})
			break
		}
		res.WriteGitHub(env.stdout, warnings, empty)
	case report.SARIF:
		res.WriteSARIF(env.stdout, buildVersion(), warnings, empty)
	case report.JUnit:
		res.WriteJUnit(env.stdout, warnings, empty)
	case report.Markdown:
		report.WriteMarkdown(env.stdout, checkSummary(res, empty))
	default:
		res.WriteText(env.stdout, sf.text(env), rq, warnings, empty)
	}
	switch {
	case res.Incomplete:
		fmt.Fprintf(env.stderr, "abifloor check: %s\n", errText(res.Err))
		return exitError
	case res.Stats.Errors > 0:
		return exitError
	case len(res.Violations) > 0:
		return exitViolation
	case empty:
		fmt.Fprintf(env.stderr, "abifloor check: %s: nothing was checked (--allow-empty accepts this)\n", noELF(paths))
		return exitError
	}
	return exitOK
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
		fmt.Fprintln(env.stderr, "abifloor targets:", err)
		return exitError
	}
	ts := targets.All()
	if f == report.JSON {
		report.WriteJSON(env.stdout, map[string]any{"targets": ts})
		return exitOK
	}
	tw := tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TARGET\tKIND\tGLIBC\tGLIBCXX\tCXXABI\tGCC\tALIASES")
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	for _, t := range ts {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.Name, t.Kind, dash(t.Limits["GLIBC"]), dash(t.Limits["GLIBCXX"]),
			dash(t.Limits["CXXABI"]), dash(t.Limits["GCC"]), strings.Join(t.Aliases, " "))
	}
	tw.Flush()
	// A dash is not an unknown: say what it means, so that nobody reads
	// SLES's "-" as "libstdc++ of any age is there" without the reason.
	fmt.Fprintln(env.stdout, "-: not limited. SLES updates libstdc++6 to the newest GCC's runtime (a system without those updates has an older one); musllinux has no glibc; a compiler does not pin glibc.")
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

// summaryRows is the most files a job summary lists: GitHub takes at most
// 1 MiB of summary per step.
const summaryRows = 500

// checkSummary is check's job summary (--format markdown, which the
// GitHub Action writes to $GITHUB_STEP_SUMMARY): the verdict the exit
// code gives, then a row per file, those that failed first: its floors
// and its violations, or why it could not be read.
func checkSummary(res *floor.CheckResult, empty bool) report.MarkdownSummary {
	s := report.MarkdownSummary{Title: "abifloor check", Header: []string{"file", "floors", "violations"}}
	switch {
	case res.Incomplete:
		s.Verdict, s.Says = "ERROR", "the check was interrupted before every file was checked; see the step's log."
	case res.Stats.Errors > 0:
		s.Verdict, s.Says = "ERROR", report.Plural64(res.Stats.Errors, "file")+" could not be read; see the step's log."
	case len(res.Violations) > 0:
		s.Verdict, s.Says = "FAIL", "some files need more than the limits allow."
	case empty:
		s.Verdict, s.Says = "ERROR", "no ELF file was checked; see the step's log."
	default:
		s.Verdict, s.Says = "OK", "every file is within the limits."
	}
	causes := map[string][]string{}
	for _, v := range res.Violations {
		causes[v.Path] = append(causes[v.Path], v.Cause())
	}
	var bad, good [][]report.MarkdownCell
	for _, f := range res.Files {
		var floors []string
		for _, ns := range slices.Sorted(maps.Keys(f.Floors)) {
			floors = append(floors, ns+" "+f.Floors[ns])
		}
		row := []report.MarkdownCell{{Text: f.Path, Code: true}, {Text: strings.Join(floors, ", ")}, {Text: strings.Join(causes[f.Path], "; ")}}
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
	s.Rows = append(bad, good...)
	if len(s.Rows) > summaryRows {
		s.More = len(s.Rows) - summaryRows
		s.Rows = s.Rows[:summaryRows]
	}
	return s
}
