// Package targets is the embedded table of named places a binary must
// load: distro releases, manylinux policies and compiler runtimes, each
// with the highest version of every symbol-version namespace it provides.
//
// The table is data (targets.json, each row's source noted there), read
// once; every function returns copies, so a caller may change what it gets.
package targets

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// Target is a named place a binary must load: a distro release, a
// manylinux policy or a compiler's runtime. Limits maps a namespace to the
// highest version the target provides.
type Target struct {
	Name    string            `json:"name"`
	Aliases []string          `json:"aliases,omitempty"`
	Kind    string            `json:"kind"`
	Limits  map[string]string `json:"limits"`
}

//go:embed targets.json
var targetsJSON []byte

var targetTable = func() []Target {
	var t struct{ Targets []Target }
	if err := json.Unmarshal(targetsJSON, &t); err != nil {
		panic("targets: embedded targets.json: " + err.Error())
	}
	return t.Targets
}()

// All returns a copy of the embedded target table, in table order.
func All() []Target {
	out := make([]Target, len(targetTable))
	for i, t := range targetTable {
		out[i] = t.clone()
	}
	return out
}

func (t Target) clone() Target {
	t.Aliases = slices.Clone(t.Aliases)
	t.Limits = maps.Clone(t.Limits)
	return t
}

// Lookup finds a target by name or alias (case-insensitive) and returns a
// copy. An unknown name yields an *UnknownError listing the closest names.
func Lookup(name string) (Target, error) {
	key := strings.ToLower(name)
	for _, t := range targetTable {
		if t.Name == key {
			return t.clone(), nil
		}
		for _, a := range t.Aliases {
			if a == key {
				return t.clone(), nil
			}
		}
	}
	return Target{}, &UnknownError{Name: name, Closest: closest(key, 3)}
}

// UnknownError is the error of Lookup for a name not in the table.
type UnknownError struct {
	Name    string
	Closest []string // the nearest names, best first
}

func (e *UnknownError) Error() string {
	return fmt.Sprintf("unknown target %q; did you mean %s?", e.Name, strings.Join(e.Closest, ", "))
}

// closest returns up to n target names nearest to s by edit distance,
// preferring names that share its prefix.
func closest(s string, n int) []string {
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	for _, t := range targetTable {
		best := editDistance(s, t.Name)
		for _, a := range t.Aliases {
			best = min(best, editDistance(s, a))
		}
		if strings.HasPrefix(t.Name, s) || strings.HasPrefix(s, strings.SplitN(t.Name, "-", 2)[0]) {
			best -= 2
		}
		cs = append(cs, cand{t.Name, best})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	out := make([]string, 0, n)
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, c.name)
	}
	return out
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
