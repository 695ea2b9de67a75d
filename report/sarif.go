package report

import (
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/abifloor/abifloor/internal/member"
)

// SARIFSchema is the $schema of every log: the OASIS SARIF 2.1.0 schema.
const SARIFSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// InformationURI is where a reader of a log learns about abifloor.
const InformationURI = "https://github.com/abifloor/abifloor"

// SARIF 2.1.0 (OASIS), the format GitHub code scanning reads: one run of
// one tool, its rules, and results that point at files. Only what
// abifloor fills is modelled.

// SARIFRule describes one kind of finding. Its ID is stable across
// releases: code scanning tracks alerts by rule and location.
type SARIFRule struct {
	ID    string // "floor/symbol-versions"
	Name  string // PascalCase, "SymbolVersionNotAllowed"
	Short string // one sentence
	// Full says more: what the finding means ("" repeats Short).
	Full string
	// Help says what to do about it ("" repeats Full).
	Help string
	// Level is the default: "error", "warning" or "note".
	Level string
}

// SARIFResult is one finding in one file.
type SARIFResult struct {
	RuleID  string
	Level   string // "error", "warning" or "note"; "" is the rule's
	Message string
	// URI is the file, a relative or absolute path ("" for a finding
	// about the run, such as a limit that checked nothing: its location
	// is the working directory). A member of an artefact
	// ("debs/x.deb!/lib64/libz.so.1") is located at the artefact, and
	// named in a logical location and at the start of the message; the
	// artefact is the first prefix before a "!/" that is on disk, as
	// artefact.Split reads member names.
	URI string
	// Size is the file's size in bytes, when known: the region is then
	// the whole file by byte offset; otherwise it is line 1.
	Size int64
	// Source, when set, places the finding at a line of source, so that
	// code scanning shows it on that line of a pull request: a path
	// relative to the source root (uriBaseId SourceRootID), at Line.
	// The file (URI) is then a related location, and a logical one.
	Source string
	Line   int
}

// SourceRootID is the uriBaseId of source locations: the checkout, as
// code scanning resolves it.
const SourceRootID = "%SRCROOT%"

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                `json:"tool"`
	Invocations        []sarifInvocation        `json:"invocations,omitempty"`
	OriginalURIBaseIDs map[string]sarifArtifact `json:"originalUriBaseIds,omitempty"`
	Results            []sarifResult            `json:"results"`
}

// sarifInvocation says whether the run could do its work, and why not.
type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string    `json:"level"`
	Message sarifText `json:"message"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name            string      `json:"name"`
	Version         string      `json:"version,omitempty"`
	SemanticVersion string      `json:"semanticVersion,omitempty"`
	InformationURI  string      `json:"informationUri"`
	Rules           []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifHelp struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRule struct {
	ID                   string      `json:"id"`
	Name                 string      `json:"name,omitempty"`
	ShortDescription     sarifText   `json:"shortDescription"`
	FullDescription      sarifText   `json:"fullDescription"`
	Help                 sarifHelp   `json:"help"`
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
	Locations []sarifLocation `json:"locations"`
	// RelatedLocations hold the binary of a finding placed in the
	// source.
	RelatedLocations []sarifLocation `json:"relatedLocations,omitempty"`
}

type sarifLocation struct {
	ID               int            `json:"id,omitempty"`
	PhysicalLocation sarifPhysical  `json:"physicalLocation"`
	LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
	Message          *sarifText     `json:"message,omitempty"`
}

type sarifLogical struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifRegion struct {
	StartLine  int   `json:"startLine,omitempty"`
	ByteOffset *int  `json:"byteOffset,omitempty"`
	ByteLength int64 `json:"byteLength,omitempty"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

// WriteSARIF writes a SARIF 2.1.0 log of one run of abifloor (version as
// the build reports it). Only the rules some result uses are listed, in
// the order of rules; results keep their order. A result whose rule is
// not in rules is an error of the caller and is dropped.
func WriteSARIF(w io.Writer, version string, rules []SARIFRule, results []SARIFResult) error {
	return WriteSARIFRoot(w, version, "", rules, results)
}

// WriteSARIFRoot is WriteSARIF for results placed in the source: root,
// when absolute, is the source root's original location
// (originalUriBaseIds), the directory Source paths are relative to.
func WriteSARIFRoot(w io.Writer, version, root string, rules []SARIFRule, results []SARIFResult) error {
	index := map[string]int{}
	used := map[string]bool{}
	for _, r := range results {
		used[r.RuleID] = true
	}
	d := driver(version)
	for _, r := range rules {
		if !used[r.ID] {
			continue
		}
		if _, dup := index[r.ID]; dup {
			continue
		}
		index[r.ID] = len(d.Rules)
		full := r.Full
		if full == "" {
			full = r.Short
		}
		help := r.Help
		if help == "" {
			help = full
		}
		d.Rules = append(d.Rules, sarifRule{ID: r.ID, Name: r.Name, ShortDescription: sarifText{r.Short}, FullDescription: sarifText{full},
			Help: sarifHelp{Text: help, Markdown: help}, DefaultConfiguration: sarifConfig{levelOr(r.Level, "warning")}})
	}
	run := sarifRun{Tool: sarifTool{d}, Results: []sarifResult{}}
	if filepath.IsAbs(root) {
		for _, r := range results {
			if r.Source != "" {
				u := fileURI(root)
				if !strings.HasSuffix(u, "/") {
					u += "/"
				}
				run.OriginalURIBaseIDs = map[string]sarifArtifact{SourceRootID: {URI: u}}
				break
			}
		}
	}
	for _, r := range results {
		i, ok := index[r.RuleID]
		if !ok {
			continue
		}
		sr := sarifResult{RuleID: r.RuleID, RuleIndex: i, Level: levelOr(r.Level, d.Rules[i].DefaultConfiguration.Level), Message: sarifText{CleanLines(r.Message)}}
		sr.Locations = []sarifLocation{location(r)}
		if len(sr.Locations[0].LogicalLocations) > 0 {
			sr.Message.Text = sr.Locations[0].Message.Text + ": " + sr.Message.Text
		}
		if r.Source != "" {
			// At the source line; the binary beside it.
			bin := sr.Locations[0]
			bin.ID = 1
			if bin.Message == nil {
				bin.Message = &sarifText{"the file: " + Clean(r.URI)}
			}
			src := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: fileURI(r.Source), URIBaseID: SourceRootID},
				Region: sarifRegion{StartLine: max(r.Line, 1)}}}
			src.LogicalLocations = bin.LogicalLocations
			if len(src.LogicalLocations) == 0 {
				src.LogicalLocations = []sarifLogical{{Name: Clean(path.Base(filepath.ToSlash(r.URI))), FullyQualifiedName: Clean(r.URI), Kind: "module"}}
			}
			sr.Locations = []sarifLocation{src}
			sr.RelatedLocations = []sarifLocation{bin}
		}
		run.Results = append(run.Results, sr)
	}
	return WriteJSON(w, sarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{run}})
}

// WriteSARIFFailure writes the SARIF log of a run that could not do
// its work (a wrong flag or target, a path that is not there): no
// result, and an invocation whose executionSuccessful is false with
// message as an error notification. A reader such as code scanning's
// upload accepts it, where an empty file is refused, and the log says
// that nothing was checked rather than that nothing was wrong.
func WriteSARIFFailure(w io.Writer, version, message string) error {
	run := sarifRun{Tool: sarifTool{driver(version)}, Results: []sarifResult{},
		Invocations: []sarifInvocation{{ExecutionSuccessful: false,
			ToolExecutionNotifications: []sarifNotification{{Level: "error", Message: sarifText{CleanLines(message)}}}}}}
	return WriteJSON(w, sarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{run}})
}

// driver describes abifloor at version, without rules.
func driver(version string) sarifDriver {
	d := sarifDriver{Name: "abifloor", Rules: []sarifRule{}, InformationURI: InformationURI, Version: version}
	if version == "" {
		d.Version = "(devel)"
	}
	if len(version) > 1 && version[0] == 'v' {
		d.SemanticVersion = version[1:]
	}
	return d
}

// splitMember splits the name of an artefact member by the rule of
// artefact.Split: the artefact is the first prefix before a "!/" that is
// on disk (a path may itself hold "!/"), else the first prefix. A name
// that is itself on disk is a file, not a member.
func splitMember(uri string) (file, m string, ok bool) {
	if !strings.Contains(uri, "!/") {
		return uri, "", false
	}
	if _, err := os.Stat(uri); err == nil {
		return uri, "", false
	}
	if file, m, ok = member.Split(uri, func(a string) bool { _, err := os.Stat(a); return err == nil }); ok {
		return file, m, true
	}
	return member.Split(uri, func(string) bool { return true })
}

// location is where r is: its file (the artefact, for a member), the
// whole file as the region, and a member as a logical location. The URI
// is the real path, percent-encoded; the names and message shown to
// people are cleaned.
func location(r SARIFResult) sarifLocation {
	file, member, isMember := splitMember(r.URI)
	if file == "" {
		file, isMember = ".", false
	}
	l := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: fileURI(file)}}}
	if r.Size > 0 && !isMember {
		zero := 0
		l.PhysicalLocation.Region = sarifRegion{ByteOffset: &zero, ByteLength: r.Size}
	} else {
		l.PhysicalLocation.Region = sarifRegion{StartLine: 1}
	}
	if isMember {
		l.LogicalLocations = []sarifLogical{{Name: Clean(path.Base(member)), FullyQualifiedName: Clean(r.URI), Kind: "module"}}
		l.Message = &sarifText{"member " + Clean(member) + " of " + Clean(file)}
	}
	return l
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
