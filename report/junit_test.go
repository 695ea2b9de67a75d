package report

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
)

// The XML parses back as GitLab reads a JUnit report: suites, cases,
// failures with their messages; a control byte in a name is escaped.
func TestWriteJUnitParses(t *testing.T) {
	var b bytes.Buffer
	err := WriteJUnit(&b, "abifloor check", []JUnitCase{
		{Name: "bin/ok", ClassName: "abifloor.check"},
		{Name: "bin/new\x1b[31m", ClassName: "abifloor.check", Failures: []JUnitFinding{{Type: "floor/limit", Message: "GLIBC 2.34 > 2.17", Text: "needs a@GLIBC_2.34"}, {Type: "floor/limit", Message: "GLIBCXX"}}},
		{Name: "bin/broken", ClassName: "abifloor.check", Error: "malformed ELF"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests  int `xml:"tests,attr"`
		Suites []struct {
			Failures int `xml:"failures,attr"`
			Errors   int `xml:"errors,attr"`
			Cases    []struct {
				Name     string `xml:"name,attr"`
				Failures []struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
				Error *struct{} `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if doc.Tests != 3 || len(doc.Suites) != 1 || doc.Suites[0].Failures != 1 || doc.Suites[0].Errors != 1 {
		t.Fatalf("counts: %+v", doc)
	}
	c := doc.Suites[0].Cases[1]
	if strings.ContainsRune(c.Name, 0x1b) || len(c.Failures) != 2 || c.Failures[0].Text != "needs a@GLIBC_2.34" {
		t.Errorf("case %+v", c)
	}
	if doc.Suites[0].Cases[2].Error == nil {
		t.Error("the unreadable file has no <error>")
	}
}

func FuzzWriteJUnit(f *testing.F) {
	f.Add("bin/ok", "GLIBC 2.34 > 2.17")
	f.Add("\x00\xff<&>", "]]>\x1b")
	f.Fuzz(func(t *testing.T, name, msg string) {
		var b bytes.Buffer
		if err := WriteJUnit(&b, "s", []JUnitCase{{Name: name, Failures: []JUnitFinding{{Message: msg, Text: msg}}}}); err != nil {
			t.Fatal(err)
		}
		var v struct{}
		if err := xml.Unmarshal(b.Bytes(), &v); err != nil {
			t.Fatalf("not well formed: %v\n%q", err, b.String())
		}
	})
}
