package targets

import (
	"bytes"
	"os"
	"testing"

	"github.com/abifloor/abifloor/targets/internal/auditwheel"
)

// TestPoliciesRegenerate proves the embedded manylinux/musllinux rows are
// what auditwheel's policy files say: go generate ./targets after a change.
func TestPoliciesRegenerate(t *testing.T) {
	many, err := os.ReadFile("auditwheel/manylinux-policy.json")
	if err != nil {
		t.Fatal(err)
	}
	musl, err := os.ReadFile("auditwheel/musllinux-policy.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := auditwheel.Convert(many, musl, "auditwheel")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, policiesJSON) {
		t.Fatal("policies.json differs from what auditwheel/*.json generate: run go generate ./targets")
	}
}

func TestConvertRejectsBadInput(t *testing.T) {
	for _, in := range []string{``, `{}`, `[{"name": "manylinux_2_5", "bogus": 1}]`, `[{"name": "weird_1"}]`} {
		if _, err := auditwheel.Convert([]byte(in), []byte(`[]`), "x"); err == nil {
			t.Errorf("Convert(%q) succeeded", in)
		}
	}
}

func TestPolicyFacts(t *testing.T) {
	for _, c := range []struct {
		target, arch, ver string
		ok, limited       bool
	}{
		{"manylinux_2_28", "x86_64", "GLIBCXX_3.4.24", true, true},
		{"manylinux_2_28", "x86_64", "GLIBCXX_3.4.25", false, true},
		{"manylinux2010", "x86_64", "GCC_4.3.0", true, true},
		{"manylinux2010", "x86_64", "GCC_4.4.0", false, true},
		{"manylinux2014", "aarch64", "GLIBC_2.18", true, true},
		{"manylinux2014", "arm64", "GCC_4.7.0", true, true},
		{"manylinux2014", "x86_64", "GLIBC_2.18", false, true},
		{"manylinux_2_17", "x86_64", "GLIBC_PRIVATE", false, true},
		{"manylinux_2_28", "x86_64", "ZLIB_1.2.9", true, true},
		{"manylinux_2_5", "x86_64", "ZLIB_1.2.0", false, true},
		{"manylinux_2_28", "x86_64", "OPENSSL_3.0.0", true, false},
		{"manylinux_2_36", "x86_64", "GLIBC_ABI_DT_RELR", true, true},
		{"manylinux_2_35", "x86_64", "GLIBC_ABI_DT_RELR", false, true},
	} {
		tg, err := Lookup(c.target)
		if err != nil {
			t.Fatal(err)
		}
		if ok, limited := tg.Allowed(c.arch, c.ver); ok != c.ok || limited != c.limited {
			t.Errorf("%s on %s allows %s = %v, %v; want %v, %v", c.target, c.arch, c.ver, ok, limited, c.ok, c.limited)
		}
	}
	for _, name := range []string{"manylinux_2_26", "manylinux_2_27", "manylinux_2_36", "manylinux_2_37", "manylinux_2_38", "manylinux_2_39", "manylinux_2_40", "manylinux_2_41", "musllinux_1_1", "musllinux_1_2", "manylinux1", "manylinux2010", "manylinux2014"} {
		if _, err := Lookup(name); err != nil {
			t.Errorf("Lookup(%q): %v", name, err)
		}
	}
	aarch, _ := Lookup("manylinux_2_17")
	if l := aarch.LimitsFor("aarch64"); l["GLIBC"] != "2.18" || l["GCC"] != "4.7.0" {
		t.Errorf("manylinux_2_17 on aarch64 limits = %v", l)
	}
	if aarch.Covers("riscv64") || !aarch.Covers("aarch64") || !aarch.Covers("i386") {
		t.Error("manylinux_2_17 covers riscv64, or not aarch64/i386")
	}
	if aarch.Limits["GLIBCXX"] != "3.4.19" || aarch.Libc != "glibc" {
		t.Errorf("manylinux_2_17 = %+v", aarch.Limits)
	}
	m, _ := Lookup("musllinux_1_2")
	if m.Libc != "musl" || !m.Covers("x86_64") || len(m.LibWhitelist) == 0 {
		t.Errorf("musllinux_1_2 = %+v", m)
	}
	m228, _ := Lookup("manylinux_2_28")
	if len(m228.Blacklist["libz.so.1"]) == 0 {
		t.Error("manylinux_2_28 has no libz blacklist")
	}
}

// TestDistroRowsDocumented: every hand-kept distro row says where it
// came from and which packages.
func TestDistroRowsDocumented(t *testing.T) {
	for _, tg := range All() {
		if tg.Source == "" {
			t.Errorf("%s: no source", tg.Name)
		}
		if tg.Kind == Distro && (tg.Family == "" || tg.Libc == "" || len(tg.Packages) == 0) {
			t.Errorf("%s: family %q, libc %q, packages %v", tg.Name, tg.Family, tg.Libc, tg.Packages)
		}
	}
}

func TestPlatformTags(t *testing.T) {
	tg, err := Lookup("manylinux2014_aarch64")
	if err != nil {
		t.Fatal(err)
	}
	if tg.Name != "manylinux_2_17_aarch64" || !tg.Covers("aarch64") || tg.Covers("x86_64") || tg.Limits["GLIBC"] != "2.18" {
		t.Errorf("manylinux2014_aarch64 = %s, covers x86_64 %v, limits %v", tg.Name, tg.Covers("x86_64"), tg.Limits)
	}
	if ok, _ := tg.Allowed("aarch64", "GLIBC_2.18"); !ok {
		t.Error("manylinux2014_aarch64 does not allow GLIBC_2.18")
	}
	if m, err := Lookup("MUSLLINUX_1_2_X86_64"); err != nil || !m.Covers("x86_64") || m.Covers("aarch64") {
		t.Errorf("musllinux_1_2_x86_64: %+v, %v", m.Name, err)
	}
	for _, bad := range []string{"manylinux_2_5_aarch64", "debian-12_x86_64", "manylinux_2_17_sparc"} {
		if _, err := Lookup(bad); err == nil {
			t.Errorf("Lookup(%q) succeeded", bad)
		}
	}
	if again, _ := Lookup("manylinux2014"); !again.Covers("x86_64") {
		t.Error("an arch-qualified lookup changed the table")
	}
}
