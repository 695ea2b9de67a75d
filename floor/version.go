package floor

import (
	"strings"
)

// Split splits a version name into its namespace and version:
// GLIBC_2.2.5 → (GLIBC, 2.2.5), GLIBCXX_3.4.30 → (GLIBCXX, 3.4.30),
// OPENSSL_1_1_1a → (OPENSSL, 1_1_1a), LIBFFI_BASE_7.0 → (LIBFFI_BASE, 7.0).
//
// The namespace ends at the first '_' followed by a digit. (Splitting at the
// last such '_' would make OPENSSL_1_1_0 a namespace "OPENSSL_1_1".) A name
// with no such '_' (GLIBC_PRIVATE, GLIBC_ABI_DT_RELR, CXXABI_FLOAT128) is
// not numeric: ok is false. CXXABI_TM_1 splits as (CXXABI_TM, 1), its own
// namespace, so it never raises the CXXABI floor.
func Split(name string) (ns, ver string, ok bool) {
	for i := 0; i+1 < len(name); i++ {
		if name[i] == '_' && isDigit(name[i+1]) && i > 0 {
			return name[:i], name[i+1:], true
		}
	}
	return "", "", false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// Compare orders two versions numerically by component: 2.2.5 < 2.10,
// 3.4.9 < 3.4.30, 1_1_0 < 1_1_1a, 535.104.05 < 535.113.01. Components are
// separated by '.' or '_'; each is a number optionally followed by letters,
// which sort after the bare number (1.1.1 < 1.1.1a < 1.1.1b). A missing
// component counts as 0, so 2.2 == 2.2.0.
func Compare(a, b string) int {
	for a != "" || b != "" {
		var ca, cb string
		ca, a = nextComponent(a)
		cb, b = nextComponent(b)
		if c := compareComponent(ca, cb); c != 0 {
			return c
		}
	}
	return 0
}

func nextComponent(s string) (comp, rest string) {
	i := strings.IndexAny(s, "._")
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i+1:]
}

func compareComponent(a, b string) int {
	na, sa := splitNum(a)
	nb, sb := splitNum(b)
	// Compare the digit runs as numbers without parsing (no overflow).
	na = strings.TrimLeft(na, "0")
	nb = strings.TrimLeft(nb, "0")
	if len(na) != len(nb) {
		return cmpInt(len(na), len(nb))
	}
	if c := strings.Compare(na, nb); c != 0 {
		return c
	}
	return strings.Compare(sa, sb)
}

func splitNum(s string) (num, suffix string) {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return s[:i], s[i:]
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Marker is a non-numeric version name with a documented effect on a floor.
type Marker struct {
	Name      string
	Namespace string // the floor it raises, or ""
	Version   string // the version it implies
	Why       string
}

// markers lists non-numeric version names that imply a numeric floor.
var markers = map[string]Marker{
	"GLIBC_ABI_DT_RELR": {
		Name: "GLIBC_ABI_DT_RELR", Namespace: "GLIBC", Version: "2.36",
		Why: "DT_RELR relocations: the dynamic loader learned them in glibc 2.36",
	},
}

// LookupMarker returns the effect of a non-numeric version name.
func LookupMarker(name string) (Marker, bool) {
	m, ok := markers[name]
	return m, ok
}
