package floor

import (
	_ "embed"
	"encoding/json"
	"fmt"
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
		panic("floor: embedded targets.json: " + err.Error())
	}
	return t.Targets
}()

// Targets returns the embedded target table, in table order.
func Targets() []Target { return targetTable }

// LookupTarget finds a target by name or alias (case-insensitive). An
// unknown name yields an error listing the closest names.
func LookupTarget(name string) (Target, error) {
	key := strings.ToLower(name)
	for _, t := range targetTable {
		if t.Name == key {
			return t, nil
		}
		for _, a := range t.Aliases {
			if a == key {
				return t, nil
			}
		}
	}
	return Target{}, fmt.Errorf("unknown target %q; did you mean %s? (abifloor targets lists all)", name, strings.Join(closest(key, 3), ", "))
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

// Limits maps a namespace to the highest allowed version.
type Limits map[string]string

// Tighten lowers l[ns] to ver when ver is lower (or l has no limit for ns):
// a binary must load on every target named, so the lowest limit wins.
func (l Limits) Tighten(ns, ver string) {
	if cur, ok := l[ns]; !ok || Compare(ver, cur) < 0 {
		l[ns] = ver
	}
}

// ParseLimit parses a --max argument, NS=VER (GLIBC=2.35).
func ParseLimit(s string) (ns, ver string, err error) {
	ns, ver, ok := strings.Cut(s, "=")
	if !ok || ns == "" || ver == "" || !isDigit(ver[0]) {
		return "", "", fmt.Errorf("bad limit %q: want NAMESPACE=VERSION, e.g. GLIBC=2.35", s)
	}
	return ns, ver, nil
}
