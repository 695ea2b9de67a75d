package report

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
	"unicode"
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
		// The runner's command syntax (issue 28): "::" after white space
		// at the start, "##[" anywhere; the escapes are Go's and JSON's.
		{"::add-mask::FORGED", `\u003a:add-mask::FORGED`},
		{"  ::error::x", `  \u003a:error::x`},
		{"\u00a0::error::x", "\u00a0\\u003a:error::x"},
		{"\u3000:x", "\u3000\\u003a" + "x"},
		{":\u00ad:add-mask::x", `\u003a\u00ad:add-mask::x`},
		{"a::b", "a::b"},
		{"std::ostream", "std::ostream"},
		{"x##[add-mask]FORGED", `x##\u005badd-mask]FORGED`},
		{"###[x", `###\u005bx`},
		{"#[x] #x[ ##x[", "#[x] #x[ ##x["},
		{"#\u200b#[x", `#\u200b#[x`},
		{"%0A::error::x", "%0A::error::x"},
		{"cr\r::error::x\n::warning::y", `cr\r::error::x\n::warning::y`},
		{"x\u202efdp.so", `x\u202efdp.so`},
		{"soft\u00adhyphen\ufeffbom\u2060wj", `soft\u00adhyphen\ufeffbom\u2060wj`},
		{"vs\ufe0f", `vs\ufe0f`},
		{"tag\U000e0041", `tag\U000e0041`},
		{"non\uffffchar", `non\uffffchar`},
		{"C#", "C#"},
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

// TestCleanShortens: a name past MaxShown keeps its ends and states its
// length (issue 28 item 9), and the output is bounded whatever the input.
func TestCleanShortens(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
	}{
		{strings.Repeat("a", MaxShown), strings.Repeat("a", MaxShown)},
		{strings.Repeat("a", 1<<20), strings.Repeat("a", MaxShown/2) + "…(1048576 bytes)…" + strings.Repeat("a", MaxShown/4)},
		// A cut does not split a character.
		{strings.Repeat("é", 1<<19), strings.Repeat("é", MaxShown/4) + "…(1048576 bytes)…" + strings.Repeat("é", MaxShown/8)},
	} {
		if got := Clean(c.in); got != c.want {
			t.Errorf("Clean(%d bytes) = %d bytes %.40q..., want %d bytes", len(c.in), len(got), got, len(c.want))
		}
	}
	worst := strings.Repeat("\u202e", 1<<18)
	if got := Clean(worst); len(got) > 6*MaxShown {
		t.Errorf("Clean of 768 KiB of U+202E is %d bytes", len(got))
	}
	if got := CleanLines("::a\n::b\r\n" + strings.Repeat("x", 2*MaxShown)); !strings.HasPrefix(got, `\u003a:a`+"\n"+`\u003a:b\r`+"\n") || len(got) > MaxShown+64 {
		t.Errorf("CleanLines = %.60q (%d bytes)", got, len(got))
	}
}

func FuzzClean(f *testing.F) {
	f.Add("evil.c\n::error::x\x1b[2J\xff\u202e")
	f.Add(" \u00a0::add-mask::x##[y]")
	f.Fuzz(func(t *testing.T, s string) {
		out := Clean(s)
		for _, r := range out {
			if needsEscape(r, len(string(r))) && r != 0xfffd {
				t.Fatalf("Clean(%q) = %q keeps %U", s, out, r)
			}
		}
		if isCommand(out) {
			t.Fatalf("Clean(%q) = %q is a workflow command", s, out)
		}
		if len(out) > 10*MaxShown {
			t.Fatalf("Clean of %d bytes is %d bytes", len(s), len(out))
		}
	})
}

// isCommand reports whether a line would be a workflow command by the
// runner's rules: "::" after white space, or "##[" anywhere, controls and
// invisible characters skipped.
func isCommand(line string) bool {
	var b strings.Builder
	for _, r := range line {
		if r < 0x20 || r == 0x7f || needsEscape(r, len(string(r))) && r != 0xfffd {
			continue
		}
		b.WriteRune(r)
	}
	s := b.String()
	return strings.HasPrefix(strings.TrimLeftFunc(s, unicode.IsSpace), "::") || strings.Contains(s, "##[")
}

// TestGuard: what a guarded stream lets through, write by write.
func TestGuard(t *testing.T) {
	for _, c := range []struct {
		name   string
		writes []string
		want   string
		acted  int
	}{
		{"plain", []string{"a: b\n", "std::x ##x\n"}, "a: b\nstd::x ##x\n", 0},
		{"leading", []string{"::add-mask::x\n"}, `\u003a:add-mask::x` + "\n", 1},
		{"indented", []string{"  \t::x\n"}, "  \t" + `\u003a:x` + "\n", 1},
		{"after CR", []string{"ok\r::x\n"}, "ok\r" + `\u003a:x` + "\n", 1},
		{"across writes", []string{"  ", ":", ":x\n"}, "  " + `\u003a:x` + "\n", 1},
		{"legacy", []string{"a ##[add-mask]x\n"}, `a ##\u005badd-mask]x` + "\n", 1},
		{"legacy across writes", []string{"a #", "#", "[x\n"}, `a ##\u005bx` + "\n", 1},
		{"NUL inside", []string{":\x00:x #\x01#[y\n"}, `\u003a` + "\x00:x #\x01#" + `\u005by` + "\n", 2},
		{"bidi", []string{"x\u202efdp\n"}, `x\u202efdp` + "\n", 1},
		{"bidi split", []string{"x\xe2\x80", "\xaey\n"}, `x\u202ey` + "\n", 1},
		{"beyond BMP", []string{"\U000e0041\n"}, `\udb40\udc41` + "\n", 1},
		{"soft hyphen inside", []string{":\u00ad:x\n"}, `\u003a\u00ad:x` + "\n", 2},
		{"colour", []string{"\x1b[31mFAIL\x1b[0m x\n"}, "\x1b[31mFAIL\x1b[0m x\n", 0},
		{"progress", []string{"\r3 files\x1b[K", "\r\x1b[K"}, "\r3 files\x1b[K\r\x1b[K", 0},
		{"JSON", []string{`  "name": "x##[y\u2028"` + "\n"}, `  "name": "x##\u005by\u2028"` + "\n", 1},
		{"JSON raw bidi", []string{`  "k": "a\\` + "\u202e\"\n"}, `  "k": "a\\\u202e"` + "\n", 1},
		{"cut character at the end", []string{"x\xe2\x80"}, `x\xe2\x80`, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			g := NewGuard(&b)
			for _, w := range c.writes {
				if n, err := g.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			g.Flush()
			if b.String() != c.want || g.Neutralised() != c.acted {
				t.Errorf("got %q (%d escaped), want %q (%d)", b.String(), g.Neutralised(), c.want, c.acted)
			}
			if c.name == "JSON" || c.name == "JSON raw bidi" {
				var v any
				if err := json.Unmarshal([]byte("{"+b.String()+"}"), &v); err != nil {
					t.Errorf("not JSON any more: %v", err)
				}
			}
		})
	}
}

// TestGuardCommand: an annotation written through WriteCommand passes as
// the one command line; a forged one in text does not.
func TestGuardCommand(t *testing.T) {
	var b strings.Builder
	g := NewGuard(&b)
	WriteAnnotation(g, Annotation{Level: "error", File: "a.so", Title: "::t##[x]", Message: "m\n::error::FORGED ##[add-mask]x \u202e"})
	io.WriteString(g, "::error::FORGED\n")
	g.WriteCommand("::error::two\nlines\n")
	want := "::error file=a.so,title=\\u003a%3At##\\u005bx]::m%0A\\u003a:error::FORGED ##\\u005badd-mask]x \\u202e\n" +
		"\\u003a:error::FORGED\n" +
		"\\u003a:error::two\nlines\n"
	if b.String() != want || g.Commands() != 1 {
		t.Errorf("got %d commands:\n%s\nwant 1:\n%s", g.Commands(), b.String(), want)
	}
}

// FuzzGuard: whatever is written, in whatever pieces, no output line is
// a command and no invisible character passes; plain text passes as is.
func FuzzGuard(f *testing.F) {
	f.Add("::add-mask::x\n#\x00#[y\r \u00a0::z\u202e", 3)
	f.Fuzz(func(t *testing.T, s string, cut int) {
		var b strings.Builder
		g := NewGuard(&b)
		if cut < 0 {
			cut = -cut
		}
		cut %= len(s) + 1
		g.Write([]byte(s[:cut]))
		g.Write([]byte(s[cut:]))
		g.Flush()
		for _, line := range strings.FieldsFunc(b.String(), func(r rune) bool { return r == '\n' || r == '\r' }) {
			if isCommand(line) {
				t.Fatalf("%q gave the command line %q", s, line)
			}
			for _, r := range line {
				if r >= 0x80 && needsEscape(r, len(string(r))) && r != 0xfffd {
					t.Fatalf("%q kept %U", s, r)
				}
			}
		}
		if g.Neutralised() == 0 && b.String() != s {
			t.Fatalf("%q changed to %q with nothing escaped", s, b.String())
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
