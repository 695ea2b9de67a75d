package report

import (
	"io"
	"net/url"
	"path/filepath"
)

// SARIF 2.1.0 (OASIS), the format GitHub code scanning reads: one run of
// one tool, its rules, and results that point at files. Only what
// abifloor fills is modelled.

// SARIFRule describes one kind of finding. Its ID is stable across
// releases: code scanning tracks alerts by rule and location.
type SARIFRule struct {
	ID    string // "floor/symbol-versions"
	Name  string // PascalCase, "SymbolVersionNotAllowed"
	Short string // one sentence
	// Level is the default: "error", "warning" or "note".
	Level string
}

// SARIFResult is one finding in one file.
type SARIFResult struct {
	RuleID  string
	Level   string // "error", "warning" or "note"; "" is the rule's
	Message string
	// URI is the file, a relative or absolute path ("" for a finding
	// about the run, such as a limit that checked nothing).
	URI string
}

type sarifLog struct {
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name            string      `json:"name"`
	Version         string      `json:"version,omitempty"`
	SemanticVersion string      `json:"semanticVersion,omitempty"`
	Rules           []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string      `json:"id"`
	Name                 string      `json:"name,omitempty"`
	ShortDescription     sarifText   `json:"shortDescription"`
	DefaultConfiguration sarifConfig `json:"defaultConfiguration"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

// WriteSARIF writes a SARIF 2.1.0 log of one run of abifloor (version as
// the build reports it). Only the rules some result uses are listed, in
// the order of rules; results keep their order. A result whose rule is
// not in rules is an error of the caller and is dropped.
func WriteSARIF(w io.Writer, version string, rules []SARIFRule, results []SARIFResult) error {
	index := map[string]int{}
	used := map[string]bool{}
	for _, r := range results {
		used[r.RuleID] = true
	}
	d := sarifDriver{Name: "abifloor", Rules: []sarifRule{}}
	if version != "" && version != "(devel)" {
		d.Version = version
		if len(version) > 1 && version[0] == 'v' {
			d.SemanticVersion = version[1:]
		}
	}
	for _, r := range rules {
		if !used[r.ID] {
			continue
		}
		if _, dup := index[r.ID]; dup {
			continue
		}
		index[r.ID] = len(d.Rules)
		d.Rules = append(d.Rules, sarifRule{ID: r.ID, Name: r.Name, ShortDescription: sarifText{r.Short}, DefaultConfiguration: sarifConfig{levelOr(r.Level, "warning")}})
	}
	run := sarifRun{Tool: sarifTool{d}, Results: []sarifResult{}}
	for _, r := range results {
		i, ok := index[r.RuleID]
		if !ok {
			continue
		}
		sr := sarifResult{RuleID: r.RuleID, RuleIndex: i, Level: levelOr(r.Level, d.Rules[i].DefaultConfiguration.Level), Message: sarifText{r.Message}}
		if r.URI != "" {
			sr.Locations = []sarifLocation{{sarifPhysical{sarifArtifact{fileURI(r.URI)}}}}
		}
		run.Results = append(run.Results, sr)
	}
	return WriteJSON(w, sarifLog{Version: "2.1.0", Runs: []sarifRun{run}})
}

// fileURI writes a path as SARIF wants a URI: a relative path as a
// relative reference (code scanning resolves it against the checkout), an
// absolute one as a file URI; characters a URI cannot hold are escaped.
func fileURI(p string) string {
	u := url.URL{Path: filepath.ToSlash(p)}
	if filepath.IsAbs(p) {
		u.Scheme = "file"
	}
	return u.String()
}

func levelOr(l, def string) string {
	switch l {
	case "error", "warning", "note", "none":
		return l
	}
	return def
}
