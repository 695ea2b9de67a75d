package floor

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/abifloor/abifloor/cause"
	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/errjson"
	"github.com/abifloor/abifloor/report"
	"github.com/abifloor/abifloor/sites"
	"github.com/abifloor/abifloor/symver"
	"github.com/abifloor/abifloor/targets"
)

// Attribution answers, for one symbol behind a violation (or, with
// --why, behind a floor), the two questions a floor leaves open: where
// the file uses it (Sites: calls, GOT loads, data words, each with its
// function and source line where DWARF says) and why the symbol needs
// its version and what lowers it (Cause, for glibc's symbols).
type Attribution struct {
	Symbol Ref    `json:"symbol"`
	Cause  *Cause `json:"cause,omitempty"`
	// Sites are in address order; never nil in JSON.
	Sites []Site `json:"sites"`
}

// Cause is package cause's answer for one symbol.
type Cause struct {
	// Class is stable (cause.Cause.Class): c23-headers, lfs-headers,
	// stat-headers, start-files, libc-merge, memcpy, fortify, ...,
	// new-function, new-version.
	Class  string `json:"class"`
	Reason string `json:"reason"`
	Fix    string `json:"fix"`
}

// Site is one use of a symbol in a file (sites.Site): its address, how
// it uses the symbol, its function and, with line information, its
// source file (as DWARF names it, resolved against the unit's
// compilation directory) and line, and the inlined-from chain, innermost
// first.
type Site struct {
	Function string   `json:"function,omitempty"`
	File     string   `json:"file,omitempty"`
	Line     int      `json:"line,omitempty"`
	Address  string   `json:"address"`
	Kind     string   `json:"kind"`
	Inlined  []Inline `json:"inlined"`
}

// Inline says that Function's body was inlined at File:Line.
type Inline struct {
	Function string `json:"function,omitempty"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
}

// MarshalJSON writes the site with "inlined" always present.
func (s Site) MarshalJSON() ([]byte, error) {
	type plain Site
	if s.Inlined == nil {
		s.Inlined = []Inline{}
	}
	return errjson.Marshal(plain(s), "", true)
}

// MarshalJSON writes the attribution with "sites" always present.
func (a Attribution) MarshalJSON() ([]byte, error) {
	type plain Attribution
	if a.Sites == nil {
		a.Sites = []Site{}
	}
	return errjson.Marshal(plain(a), "", true)
}

// MarshalJSON writes the violation with its arrays present: "symbols"
// and "attribution" ([] where no attribution ran: fit, or a violation
// without symbols).
func (v Violation) MarshalJSON() ([]byte, error) {
	type plain Violation
	if v.Symbols == nil {
		v.Symbols = []Ref{}
	}
	if v.Attribution == nil {
		v.Attribution = []Attribution{}
	}
	return errjson.Marshal(plain(v), "", true)
}

// located is what attribution found in one file while it was open, kept
// until its violations are final (an artefact's claims come after its
// members are read).
type located struct {
	res  *sites.Result
	err  error
	arch string
	// limit is the GLIBC limit of the check and what set it, for the
	// causes of --why's symbols.
	limit, source string
}

// wantSites reports whether the file's uses of its symbols are looked
// for: only when asked (Options.Sites), and then only for a file with a
// violation, or under --why. A clean gate reads no code.
func wantSites(opt Options, viol []Violation, why bool) bool {
	if !opt.Sites {
		return false
	}
	if why {
		return true
	}
	for _, v := range viol {
		if len(v.Symbols) > 0 {
			return true
		}
	}
	return false
}

// locate finds the sites in f of every symbol behind viol and, with why,
// behind rep's floors. diskPath is where f lies on disk ("" for an
// artefact's member), for its .gnu_debuglink.
func locate(f *elfx.File, diskPath string, rep FileReport, viol []Violation, why bool, opt Options) *located {
	seen := map[string]bool{}
	var want []string
	add := func(refs []Ref) {
		for _, r := range refs {
			if k := r.String(); !seen[k] {
				seen[k] = true
				want = append(want, k)
			}
		}
	}
	for _, v := range viol {
		add(v.Symbols)
	}
	if why {
		for _, refs := range rep.Why {
			add(refs)
		}
	}
	l := &located{arch: rep.Arch}
	l.limit, _ = opt.Limits.Lookup("GLIBC")
	l.source = lookupFold(opt.sources, "GLIBC")
	if len(want) == 0 {
		return l
	}
	l.res, l.err = sites.Find(f, want, sites.Options{Path: diskPath, DebugDirs: opt.DebugDirs})
	return l
}

// attach fills the attribution of each violation of it, and with why of
// its report, from what locate found; its notes join the file's.
func (l *located) attach(rep *FileReport, viol []Violation, why bool) {
	if l == nil {
		return
	}
	switch {
	case l.err != nil:
		rep.Notes = append(rep.Notes, "call sites not found: "+l.err.Error())
	case l.res != nil:
		for _, n := range l.res.Notes {
			rep.Notes = append(rep.Notes, "call sites: "+n)
		}
		if l.res.RelocOnly && len(l.res.Sites) > 0 {
			rep.Notes = append(rep.Notes, "call sites: the code of "+rep.Arch+" is not decoded: each site is a relocation, in the function or object that holds it")
		} else if !l.res.Lines && len(l.res.Sites) > 0 {
			rep.Notes = append(rep.Notes, "call sites: no DWARF line information in the file or a separate debug file (build with -g, or name a --debug-dir): sites name their functions only")
		}
	}
	for i := range viol {
		v := &viol[i]
		lim := limitOf(v.Target, v.Namespace, v.Allowed)
		v.Attribution = make([]Attribution, 0, len(v.Symbols))
		for _, s := range v.Symbols {
			v.Attribution = append(v.Attribution, l.attribution(s, lim))
		}
	}
	if why {
		lim := limitOf(l.source, "GLIBC", l.limit)
		if l.limit == "" {
			lim = cause.Limit{}
		}
		for _, ns := range sortedKeys(rep.Why) {
			for _, s := range rep.Why[ns] {
				rep.Attribution = append(rep.Attribution, l.attribution(s, lim))
			}
		}
		if rep.Attribution == nil {
			rep.Attribution = []Attribution{}
		}
	}
}

func sortedKeys(m map[string][]Ref) []string {
	names := make([]string, 0, len(m))
	for ns := range m {
		names = append(names, ns)
	}
	sortNamespaces(names)
	return names
}

// limitOf is the limit a fix names: the target that set it when it is
// one abifloor cc builds for, else the glibc release.
func limitOf(source, ns, allowed string) cause.Limit {
	if source != "" {
		if _, err := targets.Lookup(source); err == nil {
			return cause.Limit{Target: source}
		}
	}
	if ns == "GLIBC" {
		return cause.Limit{Glibc: allowed}
	}
	return cause.Limit{}
}

func (l *located) attribution(s Ref, lim cause.Limit) Attribution {
	a := Attribution{Symbol: s, Sites: []Site{}}
	if c, ok := cause.Of(s.String(), l.arch, lim); ok {
		a.Cause = &Cause{Class: c.Class, Reason: c.Why, Fix: c.Fix}
	}
	if l.res == nil {
		return a
	}
	for _, st := range l.res.For(s.String()) {
		site := Site{Function: st.Function, File: st.File, Line: st.Line, Address: "0x" + strconv.FormatUint(st.Address, 16), Kind: string(st.Kind)}
		for _, in := range st.Inlined {
			site.Inlined = append(site.Inlined, Inline{Function: in.Function, File: in.CallFile, Line: in.CallLine})
		}
		a.Sites = append(a.Sites, site)
	}
	return a
}

// SourceIn is where s lies under root, the first of its source line and
// the lines its inlined code was inlined at that does (a call inside a
// glibc header's inline wrapper lies at the user's line that called the
// wrapper): the path relative to root, and the line. A relative source
// path (built with -fdebug-prefix-map=DIR=.) is taken as relative to
// root. ok is false when none lies under root.
func (s Site) SourceIn(root string) (file string, line int, ok bool) {
	if f, ok := under(root, s.File); ok && s.Line > 0 {
		return f, s.Line, true
	}
	for _, in := range s.Inlined {
		if f, ok := under(root, in.File); ok && in.Line > 0 {
			return f, in.Line, true
		}
	}
	return "", 0, false
}

// under is p relative to root, when it lies under it.
func under(root, p string) (string, bool) {
	if p == "" || root == "" {
		return "", false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	rel, err := filepath.Rel(filepath.Clean(root), filepath.Clean(p))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// Text is the site for people: "function (file:line)", the file
// relative to root when under it, and the chain of inlined calls
// ("helper (util.h:3; inlined at app.c:10)"). Not cleaned.
func (s Site) Text(root string) string {
	fn := s.Function
	if fn == "" {
		fn = s.Address
	}
	var loc []string
	if s.File != "" {
		loc = append(loc, fmt.Sprintf("%s:%d", shown(root, s.File), s.Line))
	}
	for _, in := range s.Inlined {
		at := fmt.Sprintf("%s:%d", shown(root, in.File), in.Line)
		if in.Function != "" {
			loc = append(loc, in.Function+" inlined at "+at)
		} else {
			loc = append(loc, "inlined at "+at)
		}
	}
	if len(loc) == 0 {
		return fn
	}
	return fn + " (" + strings.Join(loc, "; ") + ")"
}

// shown is p relative to root when under it, else p.
func shown(root, p string) string {
	if r, ok := under(root, p); ok && filepath.IsAbs(p) {
		return r
	}
	return p
}

// broken reports whether rep breaks the libc claim read so far (a
// package's control comes before its files), so that the member's sites
// are found while it is open: the claim's violation is added after the
// walk.
func (c *claims) broken(artefactPath string, user []targets.Target, rep FileReport) bool {
	if c.control == "" || (rep.Floors["GLIBC"] == "" && rep.Floors["GLIBCXX"] == "" && rep.Floors["CXXABI"] == "" && rep.Floors["GCC"] == "") {
		return false
	}
	early := *c
	early.resolve(artefactPath, user)
	for _, v := range early.violations(rep) {
		if len(v.Symbols) > 0 {
			return true
		}
	}
	return false
}

// Text shows at most textSymbols symbols of a violation and textSites
// sites of each; -v shows all.
const (
	textSymbols = 8
	textSites   = 3
)

// writeAttribution writes, under a violation or a file's floors, each
// symbol's first sites as "function (file:line)" and its cause and fix.
func writeAttribution(w io.Writer, attrs []Attribution, opt TextOptions, root string) {
	for i, a := range attrs {
		if i == textSymbols && !opt.Verbose {
			fmt.Fprintf(w, "    and %s (-v lists them)\n", report.Plural(len(attrs)-i, "more symbol"))
			break
		}
		if len(a.Sites) == 0 && a.Cause == nil {
			continue
		}
		fmt.Fprintf(w, "    %s:\n", report.Clean(a.Symbol.String()))
		var shownSites []string
		seen := map[string]bool{}
		for _, s := range a.Sites {
			if t := s.Text(root); !seen[t] {
				seen[t] = true
				shownSites = append(shownSites, t)
			}
		}
		for j, t := range shownSites {
			if j == textSites && !opt.Verbose {
				fmt.Fprintf(w, "        and %s (-v lists them)\n", report.Plural(len(shownSites)-j, "more site"))
				break
			}
			fmt.Fprintf(w, "        %s\n", report.Clean(t))
		}
		if c := a.Cause; c != nil {
			fmt.Fprintf(w, "        why: %s; fix: %s\n", report.Clean(c.Reason), report.Clean(c.Fix))
		}
	}
}

// sourceLine is one line of source, under the source root, where a
// violation's symbol is used: what GitHub annotates and SARIF places.
type sourceLine struct {
	file  string
	line  int
	v     *Violation
	attr  *Attribution
	where []string // "main in bin/app", one per binary or function
}

// sourceLines are the lines under root where the violations' symbols
// are used, in violation order, one per file, line, rule and symbol
// (the line of a static library linked into five programs is one line,
// naming the five); whole[i] says that every symbol of vs[i] is used at
// some such line, so the violation needs no finding at the binary.
func sourceLines(vs []Violation, root string) (lines []*sourceLine, whole []bool) {
	whole = make([]bool, len(vs))
	if root == "" {
		return nil, whole
	}
	index := map[string]*sourceLine{}
	for i := range vs {
		v := &vs[i]
		whole[i] = len(v.Attribution) > 0 && len(v.Attribution) == len(v.Symbols)
		for j := range v.Attribution {
			a := &v.Attribution[j]
			found := false
			for _, s := range a.Sites {
				file, line, ok := s.SourceIn(root)
				if !ok {
					continue
				}
				found = true
				key := fmt.Sprintf("%s\x00%d\x00%s\x00%s\x00%s", file, line, v.Rule, v.Target, a.Symbol)
				sl := index[key]
				if sl == nil {
					sl = &sourceLine{file: file, line: line, v: v, attr: a}
					index[key] = sl
					lines = append(lines, sl)
				}
				fn := s.Function
				if fn == "" {
					fn = s.Address
				}
				if w := fn + " in " + v.Path; !slices.Contains(sl.where, w) {
					sl.where = append(sl.where, w)
				}
			}
			if !found {
				whole[i] = false
			}
		}
	}
	return lines, whole
}

// title is what the line's finding says: "arc4random@GLIBC_2.36 raises
// the glibc floor to 2.36 > debian-11's 2.31".
func (sl *sourceLine) title() string {
	v, sym := sl.v, sl.attr.Symbol
	if v.Namespace == "" || !symver.Valid(v.Required) || v.Allowed == "" {
		return sym.String() + ": " + v.Cause()
	}
	ver := v.Required
	if ns, sv, ok := symver.Split(sym.Version); ok && ns == v.Namespace {
		ver = sv
	}
	name := v.Namespace
	if name == "GLIBC" {
		name = "glibc"
	}
	lim := v.Allowed
	if v.Target != "" {
		if _, err := targets.Lookup(v.Target); err == nil {
			lim = v.Target + "'s " + v.Allowed
		} else {
			lim += " (" + v.Target + ")"
		}
	}
	return fmt.Sprintf("%s raises the %s floor to %s > %s", sym, name, ver, lim)
}

// body says where the use is and, when known, why and what lowers it.
func (sl *sourceLine) body() string {
	s := "used by " + strings.Join(sl.where[:min(len(sl.where), 10)], ", ")
	if len(sl.where) > 10 {
		s += fmt.Sprintf(" and %d more", len(sl.where)-10)
	}
	if c := sl.attr.Cause; c != nil {
		s += "\nwhy: " + c.Reason + "\nfix: " + c.Fix
	}
	return s
}

// maxSourceAnnotations bounds the annotations at source lines: GitHub
// shows 10 errors a step and keeps 50 a job.
const maxSourceAnnotations = 50

// writeSourceAnnotations writes an annotation at each source line (at
// most maxSourceAnnotations), at level, and returns how many it left out.
func writeSourceAnnotations(w io.Writer, lines []*sourceLine, level string) int {
	for i, sl := range lines {
		if i == maxSourceAnnotations {
			return len(lines) - i
		}
		report.WriteAnnotation(w, report.Annotation{Level: level, File: sl.file, Line: sl.line, Title: sl.title(), Message: sl.body()})
	}
	return 0
}

// maxSourceResults bounds the SARIF results at source lines; code
// scanning takes 25,000 a run.
const maxSourceResults = 5000

// sourceResults are the SARIF results at the source lines.
func sourceResults(lines []*sourceLine) []report.SARIFResult {
	var out []report.SARIFResult
	for _, sl := range lines[:min(len(lines), maxSourceResults)] {
		out = append(out, report.SARIFResult{RuleID: report.CheckRuleID(sl.v.Rule), Message: sl.title() + "; " + sl.body(), URI: sl.v.Path, Source: sl.file, Line: sl.line})
	}
	return out
}

// notShown are the attributions of the file at path that none of its
// violations has already shown.
func notShown(attrs []Attribution, path string, vs []Violation) []Attribution {
	shownSyms := map[string]bool{}
	for _, v := range vs {
		if v.Path == path {
			for _, a := range v.Attribution {
				shownSyms[a.Symbol.String()] = true
			}
		}
	}
	var out []Attribution
	for _, a := range attrs {
		if !shownSyms[a.Symbol.String()] {
			out = append(out, a)
		}
	}
	return out
}
