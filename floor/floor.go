package floor

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/errjson"
	"github.com/abifloor/abifloor/internal/input"
	"github.com/abifloor/abifloor/symver"
	"github.com/abifloor/abifloor/targets"
)

// FileReport is what Scan says about one file. Field names are part of
// the JSON contract (docs/json.md).
type FileReport struct {
	Path   string    `json:"path"`
	Arch   string    `json:"arch,omitempty"`
	Kind   elfx.Kind `json:"kind,omitempty"`
	Soname string    `json:"soname,omitempty"`
	// Libc is the C library the file is linked against: "glibc", "musl",
	// or omitted (static, or none needed).
	Libc string `json:"libc,omitempty"`
	// Needed is DT_NEEDED, in load order.
	Needed []string `json:"needed"`
	// Rpath and Runpath are DT_RPATH and DT_RUNPATH as written: where
	// the loader looks for Needed besides the system's directories.
	Rpath   string `json:"rpath,omitempty"`
	Runpath string `json:"runpath,omitempty"`
	// Floors maps a namespace to the highest version required; nil when
	// the file could not be read.
	Floors map[string]string `json:"floors"`
	// Needs lists, per library, every version name required, numeric
	// and not, in ascending order.
	Needs []Need `json:"needs"`
	// Notes explain floors that do not come straight from a version
	// name (GLIBC_ABI_DT_RELR raises GLIBC to 2.36).
	Notes []string `json:"notes"`
	// Why maps a namespace to the symbols that require its floor; only
	// filled when asked for.
	Why map[string][]Ref `json:"why,omitempty"`
	// Attribution is, with --why and Options.Sites, where the file uses
	// each symbol of Why and why it needs its version (sites.go).
	Attribution []Attribution `json:"attribution,omitempty"`
	// Error is why the file could not be read (nil when it was). It
	// unwraps to an *os.PathError or an *elfx.FormatError; the JSON
	// carries ErrorMessage.
	Error error `json:"-"`
	// defines are the version names a shared library defines: what a
	// copy the tree ships provides to the files that reach it.
	defines []string
}

// ErrorMessage is the text of Error without the path the report shows
// beside it ("" when there is no error).
func (r FileReport) ErrorMessage() string { return elfx.Message(r.Path, r.Error) }

// MarshalJSON writes the report with "error" as ErrorMessage, so the JSON
// names the file once, in "path" (docs/json.md). As everywhere, arrays
// are present ([] when empty) and absent scalars omitted: a file read
// whole has no "error", one that could not be read only "path" and
// "error".
func (r FileReport) MarshalJSON() ([]byte, error) {
	if r.Floors == nil && r.Error != nil {
		return errjson.Marshal(struct {
			Path string `json:"path"`
		}{r.Path}, r.ErrorMessage(), true)
	}
	type plain FileReport
	if r.Needed == nil {
		r.Needed = []string{}
	}
	if r.Needs == nil {
		r.Needs = []Need{}
	}
	if r.Notes == nil {
		r.Notes = []string{}
	}
	return errjson.Marshal(plain(r), r.ErrorMessage(), true)
}

// Need is the set of versions required from one library.
type Need struct {
	Library  string   `json:"library"`
	Versions []string `json:"versions"`
}

// Violation is a floor above a limit, or a broken rule of a policy
// target (Rule, policy.go). Namespace, Required and Allowed are set for
// version rules; Library for library rules.
type Violation struct {
	Path      string `json:"path"`
	Namespace string `json:"namespace,omitempty"`
	Required  string `json:"required,omitempty"`
	Allowed   string `json:"allowed,omitempty"`
	// Symbols are the references that break the rule; never nil in JSON.
	Symbols []Ref `json:"symbols"`
	// Rule is "" for a namespace limit (--max, a distro), else one of the
	// Rule constants.
	Rule string `json:"rule,omitempty"`
	// Target names what set the limit: a target, or "--max".
	Target  string `json:"target,omitempty"`
	Library string `json:"library,omitempty"`
	// Shipped, for lib_whitelist, are the paths where the tree ships
	// Library on none of the paths the loader searches for this file.
	Shipped []string `json:"shipped,omitempty"`
	// Attribution is, per symbol, where the file uses it and why it
	// needs its version (Options.Sites; sites.go); never nil in JSON.
	Attribution []Attribution `json:"attribution"`
}

// FileOptions say what Analyze reads besides the version tables.
type FileOptions struct {
	// Why names the symbols behind every floor (reads the symbol table).
	Why bool
	// Limits, when set, make Analyze return the floors above them as
	// violations, each naming its symbols.
	Limits Limits
	// Targets are held to their libc, and policies (manylinux,
	// musllinux) to their rules (policy.go).
	Targets []targets.Target
	// EachTarget checks every target's limits separately (fit). Without
	// it a distro target's limits are folded into Limits (the lowest
	// wins) and its violations name it.
	EachTarget bool
	// Sources name what set each limit of Limits (a namespace, matched
	// case-insensitively, to Violation.Target).
	Sources map[string]string
	// Claimed are the targets an artefact claims (a wheel's tags): held
	// to their own libc apart from Targets, so the user's targets and the
	// artefact's both apply.
	Claimed []targets.Target
	folded  bool // Limits and Sources already hold the distro targets
}

// fold returns opt with its distro targets' limits in Limits.
func (opt FileOptions) fold() FileOptions {
	if opt.folded || opt.EachTarget {
		return opt
	}
	rq := Requirements{Targets: opt.Targets}
	for ns, v := range opt.Limits {
		rq.Limits = append(rq.Limits, Limit{ns, v, lookupFold(opt.Sources, ns)})
	}
	l, src := rq.effective()
	if len(l) > 0 || opt.Limits != nil {
		opt.Limits, opt.Sources = l, src
	}
	opt.folded = true
	return opt
}

// lookupFold finds ns in m, case-insensitively.
func lookupFold(m map[string]string, ns string) string {
	v, _ := Limits(m).Lookup(ns)
	return v
}

// Analyze computes the floors of f, the file at path, and what opt asks
// for besides.
func Analyze(f *elfx.File, path string, opt FileOptions) (r FileReport, viol []Violation) {
	opt = opt.fold()
	why, limits := opt.Why, opt.Limits
	r = FileReport{Path: path, Arch: f.Arch(), Kind: f.Kind(), Libc: LibcOf(f)}
	if f.Dynamic != nil {
		r.Soname, r.Needed = f.Dynamic.Soname, f.Dynamic.Needed
		r.Rpath, r.Runpath = f.Dynamic.Rpath, f.Dynamic.Runpath
	}
	needs, err := f.VersionNeeds()
	if err != nil {
		r.Error = &input.FileError{Path: path, Err: err}
		return r, nil
	}
	if r.Kind == elfx.SharedLibrary {
		// A malformed table defines nothing: no need is met by it.
		defs, _ := f.VersionDefs()
		for _, d := range defs {
			if d.Flags&1 == 0 {
				r.defines = append(r.defines, d.Name)
			}
		}
	}
	r.Floors = map[string]string{}
	r.Needs = make([]Need, 0, len(needs))
	// Floors implied by something other than a symbol version (a marker
	// version name, or DT_RELR itself) are explained by that name.
	var implied []implication
	for _, n := range needs {
		need := Need{Library: n.File, Versions: make([]string, 0, len(n.Versions))}
		for _, v := range n.Versions {
			need.Versions = append(need.Versions, v.Name)
			if ns, ver, ok := symver.Split(v.Name); ok {
				raise(r.Floors, ns, ver)
			} else if symver.IsPrivate(v.Name) {
				r.Notes = append(r.Notes, "needs "+v.Name+" from "+n.File+": private interfaces change between builds, so this file loads only with the exact library it was built against")
			} else if m, ok := markers[v.Name]; ok && m.Namespace != "" {
				raise(r.Floors, m.Namespace, m.Version)
				implied = append(implied, implication{v.Name, m.Namespace, m.Version})
				r.Notes = append(r.Notes, v.Name+" raises "+m.Namespace+" to "+m.Version+": "+m.Why)
			}
		}
		sortVersions(need.Versions)
		r.Needs = append(r.Needs, need)
	}
	// DT_RELR is a floor wherever it appears: a glibc loader before 2.36
	// skips the tag, leaving every packed pointer unrelocated. The
	// linker adds the GLIBC_ABI_DT_RELR marker only to a file that needs
	// libc.so.6, so a plugin linked without libc carries none and an old
	// loader maps it without complaint. Not a floor where no older
	// loader applies the relocations: musl's loader (its DT_RELR support
	// is no glibc version), a static PIE (it relocates itself), and glibc
	// itself (libc.so.6 and ld.so, relocated by their own build).
	if f.Dynamic != nil && f.Dynamic.HasRelr && r.Libc != Musl && !r.Kind.Static() &&
		!hasImplied(implied, "GLIBC_ABI_DT_RELR") && !definesGlibc(f) {
		raise(r.Floors, "GLIBC", "2.36")
		implied = append(implied, implication{"DT_RELR", "GLIBC", "2.36"})
		why := "the loader of glibc before 2.36 ignores them, leaving pointers unrelocated: a crash at their first use"
		if !needsGlibc(r.Needed) {
			why = "the file needs no libc.so.6, so the linker could not add the marker; " + why
		}
		r.Notes = append(r.Notes, "DT_RELR relocations without a GLIBC_ABI_DT_RELR requirement: "+why)
	}
	explain := func(ns string, match func(string) bool) []Ref {
		var names []Ref
		for _, im := range implied {
			if im.ns == ns && match(im.ver) {
				names = append(names, Ref{Name: im.name})
			}
		}
		return names
	}

	for ns, ver := range r.Floors {
		if lim, ok := limits.Lookup(ns); ok && symver.Compare(ver, lim) > 0 {
			viol = append(viol, Violation{Path: path, Namespace: ns, Required: ver, Allowed: lim, Target: lookupFold(opt.Sources, ns)})
		}
	}
	// Whatever path returns below, the targets' rules are checked last.
	defer func() {
		viol = append(viol, checkTargets(f, &r, opt.Targets, opt.EachTarget)...)
		viol = append(viol, checkTargets(f, &r, opt.Claimed, false)...)
	}()
	// The loader of the limit's glibc release refuses more than versions
	// above it: its libc.so.6 lacks what the library merge of 2.34 moved
	// in, and its loader path may not be the file's interpreter.
	var lc *loaderCheck
	if lim, ok := limits.Lookup("GLIBC"); ok && r.Libc != Musl && symver.Valid(lim) {
		lc = &loaderCheck{release: lim, target: lookupFold(opt.Sources, "GLIBC")}
	}
	if !why && len(viol) == 0 && (lc == nil || !lc.needsSymbols(f, &r)) {
		if lc != nil {
			viol = append(viol, lc.check(f, &r, nil, "")...)
		}
		return r, viol
	}
	syms, err := f.Symbols()
	if err != nil {
		// The floors stand; only the explanation is missing.
		r.Error = &input.FileError{Path: path, Err: fmt.Errorf("reading symbols: %w", err)}
		return r, viol
	}
	if lc != nil {
		// After the limits' symbols are filled in below.
		defer func() {
			lim, _ := limits.Lookup("GLIBC")
			viol = append(viol, lc.check(f, &r, syms, lim)...)
		}()
	}
	if why {
		r.Why = map[string][]Ref{}
		for ns, ver := range r.Floors {
			match := func(v string) bool { return symver.Compare(v, ver) == 0 }
			r.Why[ns] = append(explain(ns, match), symbolsFor(syms, ns, match)...)
		}
	}
	for i := range viol {
		v := &viol[i]
		match := func(ver string) bool { return symver.Compare(ver, v.Allowed) > 0 }
		v.Symbols = append(explain(v.Namespace, match), symbolsFor(syms, v.Namespace, match)...)
		if v.Symbols == nil {
			v.Symbols = []Ref{}
		}
	}
	sort.Slice(viol, func(i, j int) bool { return viol[i].Namespace < viol[j].Namespace })
	return r, viol
}

type implication struct{ name, ns, ver string }

func hasImplied(im []implication, name string) bool {
	for _, i := range im {
		if i.name == name {
			return true
		}
	}
	return false
}

func raise(floors map[string]string, ns, ver string) bool {
	if cur, ok := floors[ns]; !ok || symver.Compare(ver, cur) > 0 {
		floors[ns] = ver
		return true
	}
	return false
}

// definesGlibc reports whether f defines GLIBC_ version nodes: it is a
// part of glibc, and its own release is what loads it.
func definesGlibc(f *elfx.File) bool {
	defs, err := f.VersionDefs()
	if err != nil {
		return false
	}
	for _, d := range defs {
		if ns, _, ok := symver.Split(d.Name); ok && ns == "GLIBC" {
			return true
		}
	}
	return false
}

func needsGlibc(needed []string) bool {
	for _, n := range needed {
		if n == "libc.so.6" {
			return true
		}
	}
	return false
}

// symbolsFor lists the references to versions of ns for which match is
// true, highest version first, then by name@VER.
func symbolsFor(syms []elfx.Symbol, ns string, match func(ver string) bool) []Ref {
	type ref struct {
		name, ver string
		ref       Ref
	}
	var refs []ref
	for _, s := range syms {
		if s.Library == "" || s.Version == "" {
			continue // definitions and unversioned references
		}
		sns, ver, ok := symver.Split(s.Version)
		if !ok || sns != ns || !match(ver) {
			continue
		}
		refs = append(refs, ref{s.String(), ver, refOf(s)})
	}
	sort.Slice(refs, func(i, j int) bool {
		if c := symver.Compare(refs[i].ver, refs[j].ver); c != 0 {
			return c > 0
		}
		return refs[i].name < refs[j].name
	})
	out := make([]Ref, 0, len(refs))
	for i, r := range refs {
		if i > 0 && r.name == refs[i-1].name {
			continue
		}
		out = append(out, r.ref)
	}
	return out
}

// sortVersions orders version names by namespace, then numerically;
// non-numeric names come last, alphabetically.
func sortVersions(vs []string) {
	// slices.SortFunc: sort.Slice's reflection cost a floor scan an
	// allocation per file. Equal versions spelled apart (2.2, 2.2.0)
	// fall back to their spelling, so the order never depends on the
	// file's.
	slices.SortFunc(vs, func(a, b string) int {
		na, va, oka := symver.Split(a)
		nb, vb, okb := symver.Split(b)
		switch {
		case oka != okb:
			if oka {
				return -1
			}
			return 1
		case !oka:
			return strings.Compare(a, b)
		case na != nb:
			return strings.Compare(na, nb)
		}
		if c := symver.Compare(va, vb); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
}

// merge raises the tree-wide floors dst to cover src.
func merge(dst, src map[string]string) {
	for ns, v := range src {
		raise(dst, ns, v)
	}
}
