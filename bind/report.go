package bind

import (
	"fmt"
	"io"
	"strings"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/report"
)

// TextOptions are the choices of the text report.
type TextOptions struct {
	Quiet  bool // failures and warnings only
	All    bool // every unresolved symbol, not the first Screenful
	Tree   bool // the libraries each file loads, as lddtree shows them
	Strict bool // lazily bound symbols nobody provides fail the run
	Color  bool
}

// Screenful is how many symbols the text lists per file without All.
const Screenful = 20

// WriteText writes the audit for a person: a verdict per file, how it
// binds, what is missing, and the warnings. Every name from the input is
// escaped.
func (res *Result) WriteText(w io.Writer, opt TextOptions) {
	p := report.Painter{On: opt.Color}
	warned := map[string]bool{}
	for _, l := range res.Warnings {
		warned[l.Path] = true
	}
	for _, fr := range res.Files {
		if opt.Quiet && fr.Error == nil && !fr.DiesAtStart && len(fr.DlopenMissing) == 0 && fr.PLTNone == 0 && len(fr.RelrIgnored) == 0 && fr.HostSymbols == 0 && !warned[fr.Path] {
			continue
		}
		name := p.Bold(report.Clean(fr.Path))
		switch {
		case fr.Error != nil && fr.Arch == "":
			fmt.Fprintf(w, "%s: %s\n", report.Clean(fr.Path), p.Red("error: "+report.Clean(fr.ErrorMessage())))
			continue
		case fr.Kind == elfx.DebugInfo:
			fmt.Fprintf(w, "%s: %s\n", name, "debug info (a separate debug file): never run, not audited")
			continue
		case fr.Kind.Static():
			fmt.Fprintf(w, "%s: %s\n  %s: no dynamic loader, nothing to bind\n", name, p.Green("loads"), fr.Kind)
			continue
		}
		verdict := p.Green("loads")
		switch {
		case fr.IfBindNow:
			verdict = p.Red(report.Clean(fr.BindNowVerdict()))
		case fr.DiesAtStart:
			verdict = p.Red("dies at start: " + report.Clean(fr.Reason))
		case fr.PLTNone > 0:
			verdict = p.Red(fr.PLTNoneWarning())
		case len(fr.RelrIgnored) > 0:
			verdict = p.Red(report.Clean(fr.RelrWarning()))
		case fr.HostSymbols > 0:
			verdict = p.Yellow(report.Clean(fr.Reason))
		}
		mode := "lazy binding"
		if fr.BindNow {
			mode = "BIND_NOW"
			if fr.GoBindNow {
				mode += " (Go linker)"
			}
		}
		fmt.Fprintf(w, "%s: %s\n  %s, RELRO %s", name, verdict, mode, fr.Relro)
		if fr.Interp != "" {
			fmt.Fprintf(w, ", interpreter %s", report.Clean(fr.Interp))
		}
		fmt.Fprintln(w)
		if fr.Message != "" {
			// The kernel refuses a missing interpreter before ld.so runs.
			by := "ld.so"
			switch {
			case strings.HasPrefix(fr.Reason, "interpreter "):
				by = "exec"
			case fr.IfBindNow:
				by = "ld.so (LD_BIND_NOW=1)"
			}
			fmt.Fprintf(w, "  %s: %s\n", by, report.Clean(fr.Message))
		}
		if opt.Tree {
			writeTree(w, fr.Deps)
		} else {
			for _, m := range fr.MissingLibraries {
				fmt.Fprintf(w, "  %s => not found\n", report.Clean(m))
			}
		}
		for _, v := range fr.ViaHost {
			if v.Host != "" {
				fmt.Fprintf(w, "  %s => %s (found via %s)\n", report.Clean(v.Name), report.Clean(v.Path), report.Clean(v.Host))
			} else {
				fmt.Fprintf(w, "  %s => %s %s\n", report.Clean(v.Name), report.Clean(v.Path), p.Yellow("(note: found only via its host: it lies beside the library, not on its own search path)"))
			}
		}
		// What the --host program provides, and which of its objects:
		// a screenful, -v all (JSON has them all).
		for i, h := range fr.HostProvided {
			if i == Screenful && !opt.All {
				fmt.Fprintf(w, "  … and %s from the host (-v lists them all)\n", report.Plural(len(fr.HostProvided)-i, "more symbol"))
				break
			}
			name := h.Name
			if h.Version != "" {
				name += "@" + h.Version
			}
			fmt.Fprintf(w, "  %-6s %s => %s (host)\n", h.Binding, report.Clean(name), report.Clean(h.By))
		}
		for _, sk := range fr.Skipped {
			fmt.Fprintf(w, "  skipped %s\n", report.Clean(sk))
		}
		// A symbol is counted once, though with --dlopen it may be in
		// both lists: "and N more" counts the symbols not shown.
		listed := 0
		shown, all := map[string]bool{}, map[string]bool{}
		for _, u := range fr.Unresolved {
			all[symName(u)] = true
		}
		for _, u := range fr.DlopenMissing {
			all[symName(u)] = true
		}
		for _, u := range fr.Unresolved {
			if listed++; listed > Screenful && !opt.All {
				break
			}
			shown[symName(u)] = true
			fmt.Fprintf(w, "  %-6s %s%s\n", u.Binding, symName(u), refDetail(u))
		}
		for _, u := range fr.DlopenMissing {
			if listed++; listed > Screenful && !opt.All {
				break
			}
			shown[symName(u)] = true
			fmt.Fprintf(w, "  %s\n", p.Red("would fail at first call to "+symName(u)+": no --dlopen library defines it"))
		}
		if n := len(all) - len(shown); n > 0 && !opt.All {
			fmt.Fprintf(w, "  … and %s (-v lists them all)\n", report.Plural(n, "more symbol"))
		}
		if fr.Error != nil {
			fmt.Fprintf(w, "  %s\n", p.Red("error: "+report.Clean(fr.ErrorMessage())))
		}
	}
	for _, l := range res.Warnings {
		fmt.Fprintf(w, "%s %s: %s\n", report.StrictLabel(p, opt.Strict), report.Clean(l.Path), report.Clean(l.Message))
	}
}

// writeTree prints the libraries of a load as lddtree does: each under
// the object that needs it, and a library's own needs under the object
// that loaded it (the first to need it in load order, breadth first).
func writeTree(w io.Writer, deps []ObjectDeps) {
	byObj := map[string][]Dep{}
	for _, od := range deps {
		byObj[od.Object] = od.Needed
	}
	loader := map[string]string{"": ""}
	for queue := []string{""}; len(queue) > 0; queue = queue[1:] {
		for _, d := range byObj[queue[0]] {
			if _, seen := loader[d.Path]; d.Path != "" && !seen {
				loader[d.Path] = queue[0]
				queue = append(queue, d.Path)
			}
		}
	}
	var walk func(obj string, depth int)
	walk = func(obj string, depth int) {
		for _, d := range byObj[obj] {
			at := "not found"
			if d.Path != "" {
				at = d.Path
			}
			fmt.Fprintf(w, "%*s%s => %s\n", 2+4*depth, "", report.Clean(d.Name), report.Clean(at))
			if d.Path != "" && d.Path != obj && loader[d.Path] == obj {
				walk(d.Path, depth+1)
			}
		}
	}
	walk("", 0)
}

// BindNowVerdict is what --bind-now says of a file that starts as linked
// and dies when every symbol is bound at start.
func (r FileReport) BindNowVerdict() string {
	return "would die at start if linked with -z now: " + r.Reason
}

func symName(u Unresolved) string { return report.Clean(u.SymbolName()) }

func refDetail(u Unresolved) string {
	var parts []string
	if u.Relocation != "" {
		parts = append(parts, u.Relocation)
	}
	if u.Object != "" {
		parts = append(parts, "in "+u.Object)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + report.Clean(strings.Join(parts, ", ")) + ")"
}

// WriteGitHub writes GitHub Actions annotations: one per failure, and per
// warning.
func (res *Result) WriteGitHub(w io.Writer, strict bool) {
	for _, fr := range res.Files {
		switch {
		case fr.Error != nil:
			report.WriteAnnotation(w, report.Annotation{Level: "error", File: fr.Path, Title: "abifloor bind", Message: fr.ErrorMessage()})
		case fr.IfBindNow:
			report.WriteAnnotation(w, report.Annotation{Level: "error", File: fr.Path, Title: "would die at start if linked with -z now", Message: fr.BindNowVerdict()})
		case fr.DiesAtStart:
			report.WriteAnnotation(w, report.Annotation{Level: "error", File: fr.Path, Title: "dies at start", Message: fr.Message})
		}
		if len(fr.RelrIgnored) > 0 && !fr.DiesAtStart {
			report.WriteAnnotation(w, report.Annotation{Level: "error", File: fr.Path, Title: "DT_RELR ignored by the loader", Message: fr.RelrWarning()})
		}
		if fr.PLTNone > 0 && !fr.DiesAtStart {
			report.WriteAnnotation(w, report.Annotation{Level: "error", File: fr.Path, Title: "PLT relocations of type NONE", Message: fr.PLTNoneWarning()})
		}
		for _, v := range fr.HostOnly() {
			report.WriteAnnotation(w, report.Annotation{Level: "notice", File: fr.Path, Title: "found only via its host", Message: v.Note()})
		}
		for _, u := range fr.DlopenMissing {
			report.WriteAnnotation(w, report.Annotation{Level: "error", File: fr.Path, Title: "dlopen library lacks a symbol", Message: "would fail at first call to " + symName(u)})
		}
	}
	for _, l := range res.Warnings {
		report.WriteAnnotation(w, report.Annotation{Level: report.StrictLevel(strict), File: l.Path, Title: "lazily bound symbols nothing provides", Message: l.Message})
	}
}

// WriteSARIF writes a SARIF 2.1.0 log of the audit; version is the
// tool's.
func (res *Result) WriteSARIF(w io.Writer, version string, strict bool) error {
	lazy := res.Warnings
	var rs []report.SARIFResult
	for _, fr := range res.Files {
		switch {
		case fr.Error != nil:
			rs = append(rs, report.SARIFResult{RuleID: "bind/unreadable", Message: fr.ErrorMessage(), URI: fr.Path})
		case fr.IfBindNow:
			rs = append(rs, report.SARIFResult{RuleID: "bind/dies-if-bind-now", Message: fr.BindNowVerdict(), URI: fr.Path})
		case fr.DiesAtStart:
			msg := fr.Message
			if msg == "" {
				msg = fr.Reason
			}
			rs = append(rs, report.SARIFResult{RuleID: "bind/dies-at-start", Message: msg, URI: fr.Path})
		}
		if len(fr.RelrIgnored) > 0 && !fr.DiesAtStart {
			rs = append(rs, report.SARIFResult{RuleID: "bind/relr-ignored", Message: fr.RelrWarning(), URI: fr.Path})
		}
		if fr.PLTNone > 0 && !fr.DiesAtStart {
			rs = append(rs, report.SARIFResult{RuleID: "bind/plt-none", Message: fr.PLTNoneWarning(), URI: fr.Path})
		}
		for _, v := range fr.HostOnly() {
			rs = append(rs, report.SARIFResult{RuleID: "bind/host-only", Message: v.Note(), URI: fr.Path})
		}
		for _, u := range fr.DlopenMissing {
			rs = append(rs, report.SARIFResult{RuleID: "bind/dlopen-missing", Message: "would fail at first call to " + symName(u) + ": no --dlopen library defines it", URI: fr.Path})
		}
	}
	for _, l := range lazy {
		r := report.SARIFResult{RuleID: "bind/lazy-unresolved", Message: l.Message, URI: l.Path}
		if strict {
			r.Level = "error"
		}
		rs = append(rs, r)
	}
	return report.WriteSARIF(w, version, report.BindRules, rs)
}

// WriteJUnit writes a test case per file audited: a failure when it
// dies at start or misses a --dlopen symbol, and, with --strict, per
// lazily bound symbol no library provides; an error when it could not be
// read.
func (res *Result) WriteJUnit(w io.Writer, strict bool) error {
	lazy := res.Warnings
	const class = "abifloor.bind"
	var cases []report.JUnitCase
	index := map[string]int{}
	for _, fr := range res.Files {
		index[fr.Path] = len(cases)
		c := report.JUnitCase{Name: fr.Path, ClassName: class}
		switch {
		case fr.Error != nil:
			c.Error = fr.ErrorMessage()
		case fr.IfBindNow:
			c.Failures = append(c.Failures, report.JUnitFinding{Type: "bind/dies-if-bind-now", Message: fr.BindNowVerdict()})
		case fr.DiesAtStart:
			msg := fr.Message
			if msg == "" {
				msg = fr.Reason
			}
			c.Failures = append(c.Failures, report.JUnitFinding{Type: "bind/dies-at-start", Message: msg})
		case fr.PLTNone > 0:
			c.Failures = append(c.Failures, report.JUnitFinding{Type: "bind/plt-none", Message: fr.PLTNoneWarning()})
		case len(fr.RelrIgnored) > 0:
			c.Failures = append(c.Failures, report.JUnitFinding{Type: "bind/relr-ignored", Message: fr.RelrWarning()})
		}
		for _, u := range fr.DlopenMissing {
			c.Failures = append(c.Failures, report.JUnitFinding{Type: "bind/dlopen-missing", Message: "would fail at first call to " + symName(u) + ": no --dlopen library defines it"})
		}
		cases = append(cases, c)
	}
	if strict {
		for _, l := range lazy {
			i, ok := index[l.Path]
			if !ok {
				i = len(cases)
				index[l.Path] = i
				cases = append(cases, report.JUnitCase{Name: l.Path, ClassName: class})
			}
			cases[i].Failures = append(cases[i].Failures, report.JUnitFinding{Type: "bind/lazy-unresolved", Message: l.Message})
		}
	}
	return report.WriteJUnit(w, "abifloor bind", cases)
}
