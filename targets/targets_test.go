package targets

import (
	"strings"
	"testing"

	"github.com/abifloor/abifloor/symver"
)

func TestTargetTable(t *testing.T) {
	seen := map[string]bool{}
	for _, tg := range All() {
		for _, n := range append([]string{tg.Name}, tg.Aliases...) {
			if seen[n] {
				t.Errorf("name %q appears twice", n)
			}
			seen[n] = true
		}
		for ns, v := range tg.Limits {
			if _, _, ok := symver.Split(ns + "_" + v); !ok {
				t.Errorf("%s: limit %s=%s is not a numeric version", tg.Name, ns, v)
			}
		}
	}
	for name, glibc := range map[string]string{
		"debian-12": "2.36", "bookworm": "2.36", "ubuntu-22.04": "2.35", "centos-7": "2.17",
		"manylinux2014": "2.17", "manylinux_2_17": "2.17", "manylinux_2_28": "2.28", "rocky-9": "2.34", "UBUNTU-20.04": "2.31",
	} {
		tg, err := Lookup(name)
		if err != nil || tg.Limits["GLIBC"] != glibc {
			t.Errorf("Lookup(%q) = GLIBC %q, %v; want %s", name, tg.Limits["GLIBC"], err, glibc)
		}
	}
	if tg, _ := Lookup("gcc-12"); tg.Limits["GLIBCXX"] != "3.4.30" || tg.Limits["GLIBC"] != "" {
		t.Errorf("gcc-12 limits = %v", tg.Limits)
	}
}

func TestUnknownTargetSuggests(t *testing.T) {
	_, err := Lookup("debian-14")
	if err == nil || !strings.Contains(err.Error(), "debian-1") {
		t.Fatalf("error %v should suggest a debian target", err)
	}
	_, err = Lookup("ubunt-22.04")
	if err == nil || !strings.Contains(err.Error(), "ubuntu-22.04") {
		t.Fatalf("error %v should suggest ubuntu-22.04", err)
	}
}

func TestCopies(t *testing.T) {
	all := All()
	all[0].Limits["GLIBC"] = "0.1"
	all[0].Aliases = append(all[0].Aliases, "x")
	tg, err := Lookup(all[0].Name)
	if err != nil || tg.Limits["GLIBC"] == "0.1" {
		t.Fatalf("writing to All()'s result changed Lookup: %v %v", tg.Limits, err)
	}
	tg.Limits["GLIBC"] = "0.2"
	if again, _ := Lookup(tg.Name); again.Limits["GLIBC"] == "0.2" {
		t.Fatal("writing to Lookup's result changed the table")
	}
}

func TestPolicyCopies(t *testing.T) {
	a, _ := Lookup("manylinux_2_28")
	a.SymbolVersions["x86_64"]["GLIBCXX"][0] = "9.9"
	a.Blacklist["libz.so.1"][0] = "x"
	a.LibWhitelist[0] = "x"
	b, _ := Lookup("manylinux_2_28")
	if b.SymbolVersions["x86_64"]["GLIBCXX"][0] == "9.9" || b.Blacklist["libz.so.1"][0] == "x" || b.LibWhitelist[0] == "x" {
		t.Fatal("writing to a policy's sets changed the table")
	}
}
