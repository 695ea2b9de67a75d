package report

import (
	"encoding/xml"
	"io"
	"strings"
)

// JUnit XML, the test report format GitLab, Jenkins and Azure Pipelines
// read: one test suite per run, one test case per file (and per member
// of an artefact), a failure per finding. The shape is the one the
// Jenkins/Ant junit schema describes: testsuites > testsuite > testcase
// > failure | error | skipped.

// JUnitCase is one file of a run.
type JUnitCase struct {
	Name      string // the file, "x.deb!/lib/libz.so.1" for a member
	ClassName string // what ran: "abifloor.check"
	Failures  []JUnitFinding
	// Error is why the file could not be checked ("" when it was).
	Error string
	// Output are lines for the case's system-out: warnings, which fail
	// nothing (JUnit has no level between a pass and a failure).
	Output []string
}

// JUnitFinding is one failure of a case.
type JUnitFinding struct {
	Type    string // the rule: "floor/limit"
	Message string // one line
	Text    string // more, if any
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string `xml:"name,attr"`
	Tests     int    `xml:"tests,attr"`
	Failures  int    `xml:"failures,attr"`
	Errors    int    `xml:"errors,attr"`
	Skipped   int    `xml:"skipped,attr"`
	Time      string `xml:"time,attr"`
	Timestamp string `xml:"timestamp,attr,omitempty"`
	Hostname  string `xml:"hostname,attr"`
	ID        int    `xml:"id,attr"`
	Package   string `xml:"package,attr"`
	// Props stays nil: Jenkins's schema refuses an empty <properties>.
	Props     *struct{}   `xml:"properties,omitempty"`
	Cases     []junitCase `xml:"testcase"`
	SystemOut string      `xml:"system-out"`
	SystemErr string      `xml:"system-err"`
}

type junitCase struct {
	Name      string         `xml:"name,attr"`
	ClassName string         `xml:"classname,attr"`
	Time      string         `xml:"time,attr"`
	Error     *junitProblem  `xml:"error,omitempty"`
	Failures  []junitProblem `xml:"failure"`
	SystemOut string         `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Type    string `xml:"type,attr"`
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes one suite named suite ("abifloor check") holding
// cases, in their order. Every name and message is text for people that
// CI shows: Clean escapes it (Text line by line), so the XML is well
// formed, test names display as they are, and no line of the report is
// a workflow command, whatever a file name holds.
func WriteJUnit(w io.Writer, suite string, cases []JUnitCase) error {
	s := junitSuite{Name: suite, Time: "0", Hostname: "localhost", Package: "abifloor", Cases: []junitCase{}}
	for _, c := range cases {
		jc := junitCase{Name: Clean(c.Name), ClassName: Clean(c.ClassName), Time: "0"}
		if c.Error != "" {
			jc.Error = &junitProblem{Type: "error", Message: Clean(firstLine(c.Error)), Text: CleanLines(c.Error)}
			s.Errors++
		}
		for _, f := range c.Failures {
			jc.Failures = append(jc.Failures, junitProblem{Type: Clean(f.Type), Message: Clean(f.Message), Text: CleanLines(f.Text)})
		}
		if len(jc.Failures) > 0 {
			s.Failures++
		}
		if len(c.Output) > 0 {
			jc.SystemOut = CleanLines(strings.Join(c.Output, "\n"))
		}
		s.Tests++
		s.Cases = append(s.Cases, jc)
	}
	doc := junitSuites{Name: "abifloor", Tests: s.Tests, Failures: s.Failures, Errors: s.Errors, Suites: []junitSuite{s}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
