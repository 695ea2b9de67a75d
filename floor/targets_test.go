package floor

import (
	"strings"
	"testing"
)

func TestTargetTable(t *testing.T) {
	seen := map[string]bool{}
	for _, tg := range Targets() {
		for _, n := range append([]string{tg.Name}, tg.Aliases...) {
			if seen[n] {
				t.Errorf("name %q appears twice", n)
			}
			seen[n] = true
		}
		for ns, v := range tg.Limits {
			if _, _, ok := Split(ns + "_" + v); !ok {
				t.Errorf("%s: limit %s=%s is not a numeric version", tg.Name, ns, v)
			}
		}
	}
	for name, glibc := range map[string]string{
		"debian-12": "2.36", "bookworm": "2.36", "ubuntu-22.04": "2.35", "centos-7": "2.17",
		"manylinux2014": "2.17", "manylinux_2_17": "2.17", "rocky-9": "2.34", "UBUNTU-20.04": "2.31",
	} {
		tg, err := LookupTarget(name)
		if err != nil || tg.Limits["GLIBC"] != glibc {
			t.Errorf("LookupTarget(%q) = GLIBC %q, %v; want %s", name, tg.Limits["GLIBC"], err, glibc)
		}
	}
	if tg, _ := LookupTarget("gcc-12"); tg.Limits["GLIBCXX"] != "3.4.30" || tg.Limits["GLIBC"] != "" {
		t.Errorf("gcc-12 limits = %v", tg.Limits)
	}
}

func TestUnknownTargetSuggests(t *testing.T) {
	_, err := LookupTarget("debian-14")
	if err == nil || !strings.Contains(err.Error(), "debian-1") {
		t.Fatalf("error %v should suggest a debian target", err)
	}
	_, err = LookupTarget("ubunt-22.04")
	if err == nil || !strings.Contains(err.Error(), "ubuntu-22.04") {
		t.Fatalf("error %v should suggest ubuntu-22.04", err)
	}
}

func TestLimits(t *testing.T) {
	l := Limits{}
	l.Tighten("GLIBC", "2.36")
	l.Tighten("GLIBC", "2.31")
	l.Tighten("GLIBC", "2.35")
	if l["GLIBC"] != "2.31" {
		t.Fatalf("Tighten kept %s, want the lowest 2.31", l["GLIBC"])
	}
	for _, bad := range []string{"GLIBC", "GLIBC=", "=2.3", "GLIBC=x"} {
		if _, _, err := ParseLimit(bad); err == nil {
			t.Errorf("ParseLimit(%q) accepted", bad)
		}
	}
}
