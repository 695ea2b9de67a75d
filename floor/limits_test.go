package floor

import "testing"

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
