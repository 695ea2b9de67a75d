package floor

import (
	"strings"
	"testing"

	"github.com/abifloor/abifloor/targets"
)

func lookup(t *testing.T, name string) targets.Target {
	t.Helper()
	tg, err := targets.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func TestApplicable(t *testing.T) {
	many, musl, deb, gcc := lookup(t, "manylinux_2_28"), lookup(t, "musllinux_1_2"), lookup(t, "debian-12"), lookup(t, "gcc-12")
	for _, c := range []struct {
		libc     string
		ts       []targets.Target
		want     []string
		libcViol string // the violation's target list, "" for none
	}{
		{Glibc, []targets.Target{many, musl}, []string{"manylinux_2_28"}, ""},
		{Musl, []targets.Target{many, musl}, []string{"musllinux_1_2"}, ""},
		{Musl, []targets.Target{many, deb}, nil, "manylinux_2_28, debian-12"},
		{Glibc, []targets.Target{musl}, nil, "musllinux_1_2"},
		{Musl, []targets.Target{gcc}, []string{"gcc-12"}, ""},
		{Musl, []targets.Target{gcc, many}, []string{"gcc-12"}, "manylinux_2_28"},
		{"", []targets.Target{many, musl}, []string{"manylinux_2_28", "musllinux_1_2"}, ""},
	} {
		got, v := applicable(c.ts, "f", c.libc)
		var names []string
		for _, g := range got {
			names = append(names, g.Name)
		}
		if strings.Join(names, " ") != strings.Join(c.want, " ") {
			t.Errorf("libc %q: applicable = %v, want %v", c.libc, names, c.want)
		}
		switch {
		case c.libcViol == "" && v != nil:
			t.Errorf("libc %q: unexpected violation %+v", c.libc, *v)
		case c.libcViol != "" && (v == nil || v.Target != c.libcViol || v.Rule != RuleLibc || v.Required != c.libc):
			t.Errorf("libc %q: violation %+v, want one naming %s", c.libc, v, c.libcViol)
		}
	}
}

func TestDropShipped(t *testing.T) {
	// A shipped library counts where the loader finds it (issue 17 item
	// 5): m.so's RUNPATH names both directories.
	files := []FileReport{
		{Path: "w/m.so", Runpath: "$ORIGIN/libs:$ORIGIN", Floors: map[string]string{}},
		{Path: "w/libs/libfoo-1a2b.so.1", Soname: "libfoo.so.1", Floors: map[string]string{}},
		{Path: "w/libbar.so.2", Floors: map[string]string{}},
		{Path: "w/broken.so", Error: errTest},
	}
	viol := []Violation{
		{Path: "w/m.so", Rule: RuleLibWhitelist, Library: "libfoo.so.1"},
		{Path: "w/m.so", Rule: RuleLibWhitelist, Library: "libbar.so.2"},
		{Path: "w/m.so", Rule: RuleLibWhitelist, Library: "broken.so"},
		{Path: "w/m.so", Rule: RuleLibWhitelist, Library: "libssl.so.3"},
		{Path: "w/m.so", Namespace: "GLIBC", Required: "2.34", Allowed: "2.28"},
	}
	got := dropShipped(newShippedIndex(files), viol)
	var kept []string
	for _, v := range got {
		kept = append(kept, v.Library+v.Namespace)
	}
	if strings.Join(kept, " ") != "broken.so libssl.so.3 GLIBC" {
		t.Errorf("kept %v: a library shipped by soname or name is bundled; an unreadable file ships nothing", kept)
	}
}

// A library in the tree but on no RPATH, RUNPATH or $ORIGIN path of the
// file that needs it does not load: it is no excuse. A loader's RPATH
// counts for a file without RUNPATH, as ld.so searches.
func TestDropShippedReach(t *testing.T) {
	for _, c := range []struct {
		name  string
		files []FileReport
		kept  int
	}{
		{"no rpath", []FileReport{{Path: "w/pkg/m.so"}, {Path: "w/pkg/libyaml.so.0"}}, 1},
		{"rpath elsewhere", []FileReport{{Path: "w/pkg/m.so", Rpath: "$ORIGIN/../other"}, {Path: "w/sharp.libs/libyaml.so.0"}}, 1},
		{"rpath", []FileReport{{Path: "w/pkg/m.so", Rpath: "$ORIGIN/../sharp.libs"}, {Path: "w/sharp.libs/libyaml.so.0"}}, 0},
		{"runpath hides rpath", []FileReport{{Path: "w/pkg/m.so", Rpath: "$ORIGIN", Runpath: "/usr/lib"}, {Path: "w/pkg/libyaml.so.0"}}, 1},
		{"loader rpath", []FileReport{{Path: "w/m.so", Rpath: "$ORIGIN/libs", Needed: []string{"libmid.so"}}, {Path: "w/libs/libmid.so"}, {Path: "w/libs/libyaml.so.0"}}, 0},
		{"in an artefact", []FileReport{{Path: "x.whl!/pkg/m.so", Runpath: "$ORIGIN/../x.libs"}, {Path: "x.whl!/x.libs/libyaml.so.0"}}, 0},
	} {
		needer := c.files[0].Path
		if c.name == "loader rpath" {
			needer = "w/libs/libmid.so"
		}
		for i := range c.files {
			c.files[i].Floors = map[string]string{}
		}
		got := dropShipped(newShippedIndex(c.files), []Violation{{Path: needer, Rule: RuleLibWhitelist, Library: "libyaml.so.0"}})
		if len(got) != c.kept {
			t.Errorf("%s: kept %v, want %d", c.name, got, c.kept)
		}
	}
}

var errTest = &testError{}

type testError struct{}

func (*testError) Error() string { return "broken" }

func TestCause(t *testing.T) {
	for _, c := range []struct {
		v    Violation
		want string
	}{
		{Violation{Namespace: "GLIBC", Required: "2.34", Allowed: "2.28", Target: "--max"}, "GLIBC 2.34 > 2.28 (--max)"},
		{Violation{Rule: RuleSymbolVersions, Namespace: "GLIBCXX", Required: "3.4.25", Allowed: "3.4.24", Target: "manylinux_2_28"}, "GLIBCXX 3.4.25 > 3.4.24 (manylinux_2_28)"},
		{Violation{Rule: RuleSymbolVersions, Namespace: "GLIBC", Required: "PRIVATE", Allowed: "2.17", Target: "manylinux_2_17"}, "GLIBC_PRIVATE is not allowed by manylinux_2_17"},
		{Violation{Rule: RuleSymbolVersions, Namespace: "ZLIB", Required: "1.2.0", Target: "manylinux_2_5"}, "ZLIB 1.2.0: manylinux_2_5 allows no ZLIB version"},
		{Violation{Rule: RuleLibWhitelist, Library: "libssl.so.3", Target: "manylinux_2_28"}, "needs libssl.so.3, which manylinux_2_28 does not allow (lib_whitelist) and the tree does not ship"},
		{Violation{Rule: RuleBlacklist, Library: "libz.so.1", Target: "manylinux_2_28"}, "uses symbols of libz.so.1 that manylinux_2_28 forbids (blacklist)"},
		{Violation{Rule: RuleArch, Required: "aarch64", Target: "manylinux_2_5"}, "manylinux_2_5 has no rules for aarch64"},
	} {
		if got := c.v.Cause(); got != c.want {
			t.Errorf("Cause() = %q, want %q", got, c.want)
		}
	}
}

func TestOldest(t *testing.T) {
	ts := []targets.Target{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	blocked := map[string][]Violation{"a": {{Path: "x"}}, "b": nil, "c": nil}
	viol := func(n string) []Violation { return blocked[n] }
	if got, b := oldest(ts, viol); got != "b" || b == nil || b.Target != "a" || len(b.Violations) != 1 {
		t.Errorf("oldest = %q, %+v; want b, blocked a", got, b)
	}
	blocked["a"] = nil
	if got, b := oldest(ts, viol); got != "a" || b != nil {
		t.Errorf("oldest = %q, %+v; want a, nothing blocked", got, b)
	}
	blocked = map[string][]Violation{"a": {{}}, "b": {{}}, "c": {{}, {}}}
	if got, b := oldest(ts, viol); got != "" || b == nil || b.Target != "c" || len(b.Violations) != 2 {
		t.Errorf("oldest = %q, %+v; want none, the newest blocked", got, b)
	}
	if got, b := oldest(nil, viol); got != "" || b != nil {
		t.Errorf("oldest of nothing = %q, %+v", got, b)
	}
}

func TestFitsStaticUsesManylinux(t *testing.T) {
	none := func(string) []Violation { return nil }
	f := fits(FitTargets(), "x86_64", "", nil, none)
	if f.Policy != "manylinux_2_5" || f.Blocked != nil {
		t.Errorf("a file that needs no libc fits %q (%+v), want manylinux_2_5", f.Policy, f.Blocked)
	}
	f = fits(FitTargets(), "x86_64", Musl, nil, none)
	if f.Policy != "musllinux_1_1" || len(f.Distros) != 0 {
		t.Errorf("a musl file fits %q with distros %v", f.Policy, f.Distros)
	}
	f = fits(FitTargets(), "aarch64", Glibc, nil, none)
	if f.Policy != "manylinux_2_17" {
		t.Errorf("an aarch64 glibc file fits %q, want manylinux_2_17 (the oldest with aarch64 rules)", f.Policy)
	}
}

// A fit on a release that does not limit a C++ runtime namespace the
// files need (SLES updates libstdc++6) says what it assumes; one that
// needs no C++ runtime assumes nothing (issue 29, item 11).
func TestFitsAssumes(t *testing.T) {
	none := func(string) []Violation { return nil }
	for _, tc := range []struct {
		floors map[string]string
		want   string
	}{
		{map[string]string{"GLIBC": "2.17", "GLIBCXX": "3.4.26"}, "sles-12-sp5 does not limit the C++ runtime: the files need GLIBCXX 3.4.26, there on an updated system only"},
		{map[string]string{"GLIBC": "2.17"}, ""},
	} {
		f := fits(FitTargets(), "x86_64", Glibc, tc.floors, none)
		for _, d := range f.Distros {
			if d.Family == "sles" && d.Assumes != tc.want {
				t.Errorf("floors %v: sles %s assumes %q, want %q", tc.floors, d.Oldest, d.Assumes, tc.want)
			}
			if d.Family == "debian" && d.Assumes != "" {
				t.Errorf("floors %v: debian %s assumes %q: Debian limits its runtime", tc.floors, d.Oldest, d.Assumes)
			}
		}
	}
}
