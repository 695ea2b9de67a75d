package floor

import (
	"context"
	"strings"
	"testing"
)

func BenchmarkFitUsrBin(b *testing.B) {
	ts := FitTargets()
	for i := 0; i < b.N; i++ {
		res := Scan(context.Background(), []string{"/usr/bin"}, Options{Targets: ts, EachTarget: true})
		Fit(res, ts)
	}
}

func TestBlockers(t *testing.T) {
	vs := []Violation{
		{Path: "a", Namespace: "GLIBC", Required: "2.34", Allowed: "2.31", Symbols: []Ref{{Name: "f", Version: "GLIBC_2.32"}, {Name: "g", Version: "GLIBC_2.34"}}},
		{Path: "b", Namespace: "GLIBC", Required: "2.33", Allowed: "2.31", Symbols: []Ref{{Name: "f", Version: "GLIBC_2.32"}}},
		{Path: "a", Rule: RuleLibWhitelist, Library: "libfoo.so.1", Symbols: []Ref{{Name: "foo"}}},
	}
	got := Blockers(vs)
	if len(got) != 2 || got[0].Cause != "GLIBC 2.34 > 2.31" || got[0].Files != 2 ||
		strings.Join(refStrings(got[0].Symbols), " ") != "g@GLIBC_2.34 f@GLIBC_2.32" || got[1].Cause != "libfoo.so.1 (not in lib_whitelist)" {
		t.Errorf("%+v", got)
	}
}
