package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFileURI(t *testing.T) {
	for in, want := range map[string]string{
		"bin/app":          "bin/app",
		"/usr/bin/ls":      "file:///usr/bin/ls",
		"dir with space/a": "dir%20with%20space/a",
		"a:b/c":            "./a:b/c",
		"/x/100%.so":       "file:///x/100%25.so",
	} {
		if got := fileURI(in); got != want {
			t.Errorf("fileURI(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWriteSARIFListsUsedRules(t *testing.T) {
	var b bytes.Buffer
	rules := []SARIFRule{{ID: "a/x", Short: "x", Level: "error"}, {ID: "a/y", Short: "y"}}
	if err := WriteSARIF(&b, "v1.2.3", rules, []SARIFResult{{RuleID: "a/y", Message: "m", URI: "f"}, {RuleID: "nope", Message: "dropped"}}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{`"version": "2.1.0"`, `"id": "a/y"`, `"ruleIndex": 0`, `"level": "warning"`, `"semanticVersion": "1.2.3"`, `"uri": "f"`} {
		if !strings.Contains(out, want) {
			t.Errorf("SARIF lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "a/x") || strings.Contains(out, "dropped") {
		t.Errorf("unused rule or unknown result written:\n%s", out)
	}
	b.Reset()
	WriteSARIF(&b, "", rules, nil)
	if !strings.Contains(b.String(), `"results": []`) || !strings.Contains(b.String(), `"rules": []`) {
		t.Errorf("empty log lacks its arrays:\n%s", b.String())
	}
}

// TestSplitMember: a member name is split where artefact.Split splits it,
// at the first prefix on disk (a directory may be named "odd!"); a path
// on disk is a file; with nothing on disk, at the first "!/".
func TestSplitMember(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "odd!"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"odd!/x.tgz", "odd!/plain.so"} {
		if err := os.WriteFile(filepath.Join(dir, p), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		uri, file, member string
		ok                bool
	}{
		{dir + "/odd!/x.tgz!/lib/a.so", dir + "/odd!/x.tgz", "/lib/a.so", true},
		{dir + "/odd!/x.tgz!/in.tgz!/lib/a.so", dir + "/odd!/x.tgz", "/in.tgz!/lib/a.so", true},
		{dir + "/odd!/plain.so", dir + "/odd!/plain.so", "", false},
		{"gone.deb!/usr/lib/x.so", "gone.deb", "/usr/lib/x.so", true},
		{"plain.so", "plain.so", "", false},
	} {
		file, m, ok := splitMember(c.uri)
		if file != c.file || m != c.member || ok != c.ok {
			t.Errorf("splitMember(%q) = %q, %q, %v; want %q, %q, %v", c.uri, file, m, ok, c.file, c.member, c.ok)
		}
	}
}

// TestWriteSARIFFailure: a run that could not start is a valid log with
// no result and a failed invocation naming the reason, cleaned.
func TestWriteSARIFFailure(t *testing.T) {
	var b strings.Builder
	if err := WriteSARIFFailure(&b, "v1.2.3", "unknown target \"ubuntu-2204\"; did you mean ubuntu-22.04?\n::error::x"); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Schema string `json:"$schema"`
		Runs   []struct {
			Tool struct {
				Driver struct{ Name, SemanticVersion string }
			}
			Invocations []struct {
				ExecutionSuccessful        *bool
				ToolExecutionNotifications []struct {
					Level   string
					Message struct{ Text string }
				}
			}
			Results []json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(b.String()), &log); err != nil {
		t.Fatal(err)
	}
	if log.Schema != SARIFSchema || len(log.Runs) != 1 {
		t.Fatalf("log: %s", b.String())
	}
	r := log.Runs[0]
	if r.Tool.Driver.Name != "abifloor" || r.Tool.Driver.SemanticVersion != "1.2.3" || r.Results == nil || len(r.Results) != 0 {
		t.Errorf("run: %s", b.String())
	}
	if len(r.Invocations) != 1 || r.Invocations[0].ExecutionSuccessful == nil || *r.Invocations[0].ExecutionSuccessful {
		t.Fatalf("invocation: %s", b.String())
	}
	n := r.Invocations[0].ToolExecutionNotifications
	if len(n) != 1 || n[0].Level != "error" || !strings.Contains(n[0].Message.Text, "did you mean ubuntu-22.04?") || strings.Contains(n[0].Message.Text, "\n::error") {
		t.Errorf("notification: %s", b.String())
	}
}

// TestWriteSARIFSource: a result at a source line is located there,
// relative to %SRCROOT% (whose original location is the root), with the
// file as its related and logical location; a name from the input in
// them is cleaned.
func TestWriteSARIFSource(t *testing.T) {
	var b bytes.Buffer
	rules := []SARIFRule{{ID: "a/x", Short: "x", Level: "error"}}
	res := []SARIFResult{{RuleID: "a/x", Message: "m", URI: "dist/app\u202e", Source: "src/a b.c", Line: 42}}
	if err := WriteSARIFRoot(&b, "", "/ws/repo", rules, res); err != nil {
		t.Fatal(err)
	}
	var l struct {
		Runs []struct {
			Original map[string]struct {
				URI string `json:"uri"`
			} `json:"originalUriBaseIds"`
			Results []struct {
				Locations []struct {
					Physical struct {
						Artifact struct {
							URI  string `json:"uri"`
							Base string `json:"uriBaseId"`
						} `json:"artifactLocation"`
						Region struct {
							StartLine int `json:"startLine"`
						} `json:"region"`
					} `json:"physicalLocation"`
					Logical []struct {
						Name string `json:"name"`
						FQN  string `json:"fullyQualifiedName"`
					} `json:"logicalLocations"`
				} `json:"locations"`
				Related []struct {
					ID       int `json:"id"`
					Physical struct {
						Artifact struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"relatedLocations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &l); err != nil {
		t.Fatal(err)
	}
	run := l.Runs[0]
	if run.Original[SourceRootID].URI != "file:///ws/repo/" {
		t.Errorf("originalUriBaseIds = %v", run.Original)
	}
	r := run.Results[0]
	loc := r.Locations[0]
	if loc.Physical.Artifact.URI != "src/a%20b.c" || loc.Physical.Artifact.Base != SourceRootID || loc.Physical.Region.StartLine != 42 {
		t.Errorf("location = %+v", loc.Physical)
	}
	if len(loc.Logical) != 1 || loc.Logical[0].FQN != Clean("dist/app\u202e") || loc.Logical[0].Name != Clean("app\u202e") {
		t.Errorf("logical = %+v", loc.Logical)
	}
	if len(r.Related) != 1 || r.Related[0].ID != 1 || r.Related[0].Physical.Artifact.URI != fileURI("dist/app\u202e") {
		t.Errorf("related = %+v", r.Related)
	}
	if strings.Contains(b.String(), "\u202e") {
		t.Errorf("a bidi control in the log:\n%s", b.String())
	}
}
