package main

import (
	"context"
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
	res := doScan(ctx, env, paths, sf, nil, nil)
	if format == report.JSON {
		report.WriteJSON(env.stdout, res)
	} else {
		writeScanText(env, res, sf)
	}
	if res.Stats.Errors > 0 {
		return exitError
	}
	return exitOK
}

func doScan(ctx context.Context, env *cmdEnv, paths []string, sf scanFlags, limits floor.Limits, ts []targets.Target) *floor.Result {
	opt := floor.Options{Follow: sf.follow, Exclude: sf.exclude, Why: sf.why, Limits: limits, Targets: ts, Workers: sf.jobs, NoTreeArtefacts: sf.noArt}
	show, done := progress(env)
	defer done()
	opt.Progress = func(files, elf int64) { show("%d files, %d ELF", files, elf) }
	opt.ArtefactProgress = showArtefacts(show)
	res := floor.Scan(ctx, paths, opt)
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
	return res
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
	for _, f := range res.Files {
		if f.Error == nil && sf.quiet {
			continue
		}
		path := report.Clean(f.Path)
		pad := strings.Repeat(" ", pathW-utf8.RuneCountInString(path)+2)
		if f.Error != nil {
			fmt.Fprintf(w, "%s%s%s\n", path, pad, p.Red("error: "+report.Clean(f.ErrorMessage())))
			continue
		}
		fmt.Fprintf(w, "%s%s%-*s  %s\n", path, pad, archW, f.Arch, floorList(f.Floors))
		writeDetails(w, f, sf)
	}
	if !sf.quiet {
		writeSummary(w, res, p, sf.verbose)
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
	fs := newFlags(env, "check", "[--max NS=VER]... [--target NAME]... [--format text|json|github|sarif|junit] PATH...")
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
	if len(paths) == 0 || (len(maxes)+len(targetNames) == 0 && *image == "") {
		fmt.Fprintln(env.stderr, "abifloor check: need PATH... and at least one --max, --target or --image")
		fs.Usage()
		return exitError
	}
	limits := floor.Limits{}
	from := map[string]string{} // namespace → what set its limit, for text
	var maxNS []string          // namespaces limited by --max, to warn of limits that checked nothing
	for _, m := range maxes {
		ns, ver, err := floor.ParseLimit(m)
		if err != nil {
			fmt.Fprintln(env.stderr, "abifloor check:", err)
			return exitError
		}
		tighten(limits, from, ns, ver, "--max")
		maxNS = append(maxNS, ns+"="+ver)
	}
	var named []targets.Target
	for _, name := range targetNames {
		t, err := targets.Lookup(name)
		if err != nil {
			fmt.Fprintln(env.stderr, "abifloor check:", err, "(abifloor targets lists all)")
			return exitError
		}
		named = append(named, t)
		if t.IsPolicy() {
			continue // checked by its per-architecture rules (floor/policy.go)
		}
		for ns, ver := range t.Limits {
			tighten(limits, from, ns, ver, t.Name)
		}
	}
	if *image != "" {
		// The image's glibc (docs/artefacts.md): a binary copied into
		// it must load with the libc.so.6 its layers leave.
		ver, err := floor.ImageGlibc(ctx, *image)
		if err != nil {
			fmt.Fprintln(env.stderr, "abifloor check: --image:", report.Clean(err.Error()))
			return exitError
		}
		tighten(limits, from, "GLIBC", ver, "image "+*image)
	}
	res := doScan(ctx, env, paths, sf, limits, named)
	for i := range res.Violations {
		if v := &res.Violations[i]; v.Target == "" {
			v.Target = lookupFold(from, v.Namespace)
		}
	}
	warnings := unusedLimits(res, maxNS)
	empty := res.Stats.ELF == 0 && res.Stats.Errors == 0
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
		}{res, viol, warnings})
	case report.GitHub:
		writeCheckGitHub(env.stdout, res, warnings, empty && !*allowEmpty)
	case report.SARIF:
		writeCheckSARIF(env.stdout, res, warnings, empty && !*allowEmpty)
	case report.JUnit:
		writeCheckJUnit(env.stdout, res, warnings, empty && !*allowEmpty)
	default:
		writeCheckText(env, res, sf, limits, named, warnings, empty && !*allowEmpty)
	}
	switch {
	case res.Stats.Errors > 0:
		return exitError
	case len(res.Violations) > 0:
		return exitViolation
	case empty && !*allowEmpty:
		fmt.Fprintf(env.stderr, "abifloor check: no ELF file under %s: nothing was checked (--allow-empty accepts this)\n", strings.Join(paths, " "))
		return exitError
	}
	return exitOK
}

// lookupFold finds ns in m, case-insensitively (--max glibc=2.28 limits
// GLIBC).
func lookupFold(m map[string]string, ns string) string {
	if v, ok := m[ns]; ok {
		return v
	}
	for k, v := range m {
		if strings.EqualFold(k, ns) {
			return v
		}
	}
	return ""
}

// unusedLimits warns of each --max whose namespace no scanned file needs
// a version of: such a limit checked nothing (a typo, or the wrong tree).
func unusedLimits(res *floor.Result, maxes []string) []string {
	out := []string{}
	if res.Stats.ELF == 0 {
		return out // nothing was checked at all: that is the error to report
	}
	for _, m := range maxes {
		ns, _, _ := strings.Cut(m, "=")
		if _, used := floor.Limits(res.Floors).Lookup(ns); !used {
			out = append(out, fmt.Sprintf("--max %s: no file needs a %s version, so this limit checked nothing", m, ns))
		}
	}
	return out
}

func tighten(l floor.Limits, from map[string]string, ns, ver, src string) {
	before, had := l[ns]
	l.Tighten(ns, ver)
	if !had || l[ns] != before {
		from[ns] = src
	}
}

func writeCheckText(env *cmdEnv, res *floor.Result, sf scanFlags, limits floor.Limits, named []targets.Target, warnings []string, empty bool) {
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
	if sf.quiet {
		if len(res.Violations) > 0 {
			fmt.Fprintf(w, "%s: %s in %s\n", p.Red("FAIL"), plural(len(res.Violations), "violation"), plural(len(bad), "file"))
		} else if empty {
			fmt.Fprintln(w, p.Red("ERROR")+": no ELF file was checked")
		}
		return
	}
	writeSummary(w, res, p, sf.verbose)
	if len(limits) > 0 {
		fmt.Fprintf(w, "limits: %s\n", floorList(limits))
	}
	var policies []string
	for _, t := range named {
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
