package report

import (
	"strings"
	"testing"
)

func TestClean(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"/usr/lib/libc.so.6", "/usr/lib/libc.so.6"},
		{"operator<<(std::ostream&)", "operator<<(std::ostream&)"},
		{`back\slash`, `back\slash`},
		{"naïve_ünïcode_名前", "naïve_ünïcode_名前"},
		{"evil.c\n::error file=evil.c,line=1::INJECTED", `evil.c\n::error file=evil.c,line=1::INJECTED`},
		{"a\r\tb", `a\r\tb`},
		{"title\x1b]0;pwned\x07", `title\x1b]0;pwned\x07`},
		{"clear\x1b[2J", `clear\x1b[2J`},
		{"nul\x00del\x7f", `nul\x00del\x7f`},
		{"csi\u009b2J", `csi\u009b2J`},
		{"bad\xffutf8\xc3", `bad\xffutf8\xc3`},
		{"rlo\u202egnp.exe", `rlo\u202egnp.exe`},
		{"isolate\u2066x\u2069", `isolate\u2066x\u2069`},
		{"ls\u2028x", `ls\u2028x`},
	} {
		if got := Clean(c.in); got != c.want {
			t.Errorf("Clean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestCleanNoControls checks the property the callers rely on: whatever
// the input, the output holds no byte below 0x20, no DEL and no C1 or
// bidirectional control.
func TestCleanNoControls(t *testing.T) {
	var all strings.Builder
	for c := 0; c < 256; c++ {
		all.WriteByte(byte(c))
	}
	for r := rune(0x80); r < 0x3000; r++ {
		all.WriteRune(r)
	}
	out := Clean(all.String())
	for i, r := range out {
		if needsEscape(r, len(string(r))) {
			t.Fatalf("Clean left %U at %d", r, i)
		}
	}
}

func FuzzClean(f *testing.F) {
	f.Add("evil.c\n::error::x\x1b[2J\xff\u202e")
	f.Fuzz(func(t *testing.T, s string) {
		out := Clean(s)
		for _, r := range out {
			if needsEscape(r, len(string(r))) && r != 0xfffd {
				t.Fatalf("Clean(%q) = %q keeps %U", s, out, r)
			}
		}
	})
}

// TestAnnotationInjection: a file name that holds a newline and a workflow
// command stays on the annotation's one line.
func TestAnnotationInjection(t *testing.T) {
	var b strings.Builder
	evil := "evil.c\n::error file=evil.c,line=1::INJECTED"
	WriteAnnotation(&b, Annotation{Level: "error", File: evil, Title: evil, Message: evil})
	out := b.String()
	if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") || strings.Contains(out, "\n::") {
		t.Fatalf("annotation split into several lines: %q", out)
	}
}
