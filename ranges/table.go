package ranges

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/symver"
)

// Table is a version→ABI range table. Its JSON form is documented in
// docs/ranges.md; the field names are a contract (DESIGN.md).
type Table struct {
	// Types are the type names or globs the ABIs were extracted for
	// (empty for ABIs read from files).
	Types []string `json:"types"`
	// Options are the header options the table was built with, so that
	// "ranges add" can extract one more version the same way.
	Options *Options `json:"options,omitempty"`
	Ranges  []Range  `json:"ranges"`
	// ABIs holds one ABI per distinct fingerprint, so changes can be
	// recomputed when a version is added. Optional.
	ABIs map[string]*abi.ABI `json:"abis,omitempty"`
	// Failed are versions that could not be built. Their ABI is unknown,
	// so no lookup infers anything across them.
	Failed []string `json:"failed"`

	flat []observedVersion // every version in order, for Lookup
}

// Range is a maximal run of consecutive versions with one ABI.
type Range struct {
	First       string   `json:"first"`
	Last        string   `json:"last"`
	Versions    []string `json:"versions"` // every observed member, in order
	Fingerprint string   `json:"fingerprint"`
	// SameAs is the index of an earlier, non-adjacent range with the same
	// ABI (a change that was reverted); nil when there is none.
	SameAs *int `json:"same_as,omitempty"`
	// Changes are the differences from the previous range's ABI.
	Changes []Change `json:"changes"`
}

// Change is one difference between the ABIs of two neighbouring ranges.
type Change struct {
	// Kind is abidiff's kind of change: size, offset, member-added, ...
	Kind string `json:"kind,omitempty"`
	// Type is the named type ("struct foo"), or "symbol", "constant" or
	// "version" for changes that are not to a type.
	Type string `json:"type"`
	// Path is the member path and the attribute that changed ("size",
	// "hObjectNew.offset"), or the name of what was added or removed.
	Path string `json:"path"`
	Old  string `json:"old,omitempty"` // empty when added
	New  string `json:"new,omitempty"` // empty when removed
	// Note qualifies a compatible change ("typedef names only").
	Note       string `json:"note,omitempty"`
	Compatible bool   `json:"compatible"` // false when an old binary could notice
	Text       string `json:"text,omitempty"`
}

// Version is one observed version and its ABI. Fingerprint may be left
// empty when ABI is set; ABI may be nil when Fingerprint is set (then the
// table has no changes for that range).
type Version struct {
	Name        string
	Fingerprint string
	ABI         *abi.ABI
}

// New builds the table of the versions, in any order. Versions must be
// valid (symver.Check) and distinct (535.104.5 and 535.104.05 are the same).
func New(types []string, vs []Version) (*Table, error) {
	t := &Table{Types: types, Ranges: []Range{}, Failed: []string{}}
	if t.Types == nil {
		t.Types = []string{}
	}
	if err := t.rebuild(vs); err != nil {
		return nil, err
	}
	return t, nil
}

// observed lists every version of the table with its fingerprint and ABI.
func (t *Table) observed() []Version {
	var vs []Version
	for _, r := range t.Ranges {
		for _, v := range r.Versions {
			vs = append(vs, Version{Name: v, Fingerprint: r.Fingerprint, ABI: t.ABIs[r.Fingerprint]})
		}
	}
	return vs
}

// rebuild recomputes the ranges, same_as marks and changes.
func (t *Table) rebuild(vs []Version) error {
	vs = append([]Version(nil), vs...)
	for i := range vs {
		if err := symver.Check(vs[i].Name); err != nil {
			return err
		}
		if vs[i].Fingerprint == "" {
			if vs[i].ABI == nil {
				return fmt.Errorf("version %s: no ABI and no fingerprint", vs[i].Name)
			}
			vs[i].Fingerprint = vs[i].ABI.Fingerprint()
		}
	}
	sort.SliceStable(vs, func(i, j int) bool { return symver.Compare(vs[i].Name, vs[j].Name) < 0 })
	for i := 1; i < len(vs); i++ {
		if symver.Compare(vs[i-1].Name, vs[i].Name) == 0 {
			if vs[i-1].Name == vs[i].Name {
				return fmt.Errorf("version %s: given twice", vs[i].Name)
			}
			return fmt.Errorf("versions %s and %s: the same version written twice", vs[i-1].Name, vs[i].Name)
		}
	}
	abis := map[string]*abi.ABI{}
	for _, v := range vs {
		if v.ABI != nil {
			abis[v.Fingerprint] = v.ABI
		}
	}
	var out []Range
	for _, v := range vs {
		if n := len(out); n > 0 && out[n-1].Fingerprint == v.Fingerprint {
			out[n-1].Versions = append(out[n-1].Versions, v.Name)
			out[n-1].Last = v.Name
			continue
		}
		out = append(out, Range{First: v.Name, Last: v.Name, Versions: []string{v.Name}, Fingerprint: v.Fingerprint, Changes: []Change{}})
	}
	first := map[string]int{}
	for i := range out {
		if j, ok := first[out[i].Fingerprint]; ok {
			j := j
			out[i].SameAs = &j
		} else {
			first[out[i].Fingerprint] = i
		}
		if i > 0 {
			if o, n := abis[out[i-1].Fingerprint], abis[out[i].Fingerprint]; o != nil && n != nil {
				out[i].Changes = changesBetween(o, n)
			}
		}
	}
	if out == nil {
		out = []Range{}
	}
	t.Ranges = out
	// A version that is built now has not failed.
	failed := []string{}
	for _, f := range t.Failed {
		j := sort.Search(len(vs), func(j int) bool { return symver.Compare(vs[j].Name, f) >= 0 })
		if j == len(vs) || symver.Compare(vs[j].Name, f) != 0 {
			failed = append(failed, f)
		}
	}
	t.Failed = failed
	t.flat = flatten(out, failed)
	if len(abis) == 0 {
		t.ABIs = nil
	} else {
		t.ABIs = abis
	}
	return nil
}

// Add adds one observed version, splitting the range it falls in when its
// ABI differs, and recomputes the marks and changes that depend on it.
func (t *Table) Add(v Version) error {
	vs := t.observed()
	for _, o := range vs {
		if symver.Compare(o.Name, v.Name) == 0 {
			return fmt.Errorf("version %s: already in the table (as %s)", v.Name, o.Name)
		}
	}
	return t.rebuild(append(vs, v))
}

// Answer is the result of a lookup.
type Answer struct {
	Version string `json:"version"`
	Covered bool   `json:"covered"`
	// Observed is true when the version itself was built; a covered
	// version that was not is inferred from the range around it.
	Observed bool `json:"observed"`
	// Range is the index of the covering range, -1 when not covered.
	Range int `json:"range"`
	// Before and After are the neighbouring ranges of a version that is
	// not covered (-1 when there is none on that side).
	Before int `json:"before"`
	After  int `json:"after"`
	// Failed is a version next to v that could not be built, when that is
	// why v is not covered.
	Failed string `json:"failed,omitempty"`
	// Prev and Next are the nearest observed versions on each side of a
	// version that is not covered.
	Prev string `json:"prev,omitempty"`
	Next string `json:"next,omitempty"`
}

// Lookup says which range covers version v: one binary search over every
// observed version, O(log n).
func (t *Table) Lookup(v string) (Answer, error) {
	if err := symver.Check(v); err != nil {
		return Answer{}, err
	}
	a := Answer{Version: v, Range: -1, Before: -1, After: -1}
	flat := t.index()
	j := sort.Search(len(flat), func(j int) bool { return symver.Compare(flat[j].v, v) >= 0 })
	exact := j < len(flat) && symver.Compare(flat[j].v, v) == 0
	switch {
	case exact && flat[j].r >= 0:
		a.Covered, a.Observed, a.Range = true, true, flat[j].r
		return a, nil
	case !exact && j > 0 && j < len(flat) && flat[j-1].r == flat[j].r && flat[j].r >= 0:
		a.Covered, a.Range = true, flat[j].r
		return a, nil
	}
	// Not covered: the nearest ranges on each side, and a failed version
	// next to v, if any, that explains the gap.
	for i := j - 1; i >= 0; i-- {
		if flat[i].r >= 0 {
			a.Before, a.Prev = flat[i].r, flat[i].v
			break
		}
		if a.Failed == "" {
			a.Failed = flat[i].v
		}
	}
	for i := j; i < len(flat); i++ {
		if flat[i].r >= 0 {
			a.After, a.Next = flat[i].r, flat[i].v
			break
		}
		if a.Failed == "" || exact && i == j {
			a.Failed = flat[i].v
		}
	}
	return a, nil
}

// observedVersion is one entry of the lookup index; r is its range, -1
// for a version that failed to build.
type observedVersion struct {
	v string
	r int
}

// index is the lookup index of t: flat, which New, ReadJSON, Add and
// MarkFailed keep in step with Ranges and Failed, or, for a table made by
// hand, the index computed now.
func (t *Table) index() []observedVersion {
	if len(t.flat) == 0 && len(t.Ranges)+len(t.Failed) > 0 {
		return flatten(t.Ranges, t.Failed)
	}
	return t.flat
}

func flatten(rs []Range, failed []string) []observedVersion {
	var flat []observedVersion
	for i, r := range rs {
		for _, v := range r.Versions {
			flat = append(flat, observedVersion{v, i})
		}
	}
	for _, f := range failed {
		flat = append(flat, observedVersion{f, -1})
	}
	sort.SliceStable(flat, func(i, j int) bool { return symver.Compare(flat[i].v, flat[j].v) < 0 })
	return flat
}

// MarkFailed records versions that could not be built: lookups infer
// nothing across them. A version already observed is an error.
func (t *Table) MarkFailed(versions ...string) error {
	flat := t.index()
	for _, f := range versions {
		if err := symver.Check(f); err != nil {
			return err
		}
		for _, o := range flat {
			if symver.Compare(o.v, f) == 0 {
				return fmt.Errorf("version %s: failed and in the table (as %s)", f, o.v)
			}
		}
		t.Failed = append(t.Failed, f)
	}
	symver.Sort(t.Failed)
	t.flat = flatten(t.Ranges, t.Failed)
	return nil
}

// Describe says the answer in a sentence that names the range or both
// neighbours.
func (t *Table) Describe(a Answer) string {
	span := func(i int) string {
		r := t.Ranges[i]
		if r.First == r.Last {
			return fmt.Sprintf("range %d (%s)", i, r.First)
		}
		return fmt.Sprintf("range %d (%s … %s)", i, r.First, r.Last)
	}
	near := func(v string, i int) string {
		if i < 0 {
			return "none"
		}
		return fmt.Sprintf("%s (range %d)", v, i)
	}
	switch {
	case !a.Covered && a.Failed == a.Version:
		return fmt.Sprintf("%s: not covered: this version could not be built; the observed versions around it are %s and %s",
			a.Version, near(a.Prev, a.Before), near(a.Next, a.After))
	case !a.Covered && a.Failed != "":
		return fmt.Sprintf("%s: not covered: between %s and %s lies %s, which could not be built",
			a.Version, near(a.Prev, a.Before), near(a.Next, a.After), a.Failed)
	case a.Covered && a.Observed:
		return fmt.Sprintf("%s: covered by %s, observed", a.Version, span(a.Range))
	case a.Covered:
		return fmt.Sprintf("%s: covered by %s, inferred: not built, between versions of one ABI", a.Version, span(a.Range))
	case a.Before >= 0 && a.After >= 0:
		return fmt.Sprintf("%s: not covered: in the gap between %s, last %s, and %s, first %s, whose ABIs differ",
			a.Version, span(a.Before), t.Ranges[a.Before].Last, span(a.After), t.Ranges[a.After].First)
	case a.After >= 0:
		return fmt.Sprintf("%s: not covered: before the first range, %s, first %s", a.Version, span(a.After), t.Ranges[a.After].First)
	case a.Before >= 0:
		return fmt.Sprintf("%s: not covered: after the last range, %s, last %s", a.Version, span(a.Before), t.Ranges[a.Before].Last)
	}
	return fmt.Sprintf("%s: not covered: the table is empty", a.Version)
}

// MaxTableSize bounds the JSON a table is read from.
const MaxTableSize = 256 << 20

// ReadJSON parses and checks a table: versions valid and in order, no
// version twice, first and last matching the versions, same_as pointing at
// an earlier range with the same fingerprint. name is used in errors.
func ReadJSON(name string, b []byte) (*Table, error) {
	if len(b) > MaxTableSize {
		return nil, fmt.Errorf("%s: table larger than %d bytes", name, MaxTableSize)
	}
	var t Table
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("%s: not a range table: %v", name, err)
	}
	if err := t.check(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return &t, nil
}

func (t *Table) check() error {
	if t.Ranges == nil {
		return fmt.Errorf("no \"ranges\"")
	}
	if t.Types == nil {
		t.Types = []string{}
	}
	prev := ""
	for i := range t.Ranges {
		r := &t.Ranges[i]
		if len(r.Versions) == 0 {
			return fmt.Errorf("range %d: no versions", i)
		}
		if r.Fingerprint == "" {
			return fmt.Errorf("range %d: no fingerprint", i)
		}
		if r.Changes == nil {
			r.Changes = []Change{}
		}
		for _, v := range r.Versions {
			if err := symver.Check(v); err != nil {
				return fmt.Errorf("range %d: %v", i, err)
			}
			if prev != "" && symver.Compare(prev, v) >= 0 {
				return fmt.Errorf("range %d: version %s does not come after %s", i, v, prev)
			}
			prev = v
		}
		if r.First != r.Versions[0] || r.Last != r.Versions[len(r.Versions)-1] {
			return fmt.Errorf("range %d: first/last %s/%s do not match its versions", i, r.First, r.Last)
		}
		if i > 0 && t.Ranges[i-1].Fingerprint == r.Fingerprint {
			return fmt.Errorf("range %d: same fingerprint as the range before it", i)
		}
		if r.SameAs != nil {
			j := *r.SameAs
			if j < 0 || j >= i-1 || t.Ranges[j].Fingerprint != r.Fingerprint {
				return fmt.Errorf("range %d: same_as %d is not an earlier range with the same fingerprint", i, j)
			}
		}
	}
	if t.Failed == nil {
		t.Failed = []string{}
	}
	for i, f := range t.Failed {
		if err := symver.Check(f); err != nil {
			return fmt.Errorf("failed: %v", err)
		}
		if i > 0 && symver.Compare(t.Failed[i-1], f) >= 0 {
			return fmt.Errorf("failed: version %s does not come after %s", f, t.Failed[i-1])
		}
	}
	t.flat = flatten(t.Ranges, t.Failed)
	for i := 1; i < len(t.flat); i++ {
		if symver.Compare(t.flat[i-1].v, t.flat[i].v) == 0 {
			return fmt.Errorf("failed: version %s is also in a range", t.flat[i].v)
		}
	}
	for fp, a := range t.ABIs {
		if a == nil || a.Fingerprint() != fp {
			return fmt.Errorf("abis: the ABI stored under %s does not have that fingerprint", fp)
		}
	}
	return nil
}

// WriteJSON writes the table as indented JSON.
func (t *Table) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(t)
}
