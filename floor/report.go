package floor

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/abifloor/abifloor/report"
)

// TextOptions are the choices of the scan and check text reports.
type TextOptions struct {
	Quiet   bool // failures only
	Verbose bool // every version needed from each library, every namespace
	Why     bool // the symbols behind each floor
	Color   bool
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

// WriteText writes the scan for a person: a line per file (its
// architecture and floors), the details TextOptions ask for, and a
// summary. Every name from the input is escaped.
func (res *Result) WriteText(w io.Writer, opt TextOptions) {
	p := report.Painter{On: opt.Color}
	// The widths are computed over the whole result (which is complete
	// before anything is written), so the columns line up for every file,
	// detail lines in between or not; a tabwriter restarts its columns
	// after each line without cells.
	pathW, archW := 0, 0
	for _, f := range res.Files {
		if f.Error == nil && opt.Quiet {
			continue
		}
		pathW = max(pathW, utf8.RuneCountInString(report.Clean(f.Path)))
		if f.Error == nil {
			archW = max(archW, utf8.RuneCountInString(f.Arch))
		}
	}
	pathW = min(pathW, maxPathColumn)
	for _, f := range res.Files {
		if f.Error == nil && opt.Quiet {
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
		writeDetails(w, f, opt, res.SourceRoot)
	}
	writeSkipped(w, res, p)
	if !opt.Quiet {
		writeSummary(w, res, p, opt.Verbose)
	}
}

// writeSkipped warns of the malformed artefacts met in the trees.
func writeSkipped(w io.Writer, res *Result, p report.Painter) {
	for _, f := range res.Skipped {
		fmt.Fprintf(w, "%s: %s: %s (met inside a directory; --strict makes it an error)\n", p.Yellow("warning"), report.Clean(f.Path), report.Clean(f.ErrorMessage()))
	}
}

func writeDetails(w io.Writer, f FileReport, opt TextOptions, root string) {
	if opt.Verbose {
		for _, n := range f.Needs {
			fmt.Fprintf(w, "    %s: %s\n", report.Clean(n.Library), report.Clean(strings.Join(n.Versions, " ")))
		}
	}
	for _, n := range f.Notes {
		fmt.Fprintf(w, "    note: %s\n", report.Clean(n))
	}
	if opt.Why {
		names := make([]string, 0, len(f.Why))
		for ns := range f.Why {
			names = append(names, ns)
		}
		sortNamespaces(names)
		for _, ns := range names {
			fmt.Fprintf(w, "    %s %s: %s\n", report.Clean(ns), report.Clean(f.Floors[ns]), refList(f.Why[ns], 8))
		}
		writeAttribution(w, f.Attribution, opt, root)
	}
}

// symbolList joins up to max names and says how many more there are.
// refList is symbolList of references.
func refList(refs []Ref, max int) string { return symbolList(refStrings(refs), max) }

func symbolList(syms []string, max int) string {
	if len(syms) == 0 {
		return "(no symbol names it: the version is required by the library link alone)"
	}
	if len(syms) <= max {
		return report.Clean(strings.Join(syms, " "))
	}
	return report.Clean(fmt.Sprintf("%s and %d more", strings.Join(syms[:max], " "), len(syms)-max))
}

func writeSummary(w io.Writer, res *Result, p report.Painter, all bool) {
	s := res.Stats
	fmt.Fprintf(w, "%s (%s looked at", report.Plural64(s.ELF, "ELF file"), report.Plural64(s.Files, "file"))
	if s.Symlinks > 0 {
		fmt.Fprintf(w, ", %s not followed", report.Plural64(s.Symlinks, "symlink"))
	}
	if s.Special > 0 {
		fmt.Fprintf(w, ", %s skipped", report.Plural64(s.Special, "special file"))
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
		fmt.Fprintf(w, " (and %s; -v lists them)", report.Plural(others, "other namespace"))
	}
	fmt.Fprintln(w)
	if s.Errors > 0 {
		fmt.Fprintln(w, p.Red(report.Plural64(s.Errors, "file")+" could not be read"))
	}
}

// WriteText writes the check for a person: each violation with the
// symbols behind it, the limits, the claims and whether they held, and the
// verdict, which is OK only when something was checked and nothing went
// wrong.
func (res *CheckResult) WriteText(w io.Writer, opt TextOptions) {
	rq, warnings, empty := res.Requirements, res.Warnings, res.NothingChecked()
	p := report.Painter{On: opt.Color}
	for _, v := range res.Violations {
		fmt.Fprintf(w, "%s %s: %s\n", p.Red("FAIL"), report.Clean(v.Path), report.Clean(v.Cause()))
		if len(v.Symbols) > 0 || v.Rule == "" {
			fmt.Fprintf(w, "    needs %s\n", refList(v.Symbols, 8))
		}
		writeAttribution(w, v.Attribution, opt, res.SourceRoot)
	}
	for _, f := range res.Files {
		switch {
		case f.Error != nil:
			fmt.Fprintf(w, "%s %s: %s\n", p.Red("ERROR"), report.Clean(f.Path), report.Clean(f.ErrorMessage()))
		case opt.Quiet:
		case opt.Why || opt.Verbose:
			fmt.Fprintf(w, "%s  %s  %s\n", report.Clean(f.Path), f.Arch, floorList(f.Floors))
			f.Attribution = notShown(f.Attribution, f.Path, res.Violations)
			writeDetails(w, f, opt, res.SourceRoot)
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
	if opt.Quiet {
		if len(res.Violations) > 0 {
			fmt.Fprintf(w, "%s: %s in %s\n", p.Red("FAIL"), report.Plural(len(res.Violations), "violation"), report.Plural(len(bad), "file"))
		} else if empty {
			fmt.Fprintln(w, p.Red("ERROR")+": no ELF file was checked")
		} else if res.Incomplete {
			fmt.Fprintln(w, p.Red("ERROR")+": "+res.Err.Error())
		}
		return
	}
	writeSummary(w, res.Result, p, opt.Verbose)
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
		fmt.Fprintf(w, "%s: %s in %s\n", p.Red("FAIL"), report.Plural(len(res.Violations), "violation"), report.Plural(len(bad), "file"))
	}
}

// WriteText writes the fit for a person: per file and per tree, the
// oldest tag and distro releases that fit and what blocks the next older.
func (fit *FitReport) WriteText(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range fit.Files {
		if f.Error != nil {
			fmt.Fprintf(tw, "%s\terror: %s\n", report.Clean(f.Path), report.Clean(f.ErrorMessage()))
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", report.Clean(f.Path), report.Clean(f.Arch), policyLine(f.Fits))
		fmt.Fprintf(tw, "    distros: %s\n", distroList(f.Distros))
	}
	tw.Flush()
	byArch := map[string]int{}
	for _, t := range fit.Tree {
		byArch[t.Arch]++
	}
	for _, t := range fit.Tree {
		fmt.Fprintf(w, "tree %s%s (%s): %s\n", report.Clean(t.Arch), libcSuffix(t.Libc), report.Plural(t.Files, "file"), policyLine(t.Fits))
		if byArch[t.Arch] > 1 {
			// Two rows of one architecture: say why.
			fmt.Fprintf(w, "    (%s files are split by C library: %s)\n", report.Clean(t.Arch), libcNote(t.Libc))
		}
		if t.Libc == Musl && t.Policy != "" {
			fmt.Fprintln(w, "    note: musl has no symbol versions, so musllinux_1_1 and musllinux_1_2 cannot be told apart: the tag is the oldest the policy table allows")
		}
		for _, d := range t.Distros {
			fmt.Fprintf(w, "    %s: %s\n", report.Clean(d.Family), distroLine(d))
		}
	}
}

// libcNote says what a tree row's libc means.
func libcNote(libc string) string {
	switch libc {
	case "":
		return "these need no C library (static, or none needed), so they load on glibc and musl alike"
	case Musl:
		return "these are linked against musl and are held to musllinux and musl distros only"
	}
	return "these are linked against glibc and are held to manylinux and glibc distros only"
}

func libcSuffix(libc string) string {
	if libc == "" || libc == Glibc {
		return ""
	}
	return "/" + libc
}

func policyLine(f Fits) string {
	s := "fits no manylinux or musllinux tag"
	if f.Policy != "" {
		s = "fits " + report.Clean(f.Policy)
	}
	if f.Blocked != nil {
		s += "; " + report.Clean(f.Blocked.Target) + " blocked by " + blockers(f.Blocked.Violations, 3)
	}
	return s
}

func distroList(ds []DistroFit) string {
	var parts []string
	for _, d := range ds {
		if d.Oldest != "" && d.Assumes != "" {
			parts = append(parts, report.Clean(d.Oldest)+"*") // * the fit assumes an updated runtime
		} else if d.Oldest != "" {
			parts = append(parts, report.Clean(d.Oldest))
		} else {
			// Between release names, "no amazonlinux" read as a
			// release of its own.
			parts = append(parts, "(no "+report.Clean(d.Family)+" release fits)")
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}

func distroLine(d DistroFit) string {
	s := "no release fits"
	if d.Oldest != "" {
		s = "oldest " + report.Clean(d.Oldest)
	}
	if d.Blocked != nil {
		s += "; " + report.Clean(d.Blocked.Target) + " blocked by " + blockers(d.Blocked.Violations, 2)
	}
	if d.Assumes != "" {
		s += " (" + report.Clean(d.Assumes) + ")"
	}
	return s
}

// blockers says what the violations are (Blockers): at most max
// causes, each with its first symbols and the files it blocks.
func blockers(vs []Violation, max int) string {
	var parts []string
	bs := Blockers(vs)
	for i, b := range bs {
		if i == max {
			parts = append(parts, fmt.Sprintf("and %d more", len(bs)-max))
			break
		}
		s := b.Cause
		if len(b.Symbols) > 0 {
			s += ": " + strings.Join(refStrings(b.Symbols[:min(4, len(b.Symbols))]), ", ")
			if len(b.Symbols) > 4 {
				s += fmt.Sprintf(" and %d more", len(b.Symbols)-4)
			}
		}
		if b.Files > 1 {
			s += " (" + report.Plural(b.Files, "file") + ")"
		}
		parts = append(parts, s)
	}
	return report.Clean(strings.Join(parts, "; "))
}

// WriteSARIF writes a SARIF 2.1.0 log of the check; version is the tool's.
func (res *CheckResult) WriteSARIF(w io.Writer, version string) error {
	warnings, empty := res.Warnings, res.NothingChecked()
	var rs []report.SARIFResult
	if empty {
		rs = append(rs, report.SARIFResult{RuleID: "floor/nothing-checked", Message: "no ELF file under the paths: nothing was checked (--allow-empty accepts this)"})
	}
	// A violation whose every symbol is used at a line of the checkout
	// is found at those lines; any other also at its file.
	lines, whole := sourceLines(res.Violations, res.SourceRoot)
	for i, v := range res.Violations {
		if whole[i] {
			continue
		}
		msg := v.Cause()
		if len(v.Symbols) > 0 {
			msg += "; needs " + refList(v.Symbols, 20)
		}
		rs = append(rs, report.SARIFResult{RuleID: report.CheckRuleID(v.Rule), Message: msg, URI: v.Path})
	}
	rs = append(rs, sourceResults(lines)...)
	for _, f := range res.Files {
		if f.Error != nil {
			rs = append(rs, report.SARIFResult{RuleID: "floor/unreadable", Message: f.ErrorMessage(), URI: f.Path})
		}
	}
	for _, warn := range warnings {
		rs = append(rs, report.SARIFResult{RuleID: "floor/limit-unused", Message: warn})
	}
	return report.WriteSARIFRoot(w, version, res.SourceRoot, report.CheckRules, rs)
}

// WriteJUnit writes a test case per file (and member) checked, a
// failure per violation, an error per file that could not be read; a
// run that checked nothing is one failing case.
func (res *CheckResult) WriteJUnit(w io.Writer) error {
	warnings, empty := res.Warnings, res.NothingChecked()
	const class = "abifloor.check"
	var cases []report.JUnitCase
	index := map[string]int{}
	for _, f := range res.Files {
		index[f.Path] = len(cases)
		c := report.JUnitCase{Name: f.Path, ClassName: class}
		if f.Error != nil {
			c.Error = f.ErrorMessage()
		}
		cases = append(cases, c)
	}
	for _, v := range res.Violations {
		i, ok := index[v.Path]
		if !ok {
			i = len(cases)
			index[v.Path] = i
			cases = append(cases, report.JUnitCase{Name: v.Path, ClassName: class})
		}
		f := report.JUnitFinding{Type: report.CheckRuleID(v.Rule), Message: v.Cause()}
		if len(v.Symbols) > 0 {
			f.Text = "needs " + refList(v.Symbols, 20)
			var b strings.Builder
			writeAttribution(&b, v.Attribution, TextOptions{}, res.SourceRoot)
			if b.Len() > 0 {
				f.Text += "\n" + strings.TrimSuffix(b.String(), "\n")
			}
		}
		cases[i].Failures = append(cases[i].Failures, f)
	}
	if empty {
		cases = append(cases, report.JUnitCase{Name: "(no ELF file)", ClassName: class, Failures: []report.JUnitFinding{{Type: "floor/nothing-checked", Message: "no ELF file under the paths: nothing was checked (--allow-empty accepts this)"}}})
	}
	for _, warn := range warnings {
		cases = append(cases, report.JUnitCase{Name: "(limits)", ClassName: class, Failures: []report.JUnitFinding{{Type: "floor/limit-unused", Message: warn}}})
	}
	return report.WriteJUnit(w, "abifloor check", cases)
}

// WriteGitHub writes one annotation per cause, not per file: GitHub
// shows about ten annotations per step, and a tree fails for few causes
// (540 files of /usr/bin for __libc_start_main@GLIBC_2.34). The last line
// sums up. Violations, and the last line when only violations failed,
// are warnings when Requirements.ViolationsWarn lets them pass (the
// Action's fail-on: error); what could not be read stays an error. A run
// cut short is one error saying how far it got, never the OK summary.
func (res *CheckResult) WriteGitHub(w io.Writer) {
	if res.Incomplete {
		report.WriteAnnotation(w, report.Annotation{Level: "error", Title: "abifloor check", Message: res.Err.Error()})
		return
	}
	level := "error"
	if res.Requirements.ViolationsWarn {
		level = "warning"
	}
	res.writeGitHub(w, res.Warnings, res.NothingChecked(), level)
}

func (res *Result) writeGitHub(w io.Writer, warnings []string, empty bool, level string) {
	type group struct {
		cause string
		files []string
		syms  map[string]int
		order []string
	}
	var gs []*group
	byCause := map[string]*group{}
	// Each line of the checkout that uses a violation's symbol gets its
	// annotation; a violation not placed whole in the source also gets
	// its file's.
	lines, whole := sourceLines(res.Violations, res.SourceRoot)
	leftOut := writeSourceAnnotations(w, lines, level)
	for i, v := range res.Violations {
		if whole[i] {
			continue
		}
		c := v.Cause()
		g := byCause[c]
		if g == nil {
			g = &group{cause: c, syms: map[string]int{}}
			byCause[c] = g
			gs = append(gs, g)
		}
		g.files = append(g.files, v.Path)
		for _, ref := range v.Symbols {
			s := ref.String()
			if g.syms[s] == 0 {
				g.order = append(g.order, s)
			}
			g.syms[s]++
		}
	}
	sort.SliceStable(gs, func(i, j int) bool { return len(gs[i].files) > len(gs[j].files) })
	for _, g := range gs {
		// The symbols most files need first.
		sort.SliceStable(g.order, func(i, j int) bool { return g.syms[g.order[i]] > g.syms[g.order[j]] })
		a := report.Annotation{Level: level, File: g.files[0], Title: g.cause}
		if len(g.files) == 1 {
			if len(g.order) > 0 {
				a.Message = "needs " + symbolList(g.order, 20)
			} else {
				a.Message = g.cause
			}
		} else {
			a.Title += " (" + report.Plural(len(g.files), "file") + ")"
			var syms []string
			for _, s := range g.order[:min(len(g.order), 8)] {
				syms = append(syms, fmt.Sprintf("%s (%s)", s, report.Plural(g.syms[s], "file")))
			}
			a.Message = report.Plural(len(g.files), "file") + ": " + symbolList(g.files, 10)
			if len(syms) > 0 {
				a.Message += "\nneeds " + strings.Join(syms, ", ")
				if len(g.order) > 8 {
					a.Message += fmt.Sprintf(" and %d more", len(g.order)-8)
				}
			}
		}
		report.WriteAnnotation(w, a)
	}
	// One annotation, at the first file that could not be read.
	var unreadable []string
	firstUnreadable := ""
	for _, f := range res.Files {
		if f.Error != nil {
			if firstUnreadable == "" {
				firstUnreadable = f.Path
			}
			unreadable = append(unreadable, f.Path+": "+f.ErrorMessage())
		}
	}
	switch {
	case len(unreadable) == 1:
		report.WriteAnnotation(w, report.Annotation{Level: "error", File: firstUnreadable, Title: "unreadable ELF file", Message: unreadable[0]})
	case len(unreadable) > 1:
		report.WriteAnnotation(w, report.Annotation{Level: "error", File: firstUnreadable, Title: fmt.Sprintf("%s could not be read", report.Plural(len(unreadable), "file")),
			Message: strings.Join(unreadable[:min(len(unreadable), 20)], "\n")})
	}
	for _, warn := range warnings {
		report.WriteAnnotation(w, report.Annotation{Level: "warning", Title: "limit checked nothing", Message: warn})
	}
	bad := map[string]bool{}
	for _, v := range res.Violations {
		bad[v.Path] = true
	}
	checked := report.Plural64(res.Stats.ELF, "ELF file")
	switch {
	case empty:
		report.WriteAnnotation(w, report.Annotation{Level: "error", Title: "abifloor check", Message: "no ELF file was checked"})
	case len(res.Violations) > 0 || len(unreadable) > 0:
		msg := fmt.Sprintf("FAIL: %s in %s (%s) of %s", report.Plural(len(res.Violations), "violation"), report.Plural(len(bad), "file"), report.Plural(len(gs), "cause"), checked)
		lv := level
		if len(unreadable) > 0 {
			msg += fmt.Sprintf("; %s could not be read", report.Plural(len(unreadable), "file"))
			lv = "error"
		}
		if leftOut > 0 {
			msg += fmt.Sprintf("; %s of source not annotated (--format json lists every site)", report.Plural(leftOut, "more line"))
		}
		report.WriteAnnotation(w, report.Annotation{Level: lv, Title: "abifloor check", Message: msg})
	default:
		report.WriteAnnotation(w, report.Annotation{Level: "notice", Title: "abifloor check", Message: "OK: " + checked + " within the limits"})
	}
}
