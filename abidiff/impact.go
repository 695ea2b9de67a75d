package abidiff

import (
	"slices"
	"strconv"
	"strings"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/symver"
)

// MaxPaths is how many paths an Impact keeps: the shortest, one per symbol.
const MaxPaths = 5

// Impact says what a changed type breaks: how many exported symbols of
// public version nodes reach it, and for the first MaxPaths of them (the
// nearest first) the way there.
type Impact struct {
	// Symbols counts the public symbols whose type reaches the changed
	// type.
	Symbols int `json:"symbols"`
	// Paths go from a symbol to the changed type: the symbol, then steps
	// ("parameter 1", "return", "member m", "base", ...) and the named
	// types passed through, ending with the changed type's key.
	Paths [][]string `json:"paths,omitempty"`
}

// String writes a path as "memcpy@@GLIBC_2.14 → parameter 1 → struct foo".
func pathString(p []string) string { return strings.Join(p, " → ") }

// edge is a use of a named type: by another named type (from, a key) or by
// a symbol (sym), at the place label says.
type edge struct {
	from  string
	sym   bool
	label string
}

// impacts answers, for one ABI, which public symbols reach a type. Its
// reverse graph is built once, on first use.
type impacts struct {
	a   *abi.ABI
	rev map[string][]edge
}

func newImpacts(a *abi.ABI) *impacts { return &impacts{a: a} }

func (im *impacts) build() {
	im.rev = map[string][]edge{}
	keys := make([]string, 0, len(im.a.Types))
	for k := range im.a.Types {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		uses(im.a.Types[k], "", map[*abi.Type]bool{}, func(ref, label string) {
			im.rev[ref] = append(im.rev[ref], edge{from: k, label: label})
		})
	}
	syms := slices.Clone(im.a.Symbols)
	slices.SortFunc(syms, func(x, y abi.Symbol) int { return strings.Compare(x.String(), y.String()) })
	for _, s := range syms {
		if s.Type == nil || symver.IsPrivate(s.Version) {
			continue
		}
		uses(s.Type, "", map[*abi.Type]bool{}, func(ref, label string) {
			im.rev[ref] = append(im.rev[ref], edge{from: s.String(), sym: true, label: label})
		})
	}
}

// uses calls f for each named type t refers to, with where (member names,
// "parameter N", "return") the reference is in t's inline tree.
func uses(t *abi.Type, label string, seen map[*abi.Type]bool, f func(ref, label string)) {
	if t == nil || seen[t] {
		return
	}
	seen[t] = true
	if t.Ref != "" {
		f(t.Ref, label)
		return
	}
	sub := func(step string) string {
		if label == "" {
			return step
		}
		return label + " → " + step
	}
	if t.Kind == abi.Func {
		uses(t.Elem, sub("return"), seen, f)
		for i, p := range t.Params {
			uses(p, sub("parameter "+strconv.Itoa(i+1)), seen, f)
		}
		return
	}
	uses(t.Elem, label, seen, f)
	keys := memberKeys(t.Members)
	for i, m := range t.Members {
		uses(m.Type, sub("member "+keys[i]), seen, f)
	}
}

// of returns the impact of a change to the named type key: a breadth-first
// walk of the uses backwards, so the paths kept are the shortest.
func (im *impacts) of(key string) Impact {
	if im.rev == nil {
		im.build()
	}
	type hop struct{ to, label string }
	next := map[string]hop{key: {}}
	queue := []string{key}
	var out Impact
	found := map[string]bool{}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		for _, e := range im.rev[x] {
			if e.sym {
				if found[e.from] {
					continue
				}
				found[e.from] = true
				out.Symbols++
				if len(out.Paths) < MaxPaths {
					out.Paths = append(out.Paths, walkPath(e, x, key, func(k string) (string, string) { h := next[k]; return h.to, h.label }))
				}
				continue
			}
			if _, ok := next[e.from]; ok {
				continue
			}
			next[e.from] = hop{to: x, label: e.label}
			queue = append(queue, e.from)
		}
	}
	return out
}

// walkPath writes the path from the symbol of e, which uses x, down to key.
func walkPath(e edge, x, key string, next func(string) (string, string)) []string {
	p := []string{e.from}
	step := func(label, to string) {
		if label != "" {
			p = append(p, strings.Split(label, " → ")...)
		}
		p = append(p, to)
	}
	step(e.label, x)
	for x != key {
		to, label := next(x)
		step(label, to)
		x = to
	}
	return p
}
