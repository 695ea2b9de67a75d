package floor

import (
	"fmt"
	"strings"

	"github.com/abifloor/abifloor/internal/lazyre"
	"github.com/abifloor/abifloor/symver"
)

// A package's claims on the GCC runtimes count like its libc claims: a
// .deb's Depends on libstdc++6 (>= X) promises the libstdc++ of GCC X, so
// its files may need the GLIBCXX and CXXABI versions of that release and
// no newer; libgcc-s1 (>= X) (libgcc1 before GCC 10) the GCC_ versions of
// libgcc_s up to X; an rpm's Requires: libstdc++.so.6(GLIBCXX_3.4.x),
// libstdc++.so.6(CXXABI_1.3.x) and libgcc_s.so.1(GCC_x) name the versions
// themselves. A file that needs more breaks the claim (RuleClaim).

// rtClaim is the limit a package's relation on a GCC runtime sets on one
// namespace.
type rtClaim struct {
	ns      string // GLIBCXX, CXXABI or GCC
	version string // "" when the relation sets no lower bound
	source  string // the relation, quoted
}

var (
	debRuntimeRE = lazyre.New(`^(libstdc\+\+6|libgcc-s1|libgcc1)$`)
	rpmRuntimeRE = lazyre.New(`(?m)^(libstdc\+\+\.so\.6|libgcc_s\.so\.1)\((GLIBCXX|CXXABI|GCC)_([0-9][0-9.]*)\)`)
)

// gccRelease is libstdc++'s history: the GCC release that added each
// GLIBCXX and CXXABI version (the libstdc++ manual's ABI policy). A
// release not listed has the versions of the one before it.
var gccRelease = []struct{ gcc, glibcxx, cxxabi string }{
	{"3.4.0", "3.4", "1.3"}, {"3.4.1", "3.4.1", "1.3"}, {"3.4.2", "3.4.2", "1.3"}, {"3.4.3", "3.4.3", "1.3"},
	{"4.0.0", "3.4.4", "1.3.1"}, {"4.0.1", "3.4.5", "1.3.1"}, {"4.0.2", "3.4.6", "1.3.1"}, {"4.0.3", "3.4.7", "1.3.1"},
	{"4.1.1", "3.4.8", "1.3.1"}, {"4.2.0", "3.4.9", "1.3.1"}, {"4.3.0", "3.4.10", "1.3.2"}, {"4.4.0", "3.4.11", "1.3.3"},
	{"4.4.1", "3.4.12", "1.3.3"}, {"4.4.2", "3.4.13", "1.3.3"}, {"4.5.0", "3.4.14", "1.3.4"}, {"4.6.0", "3.4.15", "1.3.5"},
	{"4.6.1", "3.4.16", "1.3.5"}, {"4.7.0", "3.4.17", "1.3.6"}, {"4.8.0", "3.4.18", "1.3.7"}, {"4.8.3", "3.4.19", "1.3.7"},
	{"4.9.0", "3.4.20", "1.3.8"}, {"5.1.0", "3.4.21", "1.3.9"}, {"6.1.0", "3.4.22", "1.3.10"}, {"7.1.0", "3.4.23", "1.3.11"},
	{"7.2.0", "3.4.24", "1.3.11"}, {"8.1.0", "3.4.25", "1.3.11"}, {"9.1.0", "3.4.26", "1.3.12"}, {"9.2.0", "3.4.27", "1.3.12"},
	{"9.3.0", "3.4.28", "1.3.12"}, {"11.1.0", "3.4.29", "1.3.13"}, {"12.1.0", "3.4.30", "1.3.13"}, {"13.1.0", "3.4.31", "1.3.14"},
	{"13.2.0", "3.4.32", "1.3.14"}, {"14.1.0", "3.4.33", "1.3.15"},
}

// libstdcxxOf returns the GLIBCXX and CXXABI versions of the libstdc++ of
// GCC release gcc (a Debian upstream version: "12", "4.1.1", "13.2.0"):
// those of the newest release listed at or below it, where a shorter
// version names a series (Debian's symbols files write "12" for the
// first release of GCC 12, 12.1.0). ok is false below GCC 3.4, whose
// libstdc++.so.6 did not exist.
func libstdcxxOf(gcc string) (glibcxx, cxxabi string, ok bool) {
	n := len(strings.Split(gcc, "."))
	for _, r := range gccRelease {
		parts := strings.Split(r.gcc, ".")
		if symver.Compare(strings.Join(parts[:min(n, len(parts))], "."), gcc) > 0 {
			break
		}
		glibcxx, cxxabi, ok = r.glibcxx, r.cxxabi, true
	}
	return
}

// runtimeClaims reads the GCC runtime relations of a .deb's control file
// or an rpm's Requires. Of alternatives the lowest bound holds, of
// several relations the highest.
func runtimeClaims(control string) []rtClaim {
	var all []rtClaim
	for _, f := range debField().FindAllStringSubmatch(control, -1) {
		for _, group := range strings.Split(f[2], ",") {
			all = append(all, runtimeGroup(f[1], group)...)
		}
	}
	for _, m := range rpmRuntimeRE().FindAllStringSubmatch(control, -1) {
		if !symver.Valid(m[3]) {
			continue // "GCC_0.": no version rpm would write
		}
		all = append(all, rtClaim{ns: m[2], version: m[3], source: fmt.Sprintf("Requires: %s(%s_%s)", m[1], m[2], m[3])})
	}
	return strongest(all)
}

// runtimeGroup reads one group of alternatives of a .deb relation: the
// claims it makes when every alternative is the same GCC runtime.
func runtimeGroup(field, group string) []rtClaim {
	group = strings.Join(strings.Fields(group), " ")
	source := field + ": " + group
	pkg, low := "", ""
	for i, alt := range strings.Split(group, "|") {
		m := debRel().FindStringSubmatch(strings.TrimSpace(alt))
		if m == nil || !debRuntimeRE().MatchString(m[1]) {
			return nil
		}
		p := m[1]
		if p == "libgcc1" {
			p = "libgcc-s1" // the same library, renamed in GCC 10
		}
		v := debBound(m[2], m[3]) // past libgcc1's epoch (1:8.3.0-6)
		switch {
		case i == 0:
			pkg, low = p, v
		case p != pkg:
			return nil
		case v == "" || (low != "" && symver.Compare(v, low) < 0):
			low = v
		}
	}
	if pkg == "libgcc-s1" {
		// libgcc_s names its versions after the GCC release: GCC_7.0.0
		// is in every libgcc_s of GCC 7 and later.
		return []rtClaim{{ns: "GCC", version: low, source: source}}
	}
	if low == "" {
		return []rtClaim{{ns: "GLIBCXX", source: source}, {ns: "CXXABI", source: source}}
	}
	glibcxx, cxxabi, ok := libstdcxxOf(low)
	if !ok {
		return nil
	}
	return []rtClaim{{ns: "GLIBCXX", version: glibcxx, source: source}, {ns: "CXXABI", version: cxxabi, source: source}}
}

// runtimeViolations holds one member's report to the runtime claims.
func (c *claims) runtimeViolations(rep FileReport) []Violation {
	if rep.Libc == Musl {
		return nil
	}
	var out []Violation
	for _, r := range c.rt {
		req, ok := rep.Floors[r.ns]
		if !ok || (r.version != "" && symver.Compare(req, r.version) <= 0) {
			continue
		}
		v := Violation{Path: rep.Path, Namespace: r.ns, Required: req, Allowed: r.version, Symbols: []Ref{}, Rule: RuleClaim, Target: r.source}
		for _, s := range rep.Why[r.ns] {
			if ver, ok := strings.CutPrefix(s.Version, r.ns+"_"); !ok || r.version == "" || symver.Compare(ver, r.version) > 0 {
				v.Symbols = append(v.Symbols, s)
			}
		}
		out = append(out, v)
	}
	return out
}
