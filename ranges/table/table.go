// Package table is a version→ABI range table as a program that only reads
// one needs it: the table, its JSON form (docs/ranges.md), a bounded read
// of a table file and lookup. It depends on the standard library and
// symver only, so a program such as gVisor's nvproxy can import it (or
// vendor the Go file "abifloor ranges show --format go" writes) without
// the compiler, DWARF and git machinery that builds tables (package
// ranges).
//
// A range is a maximal run of consecutive versions whose ABIs have the
// same fingerprint. A version between two observed members of one range
// is covered by it, inferred; a version in a gap between two different
// ranges, or outside all of them, is not, and the answer names the
// observed versions on both sides.
package table

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"syscall"

	"github.com/abifloor/abifloor/symver"
)

// Table is a version→ABI range table. Its JSON form is documented in
// docs/ranges.md; the field names are a contract (DESIGN.md).
type Table struct {
	// Types are the type names or globs the ABIs were extracted for
	// (empty for ABIs read from files).
	Types []string `json:"types"`
	// Options are the header options the table was built with, so that
	// "ranges add" can extract one more version the same way. They never
	// choose the program that runs: the compiler recorded here is only
	// compared with the one in use.
	Options *Options `json:"options,omitempty"`
	Ranges  []Range  `json:"ranges"`
	// ABIs holds one ABI (abi's canonical JSON) per distinct fingerprint,
	// so changes can be recomputed when a version is added. Optional; this
	// package keeps it as it was read.
	ABIs map[string]json.RawMessage `json:"abis,omitempty"`
	// Failed are versions that could not be built. Their ABI is unknown,
	// so no lookup infers anything across them.
	Failed []string `json:"failed"`
	// Incomplete is set on a table whose build was cut short.
	Incomplete bool `json:"incomplete,omitempty"`

	flat []observed // every version in order, for Lookup
}

// Options are the header options of a build. Includes are relative to the
// root of each version's tree; Headers are globs relative to the include
// directories, expanded per version.
type Options struct {
	Includes []string `json:"includes,omitempty"`
	Headers  []string `json:"headers"`
	Types    []string `json:"types"`
	// Opaque types count by size and alignment only.
	Opaque  []string `json:"opaque,omitempty"`
	Consts  []string `json:"consts,omitempty"`
	Defines []string `json:"defines,omitempty"` // NAME[=VALUE], passed as -D
	// Strict makes a type, constant or header absent at a version a
	// failure of that version instead of part of its ABI.
	Strict bool `json:"strict,omitempty"`
	// CC is the compiler the table was built with, recorded for the
	// record: a table never chooses the program to run.
	CC   string `json:"cc,omitempty"`
	Arch string `json:"arch,omitempty"`
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
	// Kind is abidiff's kind of change: size, offset, member-added,
	// type-added, ...
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

// Version is one observed version and the fingerprint of its ABI.
type Version struct {
	Name        string
	Fingerprint string
}

// Differ computes the changes between the ABIs of two fingerprints; it
// may return nil when it does not know them.
type Differ func(oldFP, newFP string) []Change

// New builds the table of the versions, in any order. Versions must be
// valid (symver.Check) and distinct (535.104.5 and 535.104.05 are the
// same). diff, when not nil, fills each range's changes.
func New(types []string, vs []Version, diff Differ) (*Table, error) {
	t := &Table{Types: types, Ranges: []Range{}, Failed: []string{}}
	if t.Types == nil {
		t.Types = []string{}
	}
	if err := t.Rebuild(vs, diff); err != nil {
		return nil, err
	}
	return t, nil
}

// Observed lists every observed version of the table with its
// fingerprint, in order.
func (t *Table) Observed() []Version {
	var vs []Version
	for _, r := range t.Ranges {
		for _, v := range r.Versions {
			vs = append(vs, Version{Name: v, Fingerprint: r.Fingerprint})
		}
	}
	return vs
}

// Rebuild recomputes the ranges, same_as marks and changes from vs.
// Changes between two fingerprints the table already had next to each
// other are kept; others come from diff (none when diff is nil).
func (t *Table) Rebuild(vs []Version, diff Differ) error {
	vs = append([]Version(nil), vs...)
	for i := range vs {
		if err := symver.Check(vs[i].Name); err != nil {
			return err
		}
		if vs[i].Fingerprint == "" {
			return fmt.Errorf("version %s: no fingerprint", vs[i].Name)
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
	known := map[[2]string][]Change{}
	for i := 1; i < len(t.Ranges); i++ {
		known[[2]string{t.Ranges[i-1].Fingerprint, t.Ranges[i].Fingerprint}] = t.Ranges[i].Changes
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
			pair := [2]string{out[i-1].Fingerprint, out[i].Fingerprint}
			if c, ok := known[pair]; ok && c != nil {
				out[i].Changes = c
			} else if diff != nil {
				if c := diff(pair[0], pair[1]); c != nil {
					out[i].Changes = c
				}
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
	return nil
}

// Add adds one observed version, splitting the range it falls in when its
// fingerprint differs; diff fills the changes of new neighbours.
func (t *Table) Add(v Version, diff Differ) error {
	vs := t.Observed()
	for _, o := range vs {
		if symver.Compare(o.Name, v.Name) == 0 {
			return fmt.Errorf("version %s: already in the table (as %s)", v.Name, o.Name)
		}
	}
	return t.Rebuild(append(vs, v), diff)
}

// Neighbour is the nearest observed version on one side of a version no
// range covers, and the index of its range.
type Neighbour struct {
	Version string `json:"version"`
	Index   int    `json:"range"`
}

// Answer is the result of a lookup.
type Answer struct {
	Version string `json:"version"`
	Covered bool   `json:"covered"`
	// Observed is true when the version itself was built.
	Observed bool `json:"observed"`
	// Inferred is true for a covered version that was not built: it lies
	// between Lower and Upper, two observed members of its range.
	Inferred bool   `json:"inferred"`
	Lower    string `json:"lower,omitempty"`
	Upper    string `json:"upper,omitempty"`
	// Range is the covering range (nil when not covered) and Index its
	// position in the table.
	Range *Range `json:"covered_by,omitempty"`
	Index int    `json:"range"`
	// Before and After are the nearest observed versions on each side of
	// a version that is not covered (nil when there is none on that side).
	Before *Neighbour `json:"before,omitempty"`
	After  *Neighbour `json:"after,omitempty"`
	// Failed is a version next to v that could not be built, when that is
	// why v is not covered.
	Failed string `json:"failed,omitempty"`
	// Message says the answer in a sentence (Describe).
	Message string `json:"message"`
}

// Lookup says which range covers version v: one binary search over every
// observed version, O(log n). An invalid version is the only error; a
// version no range covers is an answer with Covered false.
func (t *Table) Lookup(v string) (Answer, error) {
	a, err := t.lookup(v)
	if err == nil {
		a.Message = t.Describe(a)
	}
	return a, err
}

func (t *Table) lookup(v string) (Answer, error) {
	if err := symver.Check(v); err != nil {
		return Answer{}, err
	}
	a := Answer{Version: v}
	flat := t.index()
	j := sort.Search(len(flat), func(j int) bool { return symver.Compare(flat[j].v, v) >= 0 })
	exact := j < len(flat) && symver.Compare(flat[j].v, v) == 0
	switch {
	case exact && flat[j].r >= 0:
		a.Covered, a.Observed, a.Index = true, true, flat[j].r
		a.Range = &t.Ranges[a.Index]
		return a, nil
	case !exact && j > 0 && j < len(flat) && flat[j-1].r == flat[j].r && flat[j].r >= 0:
		a.Covered, a.Inferred, a.Index = true, true, flat[j].r
		a.Lower, a.Upper = flat[j-1].v, flat[j].v
		a.Range = &t.Ranges[a.Index]
		return a, nil
	}
	for i := j - 1; i >= 0; i-- {
		if flat[i].r >= 0 {
			a.Before = &Neighbour{flat[i].v, flat[i].r}
			break
		}
		if a.Failed == "" {
			a.Failed = flat[i].v
		}
	}
	for i := j; i < len(flat); i++ {
		if flat[i].r >= 0 {
			a.After = &Neighbour{flat[i].v, flat[i].r}
			break
		}
		if a.Failed == "" || exact && i == j {
			a.Failed = flat[i].v
		}
	}
	return a, nil
}

// observed is one entry of the lookup index; r is its range, -1 for a
// version that failed to build.
type observed struct {
	v string
	r int
}

// index is the lookup index of t, or, for a table made by hand, the index
// computed now.
func (t *Table) index() []observed {
	if len(t.flat) == 0 && len(t.Ranges)+len(t.Failed) > 0 {
		return flatten(t.Ranges, t.Failed)
	}
	return t.flat
}

func flatten(rs []Range, failed []string) []observed {
	var flat []observed
	for i, r := range rs {
		for _, v := range r.Versions {
			flat = append(flat, observed{v, i})
		}
	}
	for _, f := range failed {
		flat = append(flat, observed{f, -1})
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

// Describe says the answer in a sentence that names the range, or both
// neighbours.
func (t *Table) Describe(a Answer) string {
	span := func(i int) string {
		r := t.Ranges[i]
		if r.First == r.Last {
			return fmt.Sprintf("range %d (%s)", i, r.First)
		}
		return fmt.Sprintf("range %d (%s … %s)", i, r.First, r.Last)
	}
	near := func(n *Neighbour) string {
		if n == nil {
			return "none"
		}
		return fmt.Sprintf("%s (range %d)", n.Version, n.Index)
	}
	switch {
	case !a.Covered && a.Failed != "" && a.Failed == a.Version:
		return fmt.Sprintf("%s: not covered: this version could not be built; the observed versions around it are %s and %s",
			a.Version, near(a.Before), near(a.After))
	case !a.Covered && a.Failed != "":
		return fmt.Sprintf("%s: not covered: between %s and %s lies %s, which could not be built",
			a.Version, near(a.Before), near(a.After), a.Failed)
	case a.Covered && a.Observed:
		return fmt.Sprintf("%s: covered by %s, observed", a.Version, span(a.Index))
	case a.Covered:
		return fmt.Sprintf("%s: covered by %s, inferred: not built, between %s and %s, versions of one ABI", a.Version, span(a.Index), a.Lower, a.Upper)
	case a.Before != nil && a.After != nil:
		return fmt.Sprintf("%s: not covered: in the gap between %s, last %s, and %s, first %s, whose ABIs differ",
			a.Version, span(a.Before.Index), a.Before.Version, span(a.After.Index), a.After.Version)
	case a.After != nil:
		return fmt.Sprintf("%s: not covered: before the first range, %s, first %s", a.Version, span(a.After.Index), a.After.Version)
	case a.Before != nil:
		return fmt.Sprintf("%s: not covered: after the last range, %s, last %s", a.Version, span(a.Before.Index), a.Before.Version)
	}
	return fmt.Sprintf("%s: not covered: the table is empty", a.Version)
}

// MaxSize bounds the JSON a table is read from.
const MaxSize = 256 << 20

// ErrTooLarge is wrapped when a table is larger than MaxSize.
var ErrTooLarge = errors.New("table larger than the limit")

// Read reads and checks the table in the file path: one open that refuses
// a FIFO, device or directory (O_NONBLOCK, then fstat), and a read bounded
// by MaxSize and by what the file holds.
func Read(path string) (*Table, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if fi.Size() > MaxSize {
		return nil, fmt.Errorf("%s: %w (%d bytes)", path, ErrTooLarge, MaxSize)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, &os.PathError{Op: "read", Path: path, Err: err}
	}
	return ReadJSON(path, b)
}

// ReadJSON parses and checks a table: versions valid and in order, no
// version twice, first and last matching the versions, same_as pointing at
// an earlier range with the same fingerprint. name is used in errors.
func ReadJSON(name string, b []byte) (*Table, error) {
	if len(b) > MaxSize {
		return nil, fmt.Errorf("%s: %w (%d bytes)", name, ErrTooLarge, MaxSize)
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
	return nil
}

// WriteJSON writes the table as indented JSON.
func (t *Table) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(t)
}

// String writes a change for people: "struct s: y.offset 4 -> 8",
// "struct t: added". A change of the whole type has no path, and then no
// second space either.
func (c Change) String() string {
	s := c.Type + ":"
	if c.Path != "" {
		s += " " + c.Path
	}
	switch {
	case c.Old != "" && c.New != "":
		return s + " " + c.Old + " -> " + c.New
	case hasSuffix(c.Kind, "-added") || c.New != "":
		if c.New == "" || c.Path == "" {
			return s + " added"
		}
		return s + " added (" + c.New + ")"
	case hasSuffix(c.Kind, "-removed") || c.Old != "":
		return s + " removed"
	}
	return s
}

func hasSuffix(s, suf string) bool { return len(s) >= len(suf) && s[len(s)-len(suf):] == suf }

// MarshalJSON writes the answer in the shape docs/ranges.md documents:
// range, before and after as indexes (-1 for none), prev and next the
// neighbouring observed versions, covered_by the range itself.
func (a Answer) MarshalJSON() ([]byte, error) {
	type out struct {
		Version  string `json:"version"`
		Covered  bool   `json:"covered"`
		Observed bool   `json:"observed"`
		Inferred bool   `json:"inferred"`
		Lower    string `json:"lower,omitempty"`
		Upper    string `json:"upper,omitempty"`
		Range    int    `json:"range"`
		Before   int    `json:"before"`
		After    int    `json:"after"`
		Failed   string `json:"failed,omitempty"`
		Prev     string `json:"prev,omitempty"`
		Next     string `json:"next,omitempty"`
		Message  string `json:"message"`
		By       *Range `json:"covered_by,omitempty"`
	}
	o := out{Version: a.Version, Covered: a.Covered, Observed: a.Observed, Inferred: a.Inferred, Lower: a.Lower, Upper: a.Upper,
		Range: -1, Before: -1, After: -1, Failed: a.Failed, Message: a.Message, By: a.Range}
	if a.Range != nil {
		o.Range = a.Index
	}
	if a.Before != nil {
		o.Before, o.Prev = a.Before.Index, a.Before.Version
	}
	if a.After != nil {
		o.After, o.Next = a.After.Index, a.After.Version
	}
	return json.Marshal(o)
}
