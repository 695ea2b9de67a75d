// Package symver orders version strings: the numeric part of ELF symbol
// version names (GLIBC_2.2.5, GLIBCXX_3.4.30, OPENSSL_1_1_1a) and the
// release numbers of whatever ships them (NVIDIA's 535.104.05, v1.2.3,
// 1.0.0-rc1).
//
// It is pure: no I/O, no state. floor uses it for floors and limits,
// glibc for release ranges, ranges for version tables.
//
// A version is components separated by '.' or '_', after an optional
// leading "v". Each component is a number, optionally followed by letters,
// which sort after the bare number (1.1.1 < 1.1.1a < 1.1.1b, as OpenSSL
// numbers its releases). Numbers compare by value with no limit on their
// length, so leading zeros do not count (535.104.5 == 535.104.05) and are
// kept as written by every function that returns a version. A missing
// component counts as 0 (2.2 == 2.2.0).
//
// A '-' starts a pre-release, as in semantic versioning: 1.0.0-rc1 <
// 1.0.0, and pre-releases compare by dot-separated identifiers, numbers
// below words. A '+' starts build metadata, which is ignored.
package symver

import (
	"fmt"
	"sort"
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
	for i := 1; i+1 < len(name); i++ {
		if name[i] == '_' && isDigit(name[i+1]) {
			return name[:i], name[i+1:], true
		}
	}
	return "", "", false
}

// IsPrivate reports whether a version name is a private node: one a
// library keeps for its own parts (GLIBC_PRIVATE), which no application
// may rely on. The rule is the name PRIVATE or a name ending in _PRIVATE.
func IsPrivate(name string) bool {
	return name == "PRIVATE" || strings.HasSuffix(name, "_PRIVATE")
}

// Valid reports whether v is a version this package can order
// meaningfully: an optional "v", then a component that starts with a
// digit, then components of digits and letters, then an optional
// pre-release and build metadata.
func Valid(v string) bool { return Check(v) == nil }

// Check is Valid with the reason.
func Check(v string) error {
	main, pre, build := parts(v)
	if main == "" {
		return fmt.Errorf("version %q: empty", v)
	}
	if strings.HasSuffix(v, "-") || strings.HasSuffix(v, "+") || strings.Contains(build, "+") {
		return fmt.Errorf("version %q: empty pre-release or build", v)
	}
	for i, rest, more := 0, main, true; more; i++ {
		var c string
		c, rest, more = cutAny(rest, "._")
		if c == "" {
			return fmt.Errorf("version %q: empty component", v)
		}
		num, suf := splitNum(c)
		if num == "" && i == 0 {
			return fmt.Errorf("version %q: does not start with a number", v)
		}
		if num == "" {
			return fmt.Errorf("version %q: component %q is not a number", v, c)
		}
		if !isAlnum(suf) {
			return fmt.Errorf("version %q: component %q has a character other than a letter or digit", v, c)
		}
	}
	if pre != "" {
		for _, id := range strings.Split(pre, ".") {
			if id == "" || !isAlnumDash(id) {
				return fmt.Errorf("version %q: bad pre-release %q", v, pre)
			}
		}
	}
	return nil
}

// Compare orders two versions: -1, 0 or +1. It is a total order on all
// strings; invalid ones compare by the same rules as far as they go.
func Compare(a, b string) int {
	am, ap, _ := parts(a)
	bm, bp, _ := parts(b)
	if c := compareMain(am, bm); c != 0 {
		return c
	}
	return comparePre(ap, bp)
}

// compareMain compares the dotted parts in place, component by component,
// without allocating: Compare is the inner loop of every sort and lookup.
func compareMain(a, b string) int {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		// The digit runs, leading zeros skipped, compare by length, then
		// byte by byte.
		for i < len(a) && a[i] == '0' {
			i++
		}
		for j < len(b) && b[j] == '0' {
			j++
		}
		ni, nj := i, j
		for ni < len(a) && isDigit(a[ni]) {
			ni++
		}
		for nj < len(b) && isDigit(b[nj]) {
			nj++
		}
		if c := cmpInt(ni-i, nj-j); c != 0 {
			return c
		}
		if c := strings.Compare(a[i:ni], b[j:nj]); c != 0 {
			return c
		}
		// The suffixes, up to the next separator.
		si, sj := ni, nj
		for si < len(a) && a[si] != '.' && a[si] != '_' {
			si++
		}
		for sj < len(b) && b[sj] != '.' && b[sj] != '_' {
			sj++
		}
		if c := strings.Compare(a[ni:si], b[nj:sj]); c != 0 {
			return c
		}
		i, j = min(si+1, len(a)), min(sj+1, len(b))
		if si == len(a) {
			i = len(a)
		}
		if sj == len(b) {
			j = len(b)
		}
	}
	return 0
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

// Sort sorts versions in ascending order, stably, so versions that compare
// equal (2.2 and 2.2.0) keep their order.
func Sort(vs []string) {
	sort.SliceStable(vs, func(i, j int) bool { return Compare(vs[i], vs[j]) < 0 })
}

// parts splits v into its main part, pre-release and build metadata,
// dropping a leading "v" before a digit.
func parts(v string) (main, pre, build string) {
	if len(v) > 1 && (v[0] == 'v' || v[0] == 'V') && isDigit(v[1]) {
		v = v[1:]
	}
	v, build, _ = strings.Cut(v, "+")
	main, pre, _ = strings.Cut(v, "-")
	return main, pre, build
}

// compareNum compares digit runs as numbers without parsing them, so no
// length overflows; "" is 0.
func compareNum(a, b string) int {
	a = strings.TrimLeft(a, "0")
	b = strings.TrimLeft(b, "0")
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

// comparePre orders pre-releases: none is highest; identifiers compare
// numerically when both are numbers, a number is below a word, and a
// shorter list that is a prefix of a longer one is lower.
func comparePre(a, b string) int {
	switch {
	case a == b:
		return 0
	case a == "":
		return 1
	case b == "":
		return -1
	}
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, y := as[i], bs[i]
		xn, yn := allDigits(x), allDigits(y)
		var c int
		switch {
		case xn && yn:
			c = compareNum(x, y)
		case xn:
			c = -1
		case yn:
			c = 1
		default:
			c = strings.Compare(x, y)
		}
		if c != 0 {
			return c
		}
	}
	switch {
	case len(as) < len(bs):
		return -1
	case len(as) > len(bs):
		return 1
	}
	return 0
}

func splitNum(s string) (num, suffix string) {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return s[:i], s[i:]
}

// cutAny cuts s at the first byte in seps; found says whether there was one.
func cutAny(s, seps string) (before, after string, found bool) {
	if i := strings.IndexAny(s, seps); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return s, "", false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

func isAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isDigit(c) && !('a' <= c && c <= 'z') && !('A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

func isAlnumDash(s string) bool {
	return isAlnum(strings.ReplaceAll(s, "-", ""))
}
