package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestParseFormat(t *testing.T) {
	if f, err := ParseFormat("json", Text, JSON); err != nil || f != JSON {
		t.Fatalf("ParseFormat(json) = %q, %v", f, err)
	}
	if _, err := ParseFormat("github", Text, JSON); err == nil {
		t.Fatal("github accepted where only text and json are allowed")
	}
}

func TestAnnotationEscapes(t *testing.T) {
	var b bytes.Buffer
	WriteAnnotation(&b, Annotation{Level: "error", File: "a,b:c", Title: "GLIBC 2.38 > 2.36", Message: "50%\nnext"})
	want := "::error file=a%2Cb%3Ac,title=GLIBC 2.38 > 2.36::50%25%0Anext\n"
	if b.String() != want {
		t.Fatalf("got %q\nwant %q", b.String(), want)
	}
}

// TestAnnotationLine: a line goes with its file, never alone: a file
// left out (Clean would change it) takes its line with it.
func TestAnnotationLine(t *testing.T) {
	var b strings.Builder
	WriteAnnotation(&b, Annotation{Level: "error", File: "src/a.c", Line: 42, Title: "t", Message: "m"})
	WriteAnnotation(&b, Annotation{Level: "error", File: "src/\u202ea.c", Line: 42, Title: "t", Message: "m"})
	want := "::error file=src/a.c,line=42,title=t::m\n::error title=t::src/\\u202ea.c: m\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

func TestUseColor(t *testing.T) {
	env := map[string]string{}
	get := func(k string) string { return env[k] }
	if !UseColor(true, get) || UseColor(false, get) {
		t.Fatal("colour should follow the terminal")
	}
	env["NO_COLOR"] = "1"
	if UseColor(true, get) {
		t.Fatal("NO_COLOR must switch colour off")
	}
	env["FORCE_COLOR"] = "1"
	if UseColor(true, get) {
		t.Fatal("NO_COLOR wins over FORCE_COLOR")
	}
	delete(env, "NO_COLOR")
	if !UseColor(false, get) {
		t.Fatal("FORCE_COLOR colours a pipe")
	}
	env["FORCE_COLOR"] = "0"
	if UseColor(false, get) {
		t.Fatal("FORCE_COLOR=0 forces nothing")
	}
}

// TestParseFormatClean: a format value from a CI input cannot forge a
// workflow command in the error.
func TestParseFormatClean(t *testing.T) {
	_, err := ParseFormat("x\n::add-mask::y##[z]", Text, JSON)
	if err == nil || err.Error() != `unknown format "x\n::add-mask::y##\u005bz]" (want text, json)` {
		t.Errorf("ParseFormat: %v", err)
	}
}

// WriteJSON streams a long top-level array element by element, and the
// bytes are those of one encoding: promoted through an embedded pointer,
// with MarshalJSON elements, HTML left unescaped, omitempty slices and
// nested arrays as they were. The value written is left as it was.
func TestWriteJSONStreamSameBytes(t *testing.T) {
	type elem struct {
		Path  string   `json:"path"`
		Tags  []string `json:"tags"`
		Empty []int    `json:"empty"`
	}
	type Inner struct {
		Files  []elem            `json:"files"`
		Floors map[string]string `json:"floors"`
		Opt    []elem            `json:"opt,omitempty"`
		Small  []elem            `json:"small"`
	}
	type outer struct {
		*Inner
		After  []json.RawMessage `json:"after"`
		Hidden []elem            `json:"-"`
	}
	for _, n := range []int{0, 1, streamThreshold - 1, streamThreshold, 3 * streamThreshold} {
		in := &Inner{Floors: map[string]string{"GLIBC": "2.34"}, Small: []elem{{Path: "s"}}}
		for i := 0; i < n; i++ {
			in.Files = append(in.Files, elem{Path: fmt.Sprintf("a<b>&\"%d\"\n::x", i), Tags: []string{"x", "y"}, Empty: []int{}})
		}
		var after []json.RawMessage
		for i := 0; i < n; i++ {
			after = append(after, json.RawMessage(`{"k":[1,2]}`))
		}
		v := &outer{Inner: in, After: after}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := WriteJSON(&got, v); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("n=%d: streamed bytes differ\ngot:\n%.400s\nwant:\n%.400s", n, got.String(), want.String())
		}
		if len(v.Files) != n || len(v.After) != n {
			t.Errorf("n=%d: WriteJSON changed its value: %d files, %d after", n, len(v.Files), len(v.After))
		}
	}
}
