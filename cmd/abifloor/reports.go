package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/abifloor/abifloor/abidiff"
	"github.com/abifloor/abifloor/floor"
	"github.com/abifloor/abifloor/report"
)

func writeCheckSARIF(w io.Writer, res *floor.Result, warnings []string, empty bool) error {
	var rs []report.SARIFResult
	if empty {
		rs = append(rs, report.SARIFResult{RuleID: "floor/nothing-checked", Message: "no ELF file under the paths: nothing was checked (--allow-empty accepts this)"})
	}
	for _, v := range res.Violations {
		msg := v.Cause()
		if len(v.Symbols) > 0 {
			msg += "; needs " + symbolList(v.Symbols, 20)
		}
		rs = append(rs, report.SARIFResult{RuleID: report.CheckRuleID(v.Rule), Message: msg, URI: v.Path})
	}
	for _, f := range res.Files {
		if f.Error != nil {
			rs = append(rs, report.SARIFResult{RuleID: "floor/unreadable", Message: f.ErrorMessage(), URI: f.Path})
		}
	}
	for _, warn := range warnings {
		rs = append(rs, report.SARIFResult{RuleID: "floor/limit-unused", Message: warn})
	}
	return report.WriteSARIF(w, buildVersion(), report.CheckRules, rs)
}

// writeCheckJUnit writes a test case per file (and member) checked, a
// failure per violation, an error per file that could not be read; a
// run that checked nothing is one failing case.
func writeCheckJUnit(w io.Writer, res *floor.Result, warnings []string, empty bool) error {
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
			f.Text = "needs " + symbolList(v.Symbols, 20)
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

// writeCheckGitHub writes one annotation per cause, not per file: GitHub
// shows about ten annotations per step, and a tree fails for few causes
// (540 files of /usr/bin for __libc_start_main@GLIBC_2.34). The last line
// sums up.
func writeCheckGitHub(w io.Writer, res *floor.Result, warnings []string, empty bool) {
	type group struct {
		cause string
		files []string
		syms  map[string]int
		order []string
	}
	var gs []*group
	byCause := map[string]*group{}
	for _, v := range res.Violations {
		c := v.Cause()
		g := byCause[c]
		if g == nil {
			g = &group{cause: c, syms: map[string]int{}}
			byCause[c] = g
			gs = append(gs, g)
		}
		g.files = append(g.files, v.Path)
		for _, s := range v.Symbols {
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
		a := report.Annotation{Level: "error", File: g.files[0], Title: g.cause}
		if len(g.files) == 1 {
			if len(g.order) > 0 {
				a.Message = "needs " + symbolList(g.order, 20)
			} else {
				a.Message = g.cause
			}
		} else {
			a.Title += " (" + plural(len(g.files), "file") + ")"
			var syms []string
			for _, s := range g.order[:min(len(g.order), 8)] {
				syms = append(syms, fmt.Sprintf("%s (%s)", s, plural(g.syms[s], "file")))
			}
			a.Message = plural(len(g.files), "file") + ": " + symbolList(g.files, 10)
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
		report.WriteAnnotation(w, report.Annotation{Level: "error", File: firstUnreadable, Title: fmt.Sprintf("%s could not be read", plural(len(unreadable), "file")),
			Message: strings.Join(unreadable[:min(len(unreadable), 20)], "\n")})
	}
	for _, warn := range warnings {
		report.WriteAnnotation(w, report.Annotation{Level: "warning", Title: "limit checked nothing", Message: warn})
	}
	bad := map[string]bool{}
	for _, v := range res.Violations {
		bad[v.Path] = true
	}
	checked := plural64(res.Stats.ELF, "ELF file")
	switch {
	case empty:
		report.WriteAnnotation(w, report.Annotation{Level: "error", Title: "abifloor check", Message: "no ELF file was checked"})
	case len(res.Violations) > 0 || len(unreadable) > 0:
		msg := fmt.Sprintf("FAIL: %s in %s (%s) of %s", plural(len(res.Violations), "violation"), plural(len(bad), "file"), plural(len(gs), "cause"), checked)
		if len(unreadable) > 0 {
			msg += fmt.Sprintf("; %s could not be read", plural(len(unreadable), "file"))
		}
		report.WriteAnnotation(w, report.Annotation{Level: "error", Title: "abifloor check", Message: msg})
	default:
		report.WriteAnnotation(w, report.Annotation{Level: "notice", Title: "abifloor check", Message: "OK: " + checked + " within the limits"})
	}
}

// diffFindings lists the public changes of r with a one-line text each,
// as SARIF results (error when incompatible, note when not) about file.
func diffFindings(r *abidiff.Report, file string) []report.SARIFResult {
	var out []report.SARIFResult
	add := func(c abidiff.Change, typ string) {
		level := "note"
		if !c.Compatible {
			level = "error"
		}
		out = append(out, report.SARIFResult{RuleID: report.DiffRuleID(string(c.Kind)), Level: level, Message: changeText(c, typ), URI: file})
	}
	for _, c := range r.Symbols.Changes {
		add(c, "")
	}
	for _, t := range r.Types {
		for _, c := range t.Changes {
			add(c, t.Name)
		}
	}
	for _, c := range r.Constants {
		add(c, "")
	}
	return out
}

// changeText says what changed: "struct foo.b: offset 8 -> 16",
// "symbol-removed: malloc_get_state@GLIBC_2.2.5".
func changeText(c abidiff.Change, typ string) string {
	subject := c.Symbol
	switch {
	case typ != "" && c.Path != "":
		subject = typ + "." + c.Path
	case typ != "":
		subject = typ
	case c.Constant != "":
		subject = c.Constant
	case c.Version != "" && subject == "":
		subject = c.Version
	}
	s := strings.ReplaceAll(string(c.Kind), "-", " ") + ": " + subject
	switch {
	case c.Old != "" && c.New != "":
		s += ": " + c.Old + " -> " + c.New
	case c.New != "":
		s += ": " + c.New
	case c.Old != "":
		s += ": was " + c.Old
	}
	if c.Note != "" {
		s += " (" + c.Note + ")"
	}
	if !c.Compatible {
		s += " [incompatible]"
	}
	return s
}

// diffKinds are abidiff's change kinds, each the SARIF rule abi/KIND.
var diffKinds = []string{
	string(abidiff.SymbolRemoved), string(abidiff.SymbolAdded), string(abidiff.SymbolVersion), string(abidiff.SymbolKind), string(abidiff.SymbolSize), string(abidiff.SymbolType),
	string(abidiff.VersionAdded), string(abidiff.VersionRemoved), string(abidiff.TypeRemoved), string(abidiff.Declaration), string(abidiff.Size), string(abidiff.Encoding),
	string(abidiff.Offset), string(abidiff.BitSize), string(abidiff.BitOffset), string(abidiff.MemberAdded), string(abidiff.MemberRemoved), string(abidiff.MemberType),
	string(abidiff.TypedefTarget), string(abidiff.TypeKind), string(abidiff.EnumeratorAdded), string(abidiff.EnumeratorRemoved), string(abidiff.EnumeratorValue),
	string(abidiff.ConstantAdded), string(abidiff.ConstantRemoved), string(abidiff.ConstantValue),
}

// writeDiffJUnit writes one test case, the new file, with a failure per
// incompatible change (compatible changes are listed in its output).
func writeDiffJUnit(w io.Writer, r *abidiff.Report, file string) error {
	c := report.JUnitCase{Name: file, ClassName: "abifloor.diff"}
	for _, f := range diffFindings(r, file) {
		if f.Level == "error" {
			c.Failures = append(c.Failures, report.JUnitFinding{Type: f.RuleID, Message: f.Message})
		}
	}
	return report.WriteJUnit(w, "abifloor diff", []report.JUnitCase{c})
}

func writeDiffSARIF(w io.Writer, r *abidiff.Report, file string) error {
	return report.WriteSARIF(w, buildVersion(), report.DiffRules(diffKinds), diffFindings(r, file))
}

// writeDiffGitHub writes an annotation per incompatible change (at most
// 20, then a count) and one summary.
func writeDiffGitHub(w io.Writer, r *abidiff.Report, file string) {
	fs := diffFindings(r, file)
	n, compatible := 0, 0
	for _, f := range fs {
		if f.Level != "error" {
			compatible++
			continue
		}
		if n < 20 {
			report.WriteAnnotation(w, report.Annotation{Level: "error", File: file, Title: "incompatible ABI change", Message: f.Message})
		}
		n++
	}
	msg := fmt.Sprintf("%s, %s compatible", plural(n, "incompatible change"), plural(compatible, "change"))
	if n > 20 {
		msg += fmt.Sprintf(" (%d incompatible not annotated)", n-20)
	}
	level := "notice"
	if n > 0 {
		level = "error"
	}
	report.WriteAnnotation(w, report.Annotation{Level: level, File: file, Title: "abifloor diff", Message: msg})
}
