package floor

import (
	"fmt"
	"strings"

	"github.com/abifloor/abifloor/symver"
)

// Limits maps a namespace to the highest allowed version.
type Limits map[string]string

// Lookup returns the limit of namespace ns, matched case-insensitively
// (a limit on glibc holds GLIBC).
func (l Limits) Lookup(ns string) (string, bool) {
	if v, ok := l[ns]; ok {
		return v, true
	}
	for k, v := range l {
		if strings.EqualFold(k, ns) {
			return v, true
		}
	}
	return "", false
}

// knownNamespaces are spelt as the toolchain spells them, whatever case a
// --max used.
var knownNamespaces = []string{"GLIBC", "GLIBCXX", "CXXABI", "GCC", "ZLIB", "LIBATOMIC", "OPENSSL", "CUDA"}

// CanonicalNamespace spells ns as the toolchain does when it is a known
// namespace (glibc → GLIBC), else returns it as given.
func CanonicalNamespace(ns string) string {
	for _, k := range knownNamespaces {
		if strings.EqualFold(k, ns) {
			return k
		}
	}
	return ns
}

// ParseLimit parses a --max argument, NS=VER (GLIBC=2.35), with the
// namespace canonicalised (glibc=2.28 is GLIBC 2.28) and a leading "v"
// of the version dropped.
func ParseLimit(s string) (ns, ver string, err error) {
	ns, ver, ok := strings.Cut(strings.TrimSpace(s), "=")
	ns, ver = strings.TrimSpace(ns), strings.TrimPrefix(strings.TrimSpace(ver), "v")
	if !ok || ns == "" || ver == "" || !symver.Valid(ver) || strings.ContainsAny(ns, "@= \t") {
		return "", "", fmt.Errorf("bad limit %q: want NAMESPACE=VERSION, e.g. GLIBC=2.35", s)
	}
	return CanonicalNamespace(ns), ver, nil
}
