package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/diag"
	"github.com/platc/platc/internal/sarifcheck"
)

func rng(file string, line, c1, c2 int) hcl.Range {
	return hcl.Range{Filename: file, Start: hcl.Pos{Line: line, Column: c1}, End: hcl.Pos{Line: line, Column: c2}}
}

// TestSARIF runs from a directory below the root, as platc lint does in
// a subdirectory of a repository: paths come out relative to the root,
// absolute paths inside it too, and only files outside it as file: URIs.
func TestSARIF(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "platform")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	inside := filepath.Join(root, "manifests", "hook.yaml")
	cycle := diag.Error(rng("platform.hcl", 5, 17, 22), "Dependency cycle", "These apps depend on each other.")
	cycle.Extra = &diag.Extra{Related: []diag.Related{
		{Range: rng("platform.hcl", 5, 17, 22), Message: "app.a depends on app.b"},
		{Range: rng("platform.hcl", 8, 17, 22), Message: "app.b depends on app.a"},
	}}
	notice := diag.Warning(rng("dir with space/p.hcl", 3, 3, 9), "dependency on app.x is already implied by app.y", "Remove it.")
	notice.Extra = &diag.Extra{Rule: "redundant-dependency", Notice: true}
	warning := diag.Warning(rng("/abs/scan/job.yaml", 9, 5, 40), "undeclared PreSync hook on Job \"w\"", "")
	warning.Extra = &diag.Extra{Rule: "undeclared-hook"}
	nowhere := &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Platform not found", Detail: "Cannot open x."}
	scanned := diag.Warning(rng(inside, 2, 1, 4), "undeclared PreSync hook on Job \"m\"", "")
	scanned.Extra = &diag.Extra{Rule: "undeclared-hook"}

	var b bytes.Buffer
	rules := []SARIFRule{
		{ID: CompilerRuleID, Title: "compiler diagnostic", Doc: "Errors the compiler refuses.", HelpURI: "https://example.com/c", Level: "error", Enabled: true},
		{ID: "redundant-dependency", Title: "dependency already implied", Doc: "Long text.", HelpURI: "https://example.com/r", Level: "note", Enabled: true},
		{ID: "undeclared-hook", Title: "undeclared hook", Doc: "Long text.", HelpURI: "https://example.com/u", Level: "error", Enabled: true},
	}
	opts := SARIFOptions{Root: root, Notifications: []string{"Lint skipped 2 rules."}}
	if err := SARIF(&b, hcl.Diagnostics{cycle, notice, warning, nowhere, scanned}, SARIFTool{Name: "platc", Version: "1.2.3", InformationURI: "https://example.com"}, rules, opts); err != nil {
		t.Fatal(err)
	}
	if err := sarifcheck.Validate(b.Bytes()); err != nil {
		t.Fatalf("not valid SARIF 2.1.0: %v\n%s", err, b.String())
	}
	var log struct {
		Runs []struct {
			Base        map[string]struct{ URI string } `json:"originalUriBaseIds"`
			Invocations []struct {
				OK    bool `json:"executionSuccessful"`
				Notes []struct {
					Message struct{ Text string }
				} `json:"toolExecutionNotifications"`
			} `json:"invocations"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex *int   `json:"ruleIndex"`
				Level     string `json:"level"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct {
							URI       string `json:"uri"`
							URIBaseID string `json:"uriBaseId"`
						} `json:"artifactLocation"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				Related []struct {
					ID      int                   `json:"id"`
					Message struct{ Text string } `json:"message"`
				} `json:"relatedLocations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	res := log.Runs[0].Results
	type row struct {
		Rule, Level, URI, Base string
		Index, Related         int
	}
	var got []row
	for _, r := range res {
		x := row{Rule: r.RuleID, Level: r.Level, Index: -1, Related: len(r.Related)}
		if r.RuleIndex != nil {
			x.Index = *r.RuleIndex
		}
		if len(r.Locations) > 0 {
			x.URI = r.Locations[0].PhysicalLocation.ArtifactLocation.URI
			x.Base = r.Locations[0].PhysicalLocation.ArtifactLocation.URIBaseID
		}
		got = append(got, x)
	}
	want := []row{
		{"compiler", "error", "platform/platform.hcl", "%SRCROOT%", 0, 2},
		{"redundant-dependency", "note", "platform/dir%20with%20space/p.hcl", "%SRCROOT%", 1, 0},
		{"undeclared-hook", "warning", "file:///abs/scan/job.yaml", "", 2, 0},
		{"compiler", "error", "", "", 0, 0},
		{"undeclared-hook", "warning", "manifests/hook.yaml", "%SRCROOT%", 2, 0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	if rel := res[0].Related; rel[0].ID != 1 || rel[1].Message.Text != "app.b depends on app.a" {
		t.Errorf("cycle hops: %+v", rel)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := log.Runs[0].Base["%SRCROOT%"].URI, "file://"+filepath.ToSlash(realRoot)+"/"; got != want {
		t.Errorf("originalUriBaseIds %%SRCROOT%% = %q, want %q", got, want)
	}
	if inv := log.Runs[0].Invocations; len(inv) != 1 || !inv[0].OK || len(inv[0].Notes) != 1 || inv[0].Notes[0].Message.Text != "Lint skipped 2 rules." {
		t.Errorf("invocations: %+v", inv)
	}
}
