package report

import (
	"strings"
	"testing"
)

func TestMarkdownText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"GLIBC 2.14 > 2.12 (--max)", "GLIBC 2.14 > 2.12 (--max)"},
		{"<img src=x>_1.0", "&#60;img src=x>&#95;1.0"},
		{"a|b", "a&#124;b"},
		{"`code`", "&#96;code&#96;"},
		{"[link](http://x) ![i](y)", "&#91;link&#93;(http://x) &#33;&#91;i&#93;(y)"},
		{"*b* ~s~ $x$ &amp; back\\slash", "&#42;b&#42; &#126;s&#126; &#36;x&#36; &#38;amp; back&#92;slash"},
		{"cr\r# heading", "cr&#92;r# heading"},
		{"lf\n| x |", "lf&#92;n&#124; x &#124;"},
		{"x\u202efdp", "x&#92;u202efdp"},
		{"::add-mask::x", "&#92;u003a:add-mask::x"},
	} {
		if got := MarkdownText(c.in); got != c.want {
			t.Errorf("MarkdownText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestMarkdownCode(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"bad/libnew.so", "`bad/libnew.so`"},
		{"a`b<img src=x>|c", "``a`b<img src=x>``&#124;`c`"},
		{"|a||b|", "&#124;`a`&#124;&#124;`b`&#124;"},
		{"``x", "``` ``x ```"},
		{"x`", "`` x` ``"},
		{" x ", "`  x  `"},
		{"cr\rhead", "`cr\\rhead`"},
	} {
		if got := MarkdownCode(c.in); got != c.want {
			t.Errorf("MarkdownCode(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestWriteMarkdown: one row per line whatever the names, every cell
// escaped, rows left out said.
func TestWriteMarkdown(t *testing.T) {
	var b strings.Builder
	WriteMarkdown(&b, MarkdownSummary{Title: "abifloor check", Verdict: "FAIL", Says: "some files need more than the limits allow.",
		Header: []string{"file", "floors", "violations"},
		Rows: [][]MarkdownCell{
			{{Text: "a`\r\n# h|<img>", Code: true}, {Text: "<img src=x> 1.0"}, {Text: ""}},
			{{Text: "ok.so", Code: true}},
		}, More: 3, Notes: []string{"--max GLIBCXX=3.4: checked nothing", "- <img src=x>\r# h", "12. x", "# h", "> q", "2 files"}})
	want := "## abifloor check\n\n**FAIL**: some files need more than the limits allow.\n\n" +
		"| file | floors | violations |\n| --- | --- | --- |\n" +
		"| ``a`\\r\\n# h``&#124;`<img>` | &#60;img src=x> 1.0 | - |\n" +
		"| `ok.so` | - | - |\n\nand 3 more (see the step's log).\n\n" +
		"- &#45;-max GLIBCXX=3.4: checked nothing\n- &#45; &#60;img src=x>&#92;r# h\n- 12&#46; x\n- &#35; h\n- &#62; q\n- 2 files\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}
