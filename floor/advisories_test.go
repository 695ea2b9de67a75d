package floor

import (
	"fmt"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/report"
)

// TestWriteAdvisories: a few warnings of libraries outside the base are
// listed one per file; many are said once per library, the most needed
// first, at most groupAdvisories of them; -v lists every file.
func TestWriteAdvisories(t *testing.T) {
	many := func(libs, files int) []Violation {
		var vs []Violation
		for l := range libs {
			for f := range files + l {
				vs = append(vs, Violation{Path: fmt.Sprintf("/bin/p%d", f), Rule: RuleNotInBase, Target: "debian-12", Library: fmt.Sprintf("lib%d.so.1", l)})
			}
		}
		return vs
	}
	tests := []struct {
		name    string
		advs    []Violation
		verbose bool
		lines   int
		has     []string
	}{
		{"few", many(2, 3), false, 7, []string{"WARN /bin/p0: needs lib0.so.1, which must come from the system"}},
		{"grouped", many(3, 10), false, 4, []string{"WARN 3 libraries outside the base system", "    lib2.so.1 (debian-12): needed by 12 files, e.g. /bin/p0\n    lib1.so.1"}},
		{"capped", many(25, 1), false, 22, []string{"    lib24.so.1 (debian-12): needed by 25 files", "    and 5 more (-v lists each file)\n"}},
		{"verbose", many(3, 10), true, 33, []string{"WARN /bin/p11: needs lib2.so.1"}},
		{"lazy kept", append(many(3, 10), Violation{Path: "/bin/nvml", Rule: RuleLazyUndefined, Target: "debian-12", Symbols: []Ref{{Name: "nvmlInit"}}}), false, 6, []string{"WARN /bin/nvml: ", "    needs nvmlInit"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			writeAdvisories(&b, tt.advs, report.Painter{}, tt.verbose)
			out := b.String()
			if n := strings.Count(out, "\n"); n != tt.lines {
				t.Errorf("%d lines, want %d:\n%s", n, tt.lines, out)
			}
			for _, h := range tt.has {
				if !strings.Contains(out, h) {
					t.Errorf("no %q in:\n%s", h, out)
				}
			}
		})
	}
}
