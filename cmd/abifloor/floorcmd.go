package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

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
		writeScanText(env, res, sf)
	}
	if res.Incomplete {
		fmt.Fprintf(env.stderr, "abifloor scan: %v\n", res.Err)
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

// floorList writes floors as "GLIBC 2.34, GLIBCXX 3.4.30", GLIBC first,
// then the C++ runtime, then the rest by name.
func floorList(floors map[string]string) string {
	if len(floors) == 0 {
		return "-"
	}
	names := make([]string, 0, len(floors))
	for ns := range floors {
		names = append(names, ns)
	}
	sortNamespaces(names)
	parts := make([]string, len(names))
	for i, ns := range names {
		parts[i] = ns + " " + floors[ns]
	}
	return report.Clean(strings.Join(parts, ", "))
}

var nsRank = map[string]int{"GLIBC": 0, "GLIBCXX": 1, "CXXABI": 2, "GCC": 3}

func sortNamespaces(names []string) {
	sort.Slice(names, func(i, j int) bool {
		ri, oki := nsRank[names[i]]
		rj, okj := nsRank[names[j]]
		switch {
		case oki && okj:
			return ri < rj
		case oki != okj:
			return oki
		}
		return names[i] < names[j]
	})
}

// maxPathColumn caps scan's path column: a longer path goes on its own
// line rather than padding every line to its width.
const maxPathColumn = 64

func writeScanText(env *cmdEnv, res *floor.Result, sf scanFlags) {
	p := report.Painter{On: report.UseColor(env.tty, env.getenv)}
	w := env.stdout
	// The widths are computed over the whole result (which is complete
	// before anything is written), so the columns line up for every file,
	// detail lines in between or not; a tabwriter restarts its columns
	// after each line without cells.
	pathW, archW := 0, 0
	for _, f := range res.Files {
		if f.Error == nil && sf.quiet {
			continue
		}
		pathW = max(pathW, utf8.RuneCountInString(report.Clean(f.Path)))
		if f.Error == nil {
			archW = max(archW, utf8.RuneCountInString(f.Arch))
		}
	}
	pathW = min(pathW, maxPathColumn)
	for _, f := range res.Files {
		if f.Error == nil && sf.quiet {
			continue
		}
		path := report.Clean(f.Path)
		n := utf8.RuneCountInString(path)
		if n > pathW && f.Error == nil {
			// A path longer than the column goes on its own line, its
			// columns on the next (issue 22 item 6).
			fmt.Fprintln(w, path)
			path, n = "", 0
		}
		pad := strings.Repeat(" ", max(pathW-n, 0)+2)
		if f.Error != nil {
			fmt.Fprintf(w, "%s%s%s\n", path, pad, p.Red("error: "+report.Clean(f.ErrorMessage())))
			continue
		}
		fmt.Fprintf(w, "%s%s%-*s  %s\n", path, pad, archW, f.Arch, floorList(f.Floors))
		writeDetails(w, f, sf)
	}
	writeSkipped(w, res, p)
	if !sf.quiet {
		writeSummary(w, res, p, sf.verbose)
	}
}

// writeSkipped warns of the malformed artefacts met in the trees.
func writeSkipped(w io.Writer, res *floor.Result, p report.Painter) {
	for _, f := range res.Skipped {
		fmt.Fprintf(w, "%s: %s: %s (met inside a directory; --strict makes it an error)\n", p.Yellow("warning"), report.Clean(f.Path), report.Clean(f.ErrorMessage()))
	}
}

func writeDetails(w io.Writer, f floor.FileReport, sf scanFlags) {
	if sf.verbose {
		for _, n := range f.Needs {
			fmt.Fprintf(w, "    %s: %s\n", report.Clean(n.Library), report.Clean(strings.Join(n.Versions, " ")))
		}
	}
	for _, n := range f.Notes {
		fmt.Fprintf(w, "    note: %s\n", report.Clean(n))
	}
	if sf.why {
		names := make([]string, 0, len(f.Why))
		for ns := range f.Why {
			names = append(names, ns)
		}
		sortNamespaces(names)
		for _, ns := range names {
			fmt.Fprintf(w, "    %s %s: %s\n", report.Clean(ns), report.Clean(f.Floors[ns]), symbolList(f.Why[ns], 8))
		}
	}
}

// symbolList joins up to max names and says how many more there are.
func symbolList(syms []string, max int) string {
	if len(syms) == 0 {
		return "(no symbol names it: the version is required by the library link alone)"
	}
	if len(syms) <= max {
		return report.Clean(strings.Join(syms, " "))
	}
	return report.Clean(fmt.Sprintf("%s and %d more", strings.Join(syms[:max], " "), len(syms)-max))
}

func writeSummary(w io.Writer, res *floor.Result, p report.Painter, all bool) {
	s := res.Stats
	fmt.Fprintf(w, "%s (%s looked at", plural64(s.ELF, "ELF file"), plural64(s.Files, "file"))
	if s.Symlinks > 0 {
		fmt.Fprintf(w, ", %s not followed", plural64(s.Symlinks, "symlink"))
	}
	if s.Special > 0 {
		fmt.Fprintf(w, ", %s skipped", plural64(s.Special, "special file"))
	}
	if s.Excluded > 0 {
		fmt.Fprintf(w, ", %d excluded", s.Excluded)
	}
	// A tree such as /usr needs scores of namespaces; the summary names the
	// toolchain ones and counts the rest unless -v.
	floors := res.Floors
	others := 0
	if !all {
		floors = map[string]string{}
		for ns, v := range res.Floors {
			if _, ok := nsRank[ns]; ok {
				floors[ns] = v
			} else {
				others++
			}
		}
	}
	fmt.Fprintf(w, "); floor: %s", floorList(floors))
	if others > 0 {
		fmt.Fprintf(w, " (and %s; -v lists them)", plural(others, "other namespace"))
	}
	fmt.Fprintln(w)
	if s.Errors > 0 {
		fmt.Fprintln(w, p.Red(plural64(s.Errors, "file")+" could not be read"))
	}
}

func runCheck(ctx context.Context, env *cmdEnv, args []string) int {
	fs := newFlags(env, "check", "[--max NS=VER]... [--target NAME]... [--image IMAGE] [--format text|json|github|sarif|junit] PATH...")
	var sf scanFlags
	sf.add(fs, "text|json|github|sarif|junit")
	var maxes, targetNames multiFlag
	fs.Var(&maxes, "max", "highest allowed version, NS=VER (repeatable), e.g. GLIBC=2.35")
	fs.Var(&targetNames, "target", "a target the files must load on (repeatable; see abifloor targets)")
	allowEmpty := fs.Bool("allow-empty", false, "succeed when the paths hold no ELF file (by default that is an error: a gate that checked nothing must not pass)")
	image := fs.String("image", "", "a container image (OCI layout or docker-save tarball) whose own glibc is the GLIBC limit")
	paths, err := parseFlags(fs, args)
	if err != nil {
		return flagExit(err)
	}
	format, err := report.ParseFormat(sf.format, report.Text, report.JSON, report.GitHub, report.SARIF, report.JUnit)
	if err != nil {
		fmt.Fprintln(env.stderr, "abifloor check:", err)
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
			fmt.Fprintln(env.stderr, "abifloor check:", err)
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
		fmt.Fprintf(env.stderr, "abifloor check: %s: %v (give at least one --max, --target or --image)\n", report.Clean(strings.Join(paths, " ")), err)
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
		writeCheckGitHub(env.stdout, res.Result, warnings, empty)
	case report.SARIF:
		writeCheckSARIF(env.stdout, res.Result, warnings, empty)
	case report.JUnit:
		writeCheckJUnit(env.stdout, res.Result, warnings, empty)
	default:
		writeCheckText(env, res, sf, rq, warnings, empty)
	}
	switch {
	case res.Incomplete:
		fmt.Fprintf(env.stderr, "abifloor check: %v\n", res.Err)
		return exitError
	case res.Stats.Errors > 0:
		return exitError
	case len(res.Violations) > 0:
		return exitViolation
	case empty:
		fmt.Fprintf(env.stderr, "abifloor check: no ELF file under %s: nothing was checked (--allow-empty accepts this)\n", report.Clean(strings.Join(paths, " ")))
		return exitError
	}
	return exitOK
}

func writeCheckText(env *cmdEnv, res *floor.CheckResult, sf scanFlags, rq floor.Requirements, warnings []string, empty bool) {
	p := report.Painter{On: report.UseColor(env.tty, env.getenv)}
	w := env.stdout
	for _, v := range res.Violations {
		fmt.Fprintf(w, "%s %s: %s\n", p.Red("FAIL"), report.Clean(v.Path), report.Clean(v.Cause()))
		if len(v.Symbols) > 0 || v.Rule == "" {
			fmt.Fprintf(w, "    needs %s\n", symbolList(v.Symbols, 8))
		}
	}
	for _, f := range res.Files {
		switch {
		case f.Error != nil:
			fmt.Fprintf(w, "%s %s: %s\n", p.Red("ERROR"), report.Clean(f.Path), report.Clean(f.ErrorMessage()))
		case sf.quiet:
		case sf.why || sf.verbose:
			fmt.Fprintf(w, "%s  %s  %s\n", report.Clean(f.Path), f.Arch, floorList(f.Floors))
			writeDetails(w, f, sf)
		}
	}
	bad := map[string]bool{}
	for _, v := range res.Violations {
		bad[v.Path] = true
	}
	for _, warn := range warnings {
		fmt.Fprintf(w, "%s: %s\n", p.Yellow("warning"), warn)
	}
	writeSkipped(w, res.Result, p)
	if sf.quiet {
		if len(res.Violations) > 0 {
			fmt.Fprintf(w, "%s: %s in %s\n", p.Red("FAIL"), plural(len(res.Violations), "violation"), plural(len(bad), "file"))
		} else if empty {
			fmt.Fprintln(w, p.Red("ERROR")+": no ELF file was checked")
		} else if res.Incomplete {
			fmt.Fprintln(w, p.Red("ERROR")+": "+res.Err.Error())
		}
		return
	}
	writeSummary(w, res.Result, p, sf.verbose)
	if limits := rq.Effective(); len(limits) > 0 {
		fmt.Fprintf(w, "limits: %s\n", floorList(limits))
	}
	for _, c := range res.Claims {
		state := "holds"
		if !c.Held {
			state = p.Red("broken")
		} else if c.Files == 0 {
			state = "no file is held to it"
		}
		fmt.Fprintf(w, "claim %s: %s: %s\n", report.Clean(c.Artefact), report.Clean(c.Claim), state)
	}
	var policies []string
	for _, t := range rq.Targets {
		if t.IsPolicy() {
			policies = append(policies, t.Name)
		}
	}
	if len(policies) > 0 {
		fmt.Fprintf(w, "policies: %s\n", strings.Join(policies, ", "))
	}
	// OK only when something was checked and nothing went wrong: an
	// empty tree or an unreadable file is never OK.
	switch {
	case res.Incomplete:
		fmt.Fprintln(w, p.Red("ERROR")+": "+res.Err.Error())
	case empty:
		fmt.Fprintln(w, p.Red("ERROR")+": no ELF file was checked")
	case len(res.Violations) == 0 && res.Stats.Errors == 0 && res.Stats.ELF == 0:
		fmt.Fprintln(w, p.Green("OK")+": no ELF file to check (--allow-empty)")
	case len(res.Violations) == 0 && res.Stats.Errors == 0:
		fmt.Fprintln(w, p.Green("OK")+": every file is within the limits")
	case len(res.Violations) > 0:
		fmt.Fprintf(w, "%s: %s in %s\n", p.Red("FAIL"), plural(len(res.Violations), "violation"), plural(len(bad), "file"))
	}
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
			fmt.Fprintf(env.stderr, "abifloor %s: %v\n", fs.Name(), err)
			return nil, "", exitError
		}
		return nil, "", usageError(fs, "missing PATH...: the files and directories to read")
	}
	return paths, f, -1
}
