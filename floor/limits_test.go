package floor

import (
	"testing"

	"github.com/abifloor/abifloor/symver"
)

func TestLimits(t *testing.T) {
	l := Limits{}
	l.Tighten("GLIBC", "2.36")
	l.Tighten("GLIBC", "2.31")
	l.Tighten("GLIBC", "2.35")
	if l["GLIBC"] != "2.31" {
		t.Fatalf("Tighten kept %s, want the lowest 2.31", l["GLIBC"])
	}
	for in, want := range map[string]string{"glibc=2.28": "GLIBC 2.28", "GlibCXX=3.4.24": "GLIBCXX 3.4.24", " Qt_5 = v5.15": "Qt_5 5.15", "OPENSSL=3.0.0": "OPENSSL 3.0.0"} {
		ns, ver, err := ParseLimit(in)
		if err != nil || ns+" "+ver != want {
			t.Errorf("ParseLimit(%q) = %s %s, %v; want %s", in, ns, ver, err, want)
		}
	}
	if v, ok := (Limits{"Qt_5": "5.15"}).Lookup("QT_5"); !ok || v != "5.15" {
		t.Errorf("Lookup is not case-insensitive: %q %v", v, ok)
	}
	for _, bad := range []string{"GLIBC", "GLIBC=", "=2.3", "GLIBC=x", "GLIBC@X=2.3"} {
		if _, _, err := ParseLimit(bad); err == nil {
			t.Errorf("ParseLimit(%q) accepted", bad)
		}
	}
}

// Tighten lowers l[ns] to ver when ver is lower (or l has no limit for ns):
// a binary must load on every target named, so the lowest limit wins.
func (l Limits) Tighten(ns, ver string) {
	if cur, ok := l[ns]; !ok || symver.Compare(ver, cur) < 0 {
		l[ns] = ver
	}
}
