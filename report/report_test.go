package report

import (
	"bytes"
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
