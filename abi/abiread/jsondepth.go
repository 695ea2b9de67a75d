package abiread

import (
	"fmt"
	"maps"
	"slices"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/internal/limits"
)

// maxJSONDepth bounds how deep the inline type nodes of ABI JSON nest.
// The DWARF readers cut nesting at maxDepth, so no dump goes deeper than
// that; ABI JSON from elsewhere (another CI job's artefact) is untrusted,
// and a pointer chain 9,000 deep in a 945 KB file cost diff 38 s and
// 650 MB: each level's name is composed from the one below, so the work
// grows with the square of the depth. Deeper JSON is refused.
const maxJSONDepth = limits.JSONDepth

// checkNesting reports the first type of a nested deeper than
// maxJSONDepth, by the symbol or type key it is under.
func checkNesting(a *abi.ABI) error {
	var walk func(t *abi.Type, depth int) bool
	walk = func(t *abi.Type, depth int) bool {
		if t == nil {
			return true
		}
		if depth > maxJSONDepth {
			return false
		}
		if !walk(t.Elem, depth+1) {
			return false
		}
		for _, p := range t.Params {
			if !walk(p, depth+1) {
				return false
			}
		}
		for _, ms := range [][]abi.Member{t.Members, t.Statics} {
			for _, m := range ms {
				if !walk(m.Type, depth+1) {
					return false
				}
			}
		}
		for _, b := range t.Bases {
			if !walk(b.Type, depth+1) {
				return false
			}
		}
		return true
	}
	for _, s := range a.Symbols {
		if !walk(s.Type, 0) {
			return fmt.Errorf("the type of symbol %s nests deeper than %d", shortName(s.Name), maxJSONDepth)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(a.Types)) {
		if !walk(a.Types[k], 0) {
			return fmt.Errorf("type %s nests deeper than %d", shortName(k), maxJSONDepth)
		}
	}
	return nil
}

// shortName quotes a name from the input for an error, cut with its
// length stated.
func shortName(s string) string {
	if len(s) > 120 {
		return fmt.Sprintf("%q… (%d bytes)", s[:120], len(s))
	}
	return fmt.Sprintf("%q", s)
}
