package ranges

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/abifloor/abifloor/abi"
	"github.com/abifloor/abifloor/ranges/table"
)

func sampleTable(t testing.TB) *table.Table {
	t.Helper()
	i := &abi.Type{Ref: "int"}
	l := &abi.Type{Ref: "long"}
	a := structABI(8, abi.Member{Name: "x", Type: i}, abi.Member{Name: "y", Offset: 4, Type: i})
	b := structABI(16, abi.Member{Name: "x", Type: i}, abi.Member{Name: "y", Offset: 8, Type: l})
	_, err := New([]string{"struct s"}, []Version{
		{Name: "535.104.05", ABI: a}, {Name: "535.113.01", ABI: a}, {Name: "545.23.06", ABI: b},
		{Name: "550.54.14", ABI: a}, {Name: "550.90.07", ABI: a}, {Name: "v1.0.0-rc1\"</script>", ABI: b},
	})
	if err == nil {
		t.Fatal("a version with a quote and a tag was accepted")
	}
	tab, err := New([]string{"struct s"}, []Version{
		{Name: "535.104.05", ABI: a}, {Name: "535.113.01", ABI: a}, {Name: "545.23.06", ABI: b},
		{Name: "550.54.14", ABI: a}, {Name: "550.90.07", ABI: a}, {Name: "555.42.02", ABI: b},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := tab.MarkFailed("550.60.01"); err != nil {
		t.Fatal(err)
	}
	return tab
}

// A fingerprint read from a table cannot drive the terminal.
func TestWriteTextCleansFingerprint(t *testing.T) {
	tab, err := ReadJSON("t.json", []byte(`{"ranges":[{"first":"1","last":"1","versions":["1"],"fingerprint":"\u001b]0;x\u0007\n::error::"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteText(&b, tab); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(b.String(), "\x1b\x07") || strings.Count(b.String(), "\n") != 2 {
		t.Errorf("fingerprint not cleaned: %q", b.String())
	}
}

func TestWriteText(t *testing.T) {
	var b strings.Builder
	if err := WriteText(&b, sampleTable(t)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines, want a header and one per range:\n%s", len(lines), b.String())
	}
	for i, want := range []string{
		"range  first       last        versions  fingerprint   changes",
		"0      535.104.05  535.113.01  2 ",
		"1      545.23.06   545.23.06   1 ",
		"2      550.54.14   550.90.07   2 ",
		"3      555.42.02   555.42.02   1 ",
	} {
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("line %d: %q, want prefix %q", i, lines[i], want)
		}
	}
	if !strings.Contains(lines[2], "struct s: size 8 -> 16; struct s: y.offset 4 -> 8; struct s: y.type int -> long") {
		t.Errorf("range 1 changes: %q", lines[2])
	}
	if !strings.Contains(lines[3], "same as range 0 (reverted)") || !strings.Contains(lines[4], "same as range 1") {
		t.Errorf("same_as marks missing:\n%s", b.String())
	}
}

// TestWriteGo compiles the Go table in a module of its own, with a program
// that searches it, and runs go vet on it.
func TestWriteGo(t *testing.T) {
	needTools(t, "go")
	dir := t.TempDir()
	var b strings.Builder
	if err := WriteGo(&b, sampleTable(t), "nvranges"); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod":            "module example.com/m\n\ngo 1.21\n",
		"nvranges/table.go": b.String(),
		"nvranges/table_test.go": `package nvranges

import "testing"

func TestTable(t *testing.T) {
	if len(ABIRanges) != 4 || ABIRanges[2].SameAs != 0 || ABIRanges[0].SameAs != -1 || ABIRanges[3].Versions[0] != "555.42.02" {
		t.Fatalf("%+v", ABIRanges)
	}
	if len(ABITypes) != 1 || ABITypes[0] != "struct s" || len(ABIFailed) != 1 {
		t.Fatal(ABITypes, ABIFailed)
	}
}
`,
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"vet", "./..."}, {"test", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOPROXY=off", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %v: %v\n%s\n%s", args, err, out, b.String())
		}
	}
	if out, err := exec.Command("gofmt", "-l", dir).CombinedOutput(); err == nil && len(out) > 0 {
		t.Errorf("generated Go is not gofmt'ed: %s", out)
	}
	if err := WriteGo(&b, sampleTable(t), "not a name"); err == nil {
		t.Error("a package name with spaces was accepted")
	}
}

func TestWriteHTML(t *testing.T) {
	var b strings.Builder
	if err := WriteHTML(&b, sampleTable(t), "ranges of <struct s> & co"); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<title>ranges of &lt;struct s&gt; &amp; co</title>", `"First":"535.104.05"`, `"SameAs":0`, "data-rendered"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// Self-contained: nothing is fetched.
	for _, bad := range []string{"src=", "href=", "http://", "https://", "@import", "url("} {
		if strings.Contains(strings.ReplaceAll(page, `"http://www.w3.org/2000/svg"`, ""), bad) {
			t.Errorf("page refers outside itself: %q", bad)
		}
	}
}

// Names from a table are data: a type name holding U+FEFF, a change text
// with a newline and "*/", a fingerprint with a quote must not stop the Go
// file compiling (issue 19, item 17), and the file's Lookup answers as
// package table's does.
func TestWriteGoHostileNames(t *testing.T) {
	needTools(t, "go")
	tab, err := ReadJSON("t.json", []byte(`{"types":["\ufeffNVOS\u202e","x\ny"],"ranges":[
		{"first":"1.0","last":"1.4","versions":["1.0","1.2","1.4"],"fingerprint":"a\"b\\c","changes":[]},
		{"first":"2.0","last":"3.0","versions":["2.0","3.0"],"fingerprint":"\ufeff","changes":[{"type":"struct \ufeffs","path":"*/ x\n::error::","old":"1","new":"2","compatible":false}]},
		{"first":"4.0-rc1","last":"v4.1","versions":["4.0-rc1","v4.1"],"fingerprint":"c","changes":[]}],"failed":["2.5"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteGo(&b, tab, "nvranges"); err != nil {
		t.Fatal(err)
	}
	for _, r := range b.String() {
		if r > 0x7e || r < ' ' && r != '\n' && r != '\t' {
			t.Fatalf("generated file holds %U", r)
		}
	}
	probes := []string{"0.9", "1.0", "1.1", "1.4", "1.5", "2.0", "2.4", "2.5", "2.7", "3.0", "4.0-rc0", "4.0-rc1", "4.0", "v4.1", "4.1.0", "5"}
	var cases strings.Builder
	for _, v := range probes {
		a, _ := tab.Lookup(v)
		want := ""
		if a.Covered {
			want = a.Range.First
		}
		fmt.Fprintf(&cases, "\t\t{%q, %q},\n", v, want)
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":            "module example.com/m\n\ngo 1.21\n",
		"nvranges/table.go": b.String(),
		"nvranges/table_test.go": `package nvranges

import "testing"

func TestLookup(t *testing.T) {
	for _, c := range []struct{ v, first string }{
` + cases.String() + `	} {
		r, ok := Lookup(c.v)
		if ok != (c.first != "") || ok && r.First != c.first {
			t.Errorf("Lookup(%s) = %v, %v; want %q", c.v, r.First, ok, c.first)
		}
	}
	if ABITypes[0] != "\ufeffNVOS\u202e" || ABIRanges[1].Changes[0] != "struct \ufeffs: */ x\n::error:: 1 -> 2" {
		t.Errorf("%q %q", ABITypes, ABIRanges[1].Changes)
	}
}
`,
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"vet", "./..."}, {"test", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOPROXY=off", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %v: %v\n%s\n%s", args, err, out, b.String())
		}
	}
}

// The page's script decodes JSON's escapes, so the names it shows must
// already be clean: a type or change with U+202E would display reordered
// ("x\u202efdp" read as "xpdf"), one with U+2028 broken. Clean writes
// them as visible escapes, which JSON then carries as \\u202e.
func TestWriteHTMLHostileNames(t *testing.T) {
	tab, err := ReadJSON("t.json", []byte(`{"types":["NVOS\u202e"],"ranges":[
		{"first":"1.0","last":"1.4","versions":["1.0","1.4"],"fingerprint":"a","changes":[{"type":"struct s\u2066","path":"p\u2028","old":"1","new":"2","compatible":false}]}],"failed":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteHTML(&b, tab, "t\u202eitle"); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"\u202e", "\u2028", "\u2066"} {
		if strings.Contains(page, bad) {
			t.Errorf("page holds %+q raw", bad)
		}
	}
	// In the data the script decodes, the escape is text ("\\u202e"),
	// not a JSON escape the script would turn back into the character.
	for _, want := range []string{`"NVOS\\u202e"`, `<title>t\u202eitle</title>`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
}
