package floor

import (
	"sort"
	"strings"

	"github.com/abifloor/abifloor/elfx"
	"github.com/abifloor/abifloor/internal/errjson"
	"github.com/abifloor/abifloor/targets"
)

// FitReport answers "which targets does it fit": for each file and for
// the whole tree per architecture, the oldest manylinux/musllinux tag and
// the oldest release of each distro family, with what blocks the next
// older one. Field names are part of the JSON contract (docs/json.md).
type FitReport struct {
	Files []FileFit `json:"files"`
	// Tree is one row per architecture and libc found.
	Tree  []TreeFit `json:"tree"`
	Stats Stats     `json:"stats"`
	// Incomplete is the scan's: set when it was cut short. The tree
	// then has no row: the files not reached could block any tag, so a
	// verdict over the files seen so far is no verdict.
	Incomplete bool `json:"incomplete,omitempty"`
	err        error
}

// Err is the scan's error when it was cut short (Result.Err), else nil.
func (fit *FitReport) Err() error { return fit.err }

// Verdict is OK when every file was read and the tree held an ELF file;
// Error when the scan was cut short, a file could not be read, or there
// was nothing to fit (abifloor fit exits 2).
func (fit *FitReport) Verdict() Verdict {
	if fit.Incomplete || fit.Stats.Errors > 0 || fit.Stats.ELF == 0 {
		return Error
	}
	return OK
}

// FileFit is what fits one file.
type FileFit struct {
	Path string `json:"path"`
	Arch string `json:"arch,omitempty"`
	Libc string `json:"libc,omitempty"`
	Fits
	// Error is why the file could not be read (FileReport.Error); the
	// JSON has its ErrorMessage under "error".
	Error error `json:"-"`
}

// ErrorMessage is the text of Error without the path the report shows
// beside it; "" when the file was read.
func (f FileFit) ErrorMessage() string { return elfx.Message(f.Path, f.Error) }

// MarshalJSON writes the fit with "error" as ErrorMessage, last, and
// absent when the file was read.
func (f FileFit) MarshalJSON() ([]byte, error) {
	type plain FileFit
	return errjson.Marshal(plain(f), f.ErrorMessage(), true)
}

// TreeFit is what fits every file of one architecture (and libc).
type TreeFit struct {
	Arch  string `json:"arch"`
	Libc  string `json:"libc,omitempty"`
	Files int    `json:"files"`
	Fits
}

// Fits is the oldest policy tag and distro releases something fits.
type Fits struct {
	// Policy is the oldest manylinux or musllinux tag (omitted when none
	// fits); Blocked is what breaks the next older tag (or, when none
	// fits, the newest).
	Policy  string   `json:"policy,omitempty"`
	Blocked *Blocked `json:"blocked,omitempty"`
	// Distros has one entry per distro family, in table order.
	Distros []DistroFit `json:"distros"`
}

// DistroFit is the oldest release of a family that something loads on.
type DistroFit struct {
	Family  string   `json:"family"`
	Oldest  string   `json:"oldest,omitempty"`
	Blocked *Blocked `json:"blocked,omitempty"`
	// Assumes says what the fit of Oldest rests on when that release
	// does not limit a namespace the files need (SLES updates libstdc++6
	// to the newest GCC's runtime): the fit holds on an updated system.
	Assumes string `json:"assumes,omitempty"`
}

// Blocked is a target and the violations that keep it from fitting.
type Blocked struct {
	Target     string      `json:"target"`
	Violations []Violation `json:"violations"`
}

// FitTargets are the targets Fit answers for: every policy and distro
// of the table. Scan with them and EachTarget set, then call Fit.
func FitTargets() []targets.Target {
	var out []targets.Target
	for _, t := range targets.All() {
		if t.IsPolicy() || t.Kind == targets.Distro {
			out = append(out, t)
		}
	}
	return out
}

// Fit reads the result of a Scan with FitTargets (and EachTarget) and
// says what fits each file and each architecture of the tree.
func Fit(res *Result, ts []targets.Target) *FitReport {
	type key struct{ path, target string }
	byFile := map[key][]Violation{}
	for _, v := range res.Violations {
		k := key{v.Path, v.Target}
		byFile[k] = append(byFile[k], v)
	}
	out := &FitReport{Files: make([]FileFit, 0, len(res.Files)), Tree: []TreeFit{}, Stats: res.Stats, Incomplete: res.Incomplete, err: res.Err}
	type archKey struct{ arch, libc string }
	var order []archKey
	groups := map[archKey][]FileReport{}
	for _, f := range res.Files {
		ff := FileFit{Path: f.Path, Arch: f.Arch, Libc: f.Libc, Fits: Fits{Distros: []DistroFit{}}}
		if f.Error != nil || f.Floors == nil {
			ff.Error = f.Error
			out.Files = append(out.Files, ff)
			continue
		}
		ff.Fits = fits(ts, f.Arch, f.Libc, f.Floors, func(t string) []Violation { return byFile[key{f.Path, t}] })
		out.Files = append(out.Files, ff)
		k := archKey{f.Arch, f.Libc}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], f)
	}
	for _, k := range order {
		files := groups[k]
		tf := TreeFit{Arch: k.arch, Libc: k.libc, Files: len(files)}
		floors := map[string]string{}
		for _, f := range files {
			merge(floors, f.Floors)
		}
		tf.Fits = fits(ts, k.arch, k.libc, floors, func(t string) []Violation {
			var vs []Violation
			for _, f := range files {
				vs = append(vs, byFile[key{f.Path, t}]...)
			}
			return vs
		})
		out.Tree = append(out.Tree, tf)
	}
	if out.Incomplete {
		out.Tree = []TreeFit{}
	}
	return out
}

// fits finds, among the targets for arch and libc, the oldest policy tag
// and distro release with no violations.
func fits(ts []targets.Target, arch, libc string, floors map[string]string, viol func(target string) []Violation) Fits {
	var policies []targets.Target
	families := map[string][]targets.Target{}
	var famOrder []string
	for _, t := range ts {
		if libc != "" && t.Libc != "" && t.Libc != libc {
			continue
		}
		switch {
		case t.IsPolicy():
			// A file that needs no libc (static) loads on either; the
			// answer is given in manylinux tags, one family in order.
			if libc == "" && t.Kind == targets.Musllinux {
				continue
			}
			if t.Covers(arch) {
				policies = append(policies, t)
			}
		case t.Kind == targets.Distro:
			if _, ok := families[t.Family]; !ok {
				famOrder = append(famOrder, t.Family)
			}
			families[t.Family] = append(families[t.Family], t)
		}
	}
	// Oldest first: auditwheel's priority, higher is older.
	sort.SliceStable(policies, func(i, j int) bool { return policies[i].Priority > policies[j].Priority })
	var out Fits
	out.Policy, out.Blocked = oldest(policies, viol)
	out.Distros = make([]DistroFit, 0, len(famOrder))
	for _, fam := range famOrder {
		d := DistroFit{Family: fam}
		d.Oldest, d.Blocked = oldest(families[fam], viol)
		d.Assumes = assumes(families[fam], d.Oldest, floors)
		out.Distros = append(out.Distros, d)
	}
	return out
}

// oldest returns the first of ts (oldest first) with no violations, and
// the violations of the one before it; when none fits, those of the
// newest.
func oldest(ts []targets.Target, viol func(string) []Violation) (string, *Blocked) {
	for i, t := range ts {
		if len(viol(t.Name)) > 0 {
			continue
		}
		if i == 0 {
			return t.Name, nil
		}
		prev := ts[i-1].Name
		return t.Name, &Blocked{Target: prev, Violations: viol(prev)}
	}
	if len(ts) == 0 {
		return "", nil
	}
	last := ts[len(ts)-1].Name
	return "", &Blocked{Target: last, Violations: viol(last)}
}

// assumes is what the fit of release name rests on: the C++ runtime
// namespaces the files need that the release does not limit ("-" in
// the target table), which only an updated system provides.
func assumes(ts []targets.Target, name string, floors map[string]string) string {
	for _, t := range ts {
		if t.Name != name {
			continue
		}
		var unlimited []string
		for _, ns := range []string{"GLIBCXX", "CXXABI", "GCC"} {
			if v := floors[ns]; v != "" && t.Limits[ns] == "" {
				unlimited = append(unlimited, ns+" "+v)
			}
		}
		if len(unlimited) == 0 {
			return ""
		}
		return name + " does not limit the C++ runtime: the files need " + strings.Join(unlimited, ", ") + ", there on an updated system only"
	}
	return ""
}
