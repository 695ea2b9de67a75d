package abidiff

import (
	"fmt"
	"io"
	"strings"

	"github.com/abifloor/abifloor/report"
)

// findings lists the public changes of r with a one-line text each,
// as SARIF results (error when incompatible, note when not) about file.
func (r *Report) findings(file string) []report.SARIFResult {
	var out []report.SARIFResult
	add := func(c Change, typ string) {
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
func changeText(c Change, typ string) string {
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

// changeKinds are the change kinds, each the SARIF rule abi/KIND.
var changeKinds = []string{
	string(SymbolRemoved), string(SymbolAdded), string(SymbolVersion), string(SymbolKind), string(SymbolSize), string(SymbolType),
	string(VersionAdded), string(VersionRemoved), string(TypeRemoved), string(Declaration), string(Size), string(Encoding),
	string(Offset), string(BitSize), string(BitOffset), string(MemberAdded), string(MemberRemoved), string(MemberType),
	string(TypedefTarget), string(TypeKind), string(EnumeratorAdded), string(EnumeratorRemoved), string(EnumeratorValue),
	string(ConstantAdded), string(ConstantRemoved), string(ConstantValue),
}

// WriteJUnit writes one test case, the new file, with a failure per
// incompatible change (compatible changes are listed in its output).
func (r *Report) WriteJUnit(w io.Writer, file string) error {
	c := report.JUnitCase{Name: file, ClassName: "abifloor.diff"}
	for _, f := range r.findings(file) {
		if f.Level == "error" {
			c.Failures = append(c.Failures, report.JUnitFinding{Type: f.RuleID, Message: f.Message})
		}
	}
	return report.WriteJUnit(w, "abifloor diff", []report.JUnitCase{c})
}

// WriteSARIF writes a SARIF 2.1.0 log of the changes, about file (the
// new one); version is the tool's.
func (r *Report) WriteSARIF(w io.Writer, version, file string) error {
	return report.WriteSARIF(w, version, report.DiffRules(changeKinds), r.findings(file))
}

// WriteGitHub writes an annotation per incompatible change (at most
// 20, then a count) and one summary.
func (r *Report) WriteGitHub(w io.Writer, file string) {
	fs := r.findings(file)
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
