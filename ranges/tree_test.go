package ranges

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDirective(t *testing.T) {
	for line, want := range map[string]dir{
		`#include "a.h"`:                     {kind: "include", name: "a.h", quoted: true},
		`  #  include <sys/x.h> // c`:        {kind: "include", name: "sys/x.h"},
		`# /* c */ include_next "/abs"`:      {kind: "include", name: "/abs", quoted: true},
		`%:import "x"`:                       {kind: "include", name: "x", quoted: true},
		`#embed "/dev/zero"`:                 {kind: "include", name: "/dev/zero", quoted: true},
		`#include MACRO`:                     {kind: "include", macro: "MACRO"},
		`#define P "/etc/passwd"`:            {kind: "define", name: "/etc/passwd", quoted: true, macro: "P"},
		`#define F(x) "/etc/passwd"`:         {},
		`int x; #include "/x"`:               {},
		`// #include "/x"`:                   {},
		`#includes "/x"`:                     {},
		`#include "unterminated`:             {kind: "include"},
		"#include \"/a\" /* open comment \n": {kind: "include", name: "/a", quoted: true},
	} {
		got, _ := directive([]byte(line), false)
		if got != want {
			t.Errorf("%q: %+v, want %+v", line, got, want)
		}
	}
	if d, open := directive([]byte(`/* #include "/x"`), false); d.name != "" || !open {
		t.Errorf("a comment's start: %+v, open %v", d, open)
	}
	if d, open := directive([]byte(`#include "/x" */`), true); d.name != "" || open {
		t.Errorf("inside a comment: %+v, open %v", d, open)
	}
}

// includes over a whole file: continuation lines join, comments span
// lines, and a line of any length is read to its end.
func TestIncludes(t *testing.T) {
	tr := fuzzTree(t)
	for body, refused := range map[string]bool{
		"#include \\\n\"/etc/passwd\"\n":                     true,
		"/*\n#include \"/etc/passwd\"\n*/\n":                 false,
		strings.Repeat("x", 1<<20) + "\n#include \"/abs\"\n": true,
		"#define P </dev/zero>\n#include P\n":                true,
		"#include \"sub/../a.h\"\n#include <stddef.h>\n":     false,
		"#include \"../../x.h\"\n":                           true,
		"#include \"../x.h\"\n":                              false, // inc/../x.h: the tree's top
	} {
		tr.defines, tr.computed = nil, nil
		err := tr.includes(filepath.Join(tr.incs[0], "a.h"), strings.NewReader(body))
		if err == nil {
			err = tr.checkComputed()
		}
		var te *TreeError
		if (err != nil) != refused || err != nil && !errors.As(err, &te) {
			t.Errorf("%.40q: %v, refused %v", body, err, refused)
		}
	}
}

func fuzzTree(t testing.TB) *tree {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "inc", "sub"), 0o755)
	os.WriteFile(filepath.Join(root, "inc", "a.h"), nil, 0o644)
	tr, err := newTree(root, []string{"inc"})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// FuzzIncludes feeds any header to the directive reader: it never
// panics, refuses only with a *TreeError, and always refuses a plain
// #include of an absolute name.
func FuzzIncludes(f *testing.F) {
	for _, s := range []string{"#include \"a.h\"\n", "#include \\\n\"/x\"\n", "/* a\n#include \"/x\" */\n#define P \"/y\"\n#include P\n",
		"%:include <../../../x>\n", "#include \"sub/../../../z\"\r\n", "# define Q <x>\n#include_next Q\n"} {
		f.Add([]byte(s))
	}
	tr := fuzzTree(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		tr.defines, tr.computed = nil, nil
		err := tr.includes(filepath.Join(tr.incs[0], "a.h"), bytes.NewReader(b))
		if err == nil {
			err = tr.checkComputed()
		}
		var te *TreeError
		if err != nil && !errors.As(err, &te) {
			t.Fatalf("untyped error %v", err)
		}
		if n, ok := bytes.CutPrefix(b, []byte("#include \"/")); ok && err == nil {
			if i := bytes.IndexByte(n, '"'); i >= 0 && !bytes.ContainsAny(n[:i], "\n\\") {
				t.Fatalf("%q: an absolute #include passed", b)
			}
		}
	})
}

// FuzzDirective holds directive to directiveRef, the reader as it was
// before its comment scan went from one '/' to the next: the same
// directive and the same comment state for any line.
func FuzzDirective(f *testing.F) {
	for _, s := range []string{`#include "a.h" /* x`, `a /* b */ c // d`, `*/ #define P "/x"`, `# /* */ include <x> /`, "a/\n", "//", "/*/", "x/*/ */"} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, line []byte, comment bool) {
		d, c := directive(line, comment)
		rd, rc := directiveRef(line, comment)
		if d != rd || c != rc {
			t.Fatalf("%q (comment %v): %+v %v, reference %+v %v", line, comment, d, c, rd, rc)
		}
	})
}

// directiveRef is directive as it was first written: every byte of a
// line passed through skip.
func directiveRef(line []byte, comment bool) (dir, bool) {
	i := 0
	// skip passes spaces and comments; it reports false at the end of
	// the line or a // comment.
	skip := func() bool {
		for i < len(line) {
			switch {
			case comment:
				if j := bytes.Index(line[i:], []byte("*/")); j >= 0 {
					i += j + 2
					comment = false
				} else {
					i = len(line)
				}
			case line[i] == ' ' || line[i] == '\t' || line[i] == '\f' || line[i] == '\v' || line[i] == '\r' || line[i] == '\n':
				i++
			case bytes.HasPrefix(line[i:], []byte("/*")):
				i += 2
				comment = true
			case bytes.HasPrefix(line[i:], []byte("//")):
				i = len(line)
				return false
			default:
				return true
			}
		}
		return false
	}
	// rest finds whether a block comment stays open past the line.
	rest := func() bool {
		for i < len(line) {
			if !skip() {
				break
			}
			i++
		}
		return comment
	}
	ident := func() string {
		j := i
		for j < len(line) && (line[j] == '_' || line[j] >= 'a' && line[j] <= 'z' || line[j] >= 'A' && line[j] <= 'Z' || j > i && line[j] >= '0' && line[j] <= '9') {
			j++
		}
		id := string(line[i:j])
		i = j
		return id
	}
	// quotedName reads "name" or <name> at i.
	quotedName := func() (string, bool, bool) {
		end := byte('"')
		switch line[i] {
		case '"':
		case '<':
			end = '>'
		default:
			return "", false, false
		}
		k := bytes.IndexByte(line[i+1:], end)
		if k < 0 {
			return "", false, false
		}
		n := string(line[i+1 : i+1+k])
		i += k + 2
		return n, end == '"', true
	}
	var d dir
	if !skip() {
		return d, comment
	}
	switch {
	case line[i] == '#':
		i++
	case bytes.HasPrefix(line[i:], []byte("%:")):
		i += 2
	default:
		return d, rest()
	}
	if !skip() {
		return d, comment
	}
	switch kw := ident(); kw {
	case "include", "include_next", "import", "embed":
		d.kind = "include"
		if !skip() {
			return d, comment
		}
		if n, q, ok := quotedName(); ok {
			d.name, d.quoted = n, q
		} else {
			d.macro = ident()
		}
	case "define":
		if !skip() {
			return d, comment
		}
		m := ident()
		if m == "" || i < len(line) && line[i] == '(' || !skip() {
			return d, rest()
		}
		if n, q, ok := quotedName(); ok {
			d = dir{kind: "define", name: n, quoted: q, macro: m}
		}
	}
	return d, rest()
}
