package floor

import (
	"strings"
	"testing"
)

func TestSiteSourceIn(t *testing.T) {
	in := []Inline{{Function: "put", File: "/ws/src/a.c", Line: 10}}
	for _, tc := range []struct {
		name string
		site Site
		file string
		line int
		ok   bool
	}{
		{"inside", Site{File: "/ws/src/a.c", Line: 3}, "src/a.c", 3, true},
		{"outside", Site{File: "/other/a.c", Line: 3}, "", 0, false},
		{"a sibling with the root as prefix", Site{File: "/wsx/a.c", Line: 3}, "", 0, false},
		{"dot-dot out of the root", Site{File: "/ws/../etc/a.c", Line: 3}, "", 0, false},
		{"relative (-fdebug-prefix-map=DIR=.)", Site{File: "src/a.c", Line: 4}, "src/a.c", 4, true},
		{"relative, climbing out", Site{File: "../a.c", Line: 4}, "", 0, false},
		{"no line", Site{File: "/ws/a.c"}, "", 0, false},
		{"a header's inline wrapper: the line that called it", Site{File: "/usr/include/x86_64-linux-gnu/bits/stdio2.h", Line: 79, Inlined: in}, "src/a.c", 10, true},
		{"no file", Site{Function: "main"}, "", 0, false},
	} {
		f, l, ok := tc.site.SourceIn("/ws")
		if f != tc.file || l != tc.line || ok != tc.ok {
			t.Errorf("%s: SourceIn = %q, %d, %v; want %q, %d, %v", tc.name, f, l, ok, tc.file, tc.line, tc.ok)
		}
	}
	if _, _, ok := (Site{File: "/ws/a.c", Line: 1}).SourceIn(""); ok {
		t.Error("no root: nothing is inside it")
	}
}

func TestSiteText(t *testing.T) {
	for _, tc := range []struct {
		site Site
		want string
	}{
		{Site{Function: "main", File: "/ws/app.c", Line: 7}, "main (app.c:7)"},
		{Site{Function: "main", File: "/elsewhere/app.c", Line: 7}, "main (/elsewhere/app.c:7)"},
		{Site{Function: "_start", Address: "0x1040"}, "_start"},
		{Site{Address: "0x1040"}, "0x1040"},
		{Site{Function: "copy", File: "/ws/s.c", Line: 5, Inlined: []Inline{{Function: "put", File: "/ws/s.c", Line: 10}}}, "copy (s.c:5; put inlined at s.c:10)"},
	} {
		if got := tc.site.Text("/ws"); got != tc.want {
			t.Errorf("Text = %q, want %q", got, tc.want)
		}
	}
}

func TestSourceLineTitle(t *testing.T) {
	sym := Ref{Name: "arc4random", Version: "GLIBC_2.36"}
	for _, tc := range []struct {
		v    Violation
		want string
	}{
		{Violation{Namespace: "GLIBC", Required: "2.36", Allowed: "2.31", Target: "debian-11"}, "arc4random@GLIBC_2.36 raises the glibc floor to 2.36 > debian-11's 2.31"},
		{Violation{Namespace: "GLIBC", Required: "2.38", Allowed: "2.35", Target: "ubuntu-22.04"}, "arc4random@GLIBC_2.36 raises the glibc floor to 2.36 > ubuntu-22.04's 2.35"},
		{Violation{Namespace: "GLIBC", Required: "2.36", Allowed: "2.31", Target: "--max"}, "arc4random@GLIBC_2.36 raises the glibc floor to 2.36 > 2.31 (--max)"},
		{Violation{Namespace: "GLIBC", Required: "2.36", Allowed: "2.34", Rule: RuleClaim, Target: "Depends: libc6 (>= 2.34)"}, "arc4random@GLIBC_2.36 raises the glibc floor to 2.36 > 2.34 (Depends: libc6 (>= 2.34))"},
		{Violation{Rule: RuleBlacklist, Library: "libc.so.6", Target: "manylinux_2_17"}, "arc4random@GLIBC_2.36: uses symbols of libc.so.6 that manylinux_2_17 forbids (blacklist)"},
	} {
		sl := &sourceLine{v: &tc.v, attr: &Attribution{Symbol: sym}}
		if got := sl.title(); got != tc.want {
			t.Errorf("title = %q, want %q", got, tc.want)
		}
	}
}

// TestSourceLines: a line used by two programs is one finding naming
// both; a violation is placed whole only when every symbol is used at a
// line of the checkout.
func TestSourceLines(t *testing.T) {
	site := Site{Function: "main", File: "/ws/a.c", Line: 3}
	arc := Ref{Name: "arc4random", Version: "GLIBC_2.36"}
	start := Ref{Name: "__libc_start_main", Version: "GLIBC_2.34"}
	vs := []Violation{
		{Path: "bin/a", Namespace: "GLIBC", Required: "2.36", Allowed: "2.31", Symbols: []Ref{arc}, Attribution: []Attribution{{Symbol: arc, Sites: []Site{site}}}},
		{Path: "bin/b", Namespace: "GLIBC", Required: "2.36", Allowed: "2.31", Symbols: []Ref{arc, start},
			Attribution: []Attribution{{Symbol: arc, Sites: []Site{site}}, {Symbol: start, Sites: []Site{{Function: "_start"}}}}},
		{Path: "bin/c", Namespace: "GLIBC", Required: "2.36", Allowed: "2.31", Symbols: []Ref{arc}},
	}
	lines, whole := sourceLines(vs, "/ws")
	if len(lines) != 1 || lines[0].file != "a.c" || lines[0].line != 3 || strings.Join(lines[0].where, ", ") != "main in bin/a, main in bin/b" {
		t.Fatalf("lines = %+v", lines)
	}
	if !whole[0] || whole[1] || whole[2] {
		t.Errorf("whole = %v, want [true false false]", whole)
	}
}
