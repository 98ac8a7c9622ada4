package report

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/diag"
)

// SARIFSchema is the schema SARIF output declares: the OASIS SARIF 2.1.0
// schema with errata 01, the version GitHub code scanning reads.
const SARIFSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// CompilerRuleID is the rule id SARIF gives compiler diagnostics, which
// belong to no lint rule. Code scanning needs a rule for every result.
const CompilerRuleID = "compiler"

// SARIFTool describes the tool in a SARIF log.
type SARIFTool struct {
	Name           string
	Version        string
	InformationURI string
}

// SARIFRule is what SARIF and code scanning show about one rule: its id,
// a one-line and a full description, a link to its documentation, the
// level its findings have, and whether it runs by default.
type SARIFRule struct {
	ID      string
	Title   string
	Doc     string // full description, plain text
	HelpURI string
	Level   string // error, warning or note
	Enabled bool
}

// SARIFOptions say where paths are relative to, and what to tell about
// the run itself.
type SARIFOptions struct {
	// Root is the absolute directory paths are made relative to, named
	// %SRCROOT% in originalUriBaseIds: the repository root, so code
	// scanning finds each file in the repository. Files outside it, or
	// every file when Root is empty, get absolute file: URIs.
	Root string
	// Notifications are notes about the run (such as rules that did not
	// run), written as the invocation's toolExecutionNotifications.
	Notifications []string
}

// SrcRoot is the uriBaseId of paths relative to SARIFOptions.Root.
const SrcRoot = "%SRCROOT%"

// SARIF writes diags as a SARIF 2.1.0 log with one run. Every result
// names its rule (compiler diagnostics use CompilerRuleID), and related
// locations (such as the hops of a dependency cycle) become
// relatedLocations. Paths are relative to opts.Root, as code scanning
// expects.
func SARIF(w io.Writer, diags hcl.Diagnostics, tool SARIFTool, rules []SARIFRule, opts SARIFOptions) error {
	run := sarifRun{
		Tool:       sarifTool{Driver: sarifDriver{Name: tool.Name, Version: tool.Version, InformationURI: tool.InformationURI}},
		Results:    []sarifResult{},
		ColumnKind: "unicodeCodePoints",
	}
	loc := locator{root: opts.Root}
	if opts.Root != "" {
		loc.root = realPath(opts.Root)
		run.OriginalURIBaseIDs = map[string]sarifArtifact{SrcRoot: {URI: fileURI(loc.root, true)}}
	}
	if len(opts.Notifications) > 0 {
		inv := sarifInvocation{ExecutionSuccessful: true}
		for _, n := range opts.Notifications {
			inv.Notifications = append(inv.Notifications, sarifNotification{Level: "note", Message: sarifText{Text: n}})
		}
		run.Invocations = []sarifInvocation{inv}
	}
	index := map[string]int{}
	for i, r := range rules {
		index[r.ID] = i
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifDescriptor{
			ID:                   r.ID,
			ShortDescription:     &sarifText{Text: r.Title},
			FullDescription:      &sarifText{Text: r.Doc},
			Help:                 &sarifText{Text: r.Doc},
			HelpURI:              r.HelpURI,
			DefaultConfiguration: &sarifConfig{Level: r.Level, Enabled: r.Enabled},
		})
	}
	for _, d := range diags {
		res := sarifResult{RuleID: CompilerRuleID, Level: sarifLevel(d), Message: sarifText{Text: d.Summary}}
		if d.Detail != "" {
			res.Message.Text += "\n\n" + d.Detail
		}
		e := diag.ExtraOf(d)
		if e != nil && e.Rule != "" {
			res.RuleID = e.Rule
		}
		if i, ok := index[res.RuleID]; ok {
			res.RuleIndex = &i
		}
		if d.Subject != nil {
			res.Locations = []sarifLocation{{PhysicalLocation: loc.physical(*d.Subject)}}
		}
		if e != nil {
			for i, rel := range e.Related {
				res.RelatedLocations = append(res.RelatedLocations, sarifLocation{
					ID:               i + 1,
					PhysicalLocation: loc.physical(rel.Range),
					Message:          &sarifText{Text: rel.Message},
				})
			}
		}
		run.Results = append(run.Results, res)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{Schema: SARIFSchema, Version: "2.1.0", Runs: []sarifRun{run}})
}

func sarifLevel(d *hcl.Diagnostic) string {
	switch {
	case diag.IsNotice(d):
		return "note"
	case d.Severity == hcl.DiagWarning:
		return "warning"
	}
	return "error"
}

// locator turns file names into artifact locations relative to root.
type locator struct{ root string }

func (l locator) physical(r hcl.Range) *sarifPhysical {
	p := &sarifPhysical{ArtifactLocation: l.artifact(r.Filename)}
	if r.Start.Line > 0 {
		reg := &sarifRegion{StartLine: r.Start.Line, StartColumn: r.Start.Column}
		if r.End.Line >= r.Start.Line && (r.End.Line > r.Start.Line || r.End.Column > r.Start.Column) {
			reg.EndLine, reg.EndColumn = r.End.Line, r.End.Column
		}
		p.Region = reg
	}
	return p
}

// artifact turns a file name, relative to the working directory or
// absolute, into a URI relative to %SRCROOT% when the file is inside
// the root, and an absolute file: URI otherwise.
func (l locator) artifact(name string) sarifArtifact {
	if l.root == "" {
		if filepath.IsAbs(name) {
			return sarifArtifact{URI: fileURI(name, false)}
		}
		return sarifArtifact{URI: relURI(name), URIBaseID: SrcRoot}
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return sarifArtifact{URI: relURI(name), URIBaseID: SrcRoot}
	}
	abs = realPath(abs)
	if rel, err := filepath.Rel(l.root, abs); err == nil && filepath.IsLocal(rel) {
		return sarifArtifact{URI: relURI(rel), URIBaseID: SrcRoot}
	}
	return sarifArtifact{URI: fileURI(abs, false)}
}

// realPath resolves symbolic links (git prints the real path of the
// work tree, the working directory may go through a link), keeping p
// when it cannot be resolved.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

func relURI(name string) string {
	slash := strings.TrimPrefix(filepath.ToSlash(filepath.Clean(name)), "./")
	return (&url.URL{Path: slash}).String()
}

// fileURI is the file: URI of an absolute path; dir adds the trailing
// slash SARIF requires of a base URI.
func fileURI(abs string, dir bool) string {
	slash := filepath.ToSlash(abs)
	if !strings.HasPrefix(slash, "/") {
		slash = "/" + slash // a Windows drive path
	}
	if dir && !strings.HasSuffix(slash, "/") {
		slash += "/"
	}
	return (&url.URL{Scheme: "file", Path: slash}).String()
}

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
	ColumnKind         string                   `json:"columnKind"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool                `json:"executionSuccessful"`
	Notifications       []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string    `json:"level"`
	Message sarifText `json:"message"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string            `json:"name"`
	Version        string            `json:"version,omitempty"`
	InformationURI string            `json:"informationUri,omitempty"`
	Rules          []sarifDescriptor `json:"rules,omitempty"`
}

type sarifDescriptor struct {
	ID                   string       `json:"id"`
	ShortDescription     *sarifText   `json:"shortDescription,omitempty"`
	FullDescription      *sarifText   `json:"fullDescription,omitempty"`
	Help                 *sarifText   `json:"help,omitempty"`
	HelpURI              string       `json:"helpUri,omitempty"`
	DefaultConfiguration *sarifConfig `json:"defaultConfiguration,omitempty"`
}

type sarifConfig struct {
	Level   string `json:"level"`
	Enabled bool   `json:"enabled"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID           string          `json:"ruleId"`
	RuleIndex        *int            `json:"ruleIndex,omitempty"`
	Level            string          `json:"level"`
	Message          sarifText       `json:"message"`
	Locations        []sarifLocation `json:"locations,omitempty"`
	RelatedLocations []sarifLocation `json:"relatedLocations,omitempty"`
}

type sarifLocation struct {
	ID               int            `json:"id,omitempty"`
	PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
	Message          *sarifText     `json:"message,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
	EndLine     int `json:"endLine,omitempty"`
	EndColumn   int `json:"endColumn,omitempty"`
}
