package shellwords

import (
	"bytes"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var splitCases = []struct {
	in   string
	want []string
	glob []bool
}{
	{"", nil, nil},
	{"  \n\t ", nil, nil},
	{"--exclude 'app*'", []string{"--exclude", "app*"}, []bool{false, false}},
	{"--exclude app*", []string{"--exclude", "app*"}, []bool{false, true}},
	{`--exclude "a b" c\ d`, []string{"--exclude", "a b", "c d"}, nil},
	{"a\r\nb\r\n", []string{"a", "b"}, nil},
	{"''", []string{""}, nil},
	{`x''y "q"'r'`, []string{"xy", "qr"}, nil},
	{`"a\"b\\c\d"`, []string{`a"b\c\d`}, nil},
	{`'a\b'`, []string{`a\b`}, nil},
	{"a\\\nb", []string{"ab"}, nil},
	{"dist/*.so*", []string{"dist/*.so*"}, []bool{true}},
	{"'dist/*.so'", []string{"dist/*.so"}, []bool{false}},
	{"a#b c~d", []string{"a#b", "c~d"}, nil},
	{"--max=GLIBC=2.35 --target debian-11", []string{"--max=GLIBC=2.35", "--target", "debian-11"}, nil},
	{"'$HOME' '`x`' ';|&<>(){}'", []string{"$HOME", "`x`", ";|&<>(){}"}, nil},
}

func TestSplit(t *testing.T) {
	for _, c := range splitCases {
		ws, err := Split(c.in)
		if err != nil {
			t.Errorf("Split(%q): %v", c.in, err)
			continue
		}
		if got := Texts(ws); !slices.Equal(got, c.want) {
			t.Errorf("Split(%q) = %q, want %q", c.in, got, c.want)
		}
		for i, g := range c.glob {
			if i < len(ws) && ws[i].Glob != g {
				t.Errorf("Split(%q)[%d].Glob = %v", c.in, i, ws[i].Glob)
			}
		}
	}
}

// TestSplitAsBash: where Split accepts the text, bash (globbing off)
// splits it into the same words.
func TestSplitAsBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	for _, c := range splitCases {
		if strings.Contains(c.in, "\r") {
			continue // bash keeps a CR in the word; Split reads it as white space
		}
		cmd := exec.Command(bash, "-c", "set -f; printf '%s\\0' "+c.in)
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("bash on %q: %v", c.in, err)
			continue
		}
		var want []string
		if len(out) > 0 && len(c.want) > 0 {
			want = strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		}
		if got := Texts(mustSplit(t, c.in)); !slices.Equal(got, want) {
			t.Errorf("Split(%q) = %q, bash says %q", c.in, got, want)
		}
	}
}

func mustSplit(t *testing.T, s string) []Word {
	ws, err := Split(s)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestSplitRefuses(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"--exclude $PAT", `at byte 11: "$"`},
		{`"$(id)"`, `at byte 2: "$" in double quotes`},
		{"a `id`", `at byte 3: "`},
		{"a; rm -rf /", `at byte 2: ";" is a shell operator`},
		{"a|b", `"|" is a shell operator`},
		{"a && b", `"&"`},
		{"x >out", `">"`},
		{"dist/{a,b}.so", `"{" would be brace-expanded`},
		{"~/dist", `"~" starting a word`},
		{"a # note", `"#" starting a word`},
		{"'open", "at byte 1: a single quote is not closed"},
		{`x "open`, "at byte 3: a double quote is not closed"},
		{`end\`, "a backslash ends the text"},
	} {
		_, err := Split(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Split(%q): %v, want %q", c.in, err, c.want)
		}
	}
}

// TestPattern: quoted glob characters match themselves, unquoted ones
// are wildcards.
func TestPattern(t *testing.T) {
	for _, c := range []struct {
		in, name string
		match    bool
	}{
		{"dist/*.so*", "dist/libx.so.1", true},
		{"'dist/*.so'", "dist/libx.so", false},
		{"'dist/*.so'", "dist/*.so", true},
		{`dist/"[ab]"*`, "dist/[ab]x", true},
		{`dist/"[ab]"*`, "dist/ax", false},
		{`a\*b`, "a*b", true},
		{`a\*b`, "axb", false},
		{`'a\b'`, `a\b`, true},
	} {
		w := mustSplit(t, c.in)[0]
		ok, err := path.Match(w.Pattern, c.name)
		if err != nil || ok != c.match {
			t.Errorf("%q: Match(%q, %q) = %v, %v; want %v", c.in, w.Pattern, c.name, ok, err, c.match)
		}
	}
}

// FuzzSplit: no panic; every word, quoted back with single quotes and
// split again, is the same word; a pattern matches its own text.
func FuzzSplit(f *testing.F) {
	for _, c := range splitCases {
		f.Add(c.in)
	}
	f.Add(`"a\"b" 'c'\'' d' e\ f`)
	f.Fuzz(func(t *testing.T, s string) {
		ws, err := Split(s)
		if err != nil {
			return
		}
		var b bytes.Buffer
		for _, w := range ws {
			b.WriteString("'" + strings.ReplaceAll(w.Text, "'", `'\''`) + "' ")
		}
		again, err := Split(b.String())
		if err != nil {
			t.Fatalf("requoted %q: %v", b.String(), err)
		}
		if !slices.Equal(Texts(again), Texts(ws)) {
			t.Fatalf("%q: %q, requoted %q", s, Texts(ws), Texts(again))
		}
		for _, w := range again {
			if w.Glob {
				t.Fatalf("%q: a quoted word is a glob", w.Text)
			}
			if !strings.Contains(w.Text, "/") {
				if ok, err := path.Match(w.Pattern, w.Text); err != nil || !ok {
					t.Fatalf("pattern %q of a quoted word does not match %q: %v", w.Pattern, w.Text, err)
				}
			}
		}
	})
}

// TestPaths: patterns are expanded, a pattern that matches nothing and
// ** are errors, and no word is the default.
func TestPaths(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.so", "b.so", "c.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Paths("'" + dir + "'/*.so x")
	if err != nil || len(got) != 3 || got[0] != filepath.Join(dir, "a.so") || got[2] != "x" {
		t.Errorf("Paths = %q, %v", got, err)
	}
	if got, err := Paths("", "."); err != nil || len(got) != 1 || got[0] != "." {
		t.Errorf("no word: %q, %v", got, err)
	}
	for _, s := range []string{"'" + dir + "'/*.none", "'" + dir + "'/**/x"} {
		if _, err := Paths(s); err == nil {
			t.Errorf("Paths(%q): no error", s)
		}
	}
}
