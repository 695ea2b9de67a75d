package floor

import (
	"fmt"
	"strings"

	"github.com/abifloor/abifloor/symver"
)

// Limits maps a namespace to the highest allowed version.
type Limits map[string]string

// Tighten lowers l[ns] to ver when ver is lower (or l has no limit for ns):
// a binary must load on every target named, so the lowest limit wins.
func (l Limits) Tighten(ns, ver string) {
	if cur, ok := l[ns]; !ok || symver.Compare(ver, cur) < 0 {
		l[ns] = ver
	}
}

// ParseLimit parses a --max argument, NS=VER (GLIBC=2.35).
func ParseLimit(s string) (ns, ver string, err error) {
	ns, ver, ok := strings.Cut(s, "=")
	if !ok || ns == "" || ver == "" || !symver.Valid(ver) {
		return "", "", fmt.Errorf("bad limit %q: want NAMESPACE=VERSION, e.g. GLIBC=2.35", s)
	}
	return ns, ver, nil
}
