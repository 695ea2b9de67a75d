package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/abifloor/abifloor/abidiff"
	"github.com/abifloor/abifloor/report"
)

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
	msg := fmt.Sprintf("%s, %s compatible", report.Plural(n, "incompatible change"), report.Plural(compatible, "change"))
	if n > 20 {
		msg += fmt.Sprintf(" (%d incompatible not annotated)", n-20)
	}
	level := "notice"
	if n > 0 {
		level = "error"
	}
	report.WriteAnnotation(w, report.Annotation{Level: level, File: file, Title: "abifloor diff", Message: msg})
}
