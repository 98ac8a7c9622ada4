package executor

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/platc/platc/executor/config"
	"github.com/platc/platc/executor/logging"
	"github.com/platc/platc/executor/preflight"
	"github.com/platc/platc/executor/snapshot"
)

// TestReportText pins the shape of the text report: the RFC 7.5
// sections, in order, one app per line.
func TestReportText(t *testing.T) {
	rep := &Report{
		Action: "deploy", Platform: "acme", Environment: "production", Scope: "platform",
		Status: "partial", ExitCode: 2, Summary: "workflow argo/acme-deploy-x7k2p failed: 1 of 3 apps deployed, 1 failed, 1 not run",
		StartedAt: time.Date(2026, 1, 7, 10, 30, 0, 0, time.UTC), Duration: 754,
		Workflow: &WorkflowInfo{Name: "acme-deploy-x7k2p", Namespace: "argo", Phase: "Failed"},
		Preflight: &PreflightInfo{
			Tools:   []preflight.ToolResult{{Name: "helm", Status: preflight.ToolOK, Message: "helm 3.19.0 (at least 3.12.0)"}},
			Cluster: &preflight.ClusterReport{Checks: []preflight.Check{{Name: "worker-count", Status: preflight.Warn, Message: "2 Ready worker nodes; RFC 3.2.4 asks for at least 3"}}},
		},
		Components: []Component{
			{App: "db", Stack: "data", Application: "db", Status: "succeeded", Health: "Healthy", Sync: "Synced", Duration: 95},
			{App: "cache", Stack: "data", Application: "cache", Status: "failed", Health: "Degraded", Sync: "Synced", Duration: 600, Message: "Error (exit code 20)\n(after 3 attempts)"},
			{App: "api", Application: "api", Status: "omitted", Message: "not run: cache did not succeed"},
		},
		Failures:  []Failure{{App: "cache", Node: "acme-deploy-x7k2p.cache(2)", Message: "Error (exit code 20) (after 3 attempts)"}},
		Metrics:   map[string]int{"apps": 3, "succeeded": 1, "failed": 1, "omitted": 1},
		Recommend: []string{"Look at cache: 'argocd app get cache'."},
	}
	var b bytes.Buffer
	rep.WriteText(&b)
	want := `
== Deploy report ==
Summary: workflow argo/acme-deploy-x7k2p failed: 1 of 3 apps deployed, 1 failed, 1 not run
  status    partial (exit 2)
  platform  acme, environment production, scope platform
  duration  12m34s
  workflow  argo/acme-deploy-x7k2p: Failed

Phase 0 (prerequisites):
  ok    helm          helm 3.19.0 (at least 3.12.0)
  WARN  worker-count  2 Ready worker nodes; RFC 3.2.4 asks for at least 3

Components:
  APP    STACK  STATUS     HEALTH    SYNC    DURATION  MESSAGE
  db     data   succeeded  Healthy   Synced  1m35s     
  cache  data   failed     Degraded  Synced  10m       Error (exit code 20) (after 3 attempts)
  api    -      omitted    -         -       -         not run: cache did not succeed

Failures:
  cache (node acme-deploy-x7k2p.cache(2)): Error (exit code 20) (after 3 attempts)

Metrics: apps=3 succeeded=1 failed=1 omitted=1

Recommendations:
  - Look at cache: 'argocd app get cache'.
`
	if got := b.String(); got != want {
		t.Errorf("text report:\n%s\nwant:\n%s", got, want)
		for i, l := range strings.Split(got, "\n") {
			t.Logf("%2d %q", i, l)
		}
	}
}

// TestReportRedactedAndEscaped (issue 21): the report went to stdout
// unredacted (a token an API error echoed was in clear while the log line
// said [redacted]) and unescaped (an Application message with ESC, CR or
// U+2028 drove the terminal or forged a line). finish runs every string
// of the report through the logger's Scrub, in text and in JSON.
func TestReportRedactedAndEscaped(t *testing.T) {
	const token = "eyJhbGciOiJSUzI1NiJ9.exec-plugin-token"
	hostile := "Degraded: \x1b[31m" + token + "\r\nSummary: forged\u2028== Deploy report ==\u202e"
	for _, format := range []logging.Format{logging.Text, logging.JSON} {
		var out, logs bytes.Buffer
		log := logging.New(&logs, logging.Options{Format: format, Action: "deploy"})
		log.Redact(token)
		r := &run{cfg: &config.Config{LogFormat: format}, env: Env{Stdout: &out, Now: time.Now}, log: log, start: time.Now()}
		r.rep = &Report{
			Action: "deploy", Summary: "submitting the deploy workflow failed: " + hostile,
			Workflow:         &WorkflowInfo{Name: "w", Namespace: "argo", Message: hostile},
			Preflight:        &PreflightInfo{Cluster: &preflight.ClusterReport{Checks: []preflight.Check{{Name: "api", Status: preflight.Fail, Message: hostile}}}},
			Components:       []Component{{App: "db", Status: "failed", Message: hostile}},
			Failures:         []Failure{{App: "db", Message: hostile}},
			Orphans:          []Orphan{{Kind: "Namespace", Name: "x", Reason: hostile}},
			RemovedApps:      []RemovedApp{{Application: "old", Status: "failed", Message: hostile}},
			BootstrapDrift:   []Drift{{What: DriftHealth, Object: "argocd-cm", Message: hostile}},
			IgnoredWorkflows: []IgnoredWorkflow{{Name: "evil", Reason: hostile}},
			Problems:         []string{hostile}, Plan: []string{hostile}, Recommend: []string{hostile},
			Metrics: map[string]int{},
		}
		r.finish(context.Background(), 1)
		got := out.String()
		for _, bad := range []string{token, "\x1b", "\r", "\u2028", "\u202e"} {
			if strings.Contains(got, bad) || strings.Contains(logs.String(), bad) {
				t.Errorf("format %d: report or log keeps %q:\n%s", format, bad, got)
			}
		}
		// Every field holding the text: the text report leaves out the
		// workflow's message.
		want := map[logging.Format]int{logging.Text: 11, logging.JSON: 12}[format]
		if n := strings.Count(got, "[redacted]"); n != want {
			t.Errorf("format %d: %d fields redacted, want %d:\n%s", format, n, want, got)
		}
		if format == logging.JSON {
			if strings.Count(got, "\n") != 1 {
				t.Errorf("JSON report is not one line:\n%s", got)
			}
			continue
		}
		heads := 0
		for _, l := range strings.Split(got, "\n") {
			if strings.HasPrefix(l, "Summary: forged") {
				t.Errorf("text report has a forged line %q:\n%s", l, got)
			}
			if strings.HasPrefix(l, "== ") {
				heads++
			}
		}
		if heads != 1 {
			t.Errorf("text report has %d title lines:\n%s", heads, got)
		}
	}
}

// TestReportDriftKinds: the text report gives every kind of bootstrap
// drift one line, in a fixed order, saying what differs, and lists what
// a reconcile found before under its own heading; the JSON report names
// each entry's kind.
func TestReportDriftKinds(t *testing.T) {
	drift := []Drift{
		{What: DriftToken, Object: "platc-argocd-token", Message: "the automation token Secret argo/platc-argocd-token does not exist"},
		{What: DriftRoot, Object: "platc-root", Message: `targetRevision is "v1", the platform says "v2"`},
		{What: DriftHealth, Object: "example.com/Queue", Message: "Lua script different", Apps: []string{"queue"}, Blocking: true},
		{What: DriftProject, Object: "data", Message: "AppProject data does not exist", Apps: []string{"cache"}, Blocking: true},
		{What: DriftRBAC, Object: "argocd-rbac-cm", Message: "ConfigMap argocd-rbac-cm: policy.csv different"},
		{What: DriftRelease, Object: "argocd", Message: "chart version 7.6.0, the platform says 7.7.0"},
		{What: DriftRelease, Object: "argo-events", Message: "values differ at crds.keep (missing)"},
		{What: DriftCredential, Object: "platc-repo-charts", Message: "the Secret argocd/platc-repo-charts of credential charts does not exist; Argo CD cannot read https://charts.example.com"},
	}
	rep := &Report{Action: "validate", Status: "degraded", ExitCode: 2, BootstrapDrift: drift, Reconciled: drift[:1], Metrics: map[string]int{"bootstrap_drift": 8, "reconciled": 1}}
	var b bytes.Buffer
	rep.WriteText(&b)
	want := `
Reconciled (differed before the bootstrap ran again):
  token: the automation token Secret argo/platc-argocd-token does not exist

Bootstrap drift (installed by the bootstrap, not what the platform compiles to now; one line per kind):
  release: chart version 7.6.0, the platform says 7.7.0; values differ at crds.keep (missing)
  health: Lua script different (used by queue) [blocks deploy]
  rbac: ConfigMap argocd-rbac-cm: policy.csv different
  project: AppProject data does not exist [blocks deploy]
  root: targetRevision is "v1", the platform says "v2"
  token: the automation token Secret argo/platc-argocd-token does not exist
  credential: the Secret argocd/platc-repo-charts of credential charts does not exist; Argo CD cannot read https://charts.example.com

Metrics: bootstrap_drift=8 reconciled=1
`
	if !strings.Contains(b.String(), want) {
		t.Errorf("text report:\n%s\nwant it to contain:\n%s", b.String(), want)
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	for _, k := range driftOrder {
		if !strings.Contains(js.String(), `"what":"`+k+`"`) {
			t.Errorf("JSON report lacks kind %s: %s", k, js.String())
		}
	}
	if !strings.Contains(js.String(), `"reconciled":[{"what":"token"`) {
		t.Errorf("JSON report lacks reconciled: %s", js.String())
	}
}

// TestReportTextSnapshot: the critical components, the snapshot and the
// changes since the baseline, one line each.
func TestReportTextSnapshot(t *testing.T) {
	rep := &Report{
		Action: "validate", Status: "degraded", ExitCode: 2, Summary: "1 critical component not ready: argocd-server (not-ready)",
		Critical: []snapshot.Workload{
			{Component: "argocd-application-controller", Namespace: "argocd", Kind: "StatefulSet", Name: "argocd-application-controller", Version: "v3.1.8", Replicas: 1, Ready: 1, Status: "ready"},
			{Component: "argocd-server", Namespace: "argocd", Kind: "Deployment", Name: "argocd-server", Replicas: 2, Ready: 1, Status: "not-ready", Message: "1 of 2 replicas Ready"},
			{Component: "workflow-controller", Namespace: "argo", Status: "missing", Message: "no Deployment or StatefulSet of release argo-workflows"},
		},
		Snapshot: &SnapshotInfo{File: "/out/snap.json", Nodes: 4, Namespaces: 9, CRDs: 14, Applications: 3, PreExistingCRDs: []string{"widgets.example.org"},
			Baseline: "/out/old.json", BaselineTakenAt: "2026-01-07T10:30:00Z"},
		Changes: []snapshot.Change{{Kind: "node", Name: "node-1", Change: "changed", Detail: "Ready → not Ready"}, {Kind: "namespace", Name: "shop", Change: "added"}},
	}
	var b bytes.Buffer
	rep.WriteText(&b)
	want := `
Critical components:
  ok    argocd-application-controller  StatefulSet argocd/argocd-application-controller  1/1 Ready, version v3.1.8
  FAIL  argocd-server                  Deployment argocd/argocd-server                   1 of 2 replicas Ready
  FAIL  workflow-controller            namespace argo                                    no Deployment or StatefulSet of release argo-workflows

Cluster snapshot: /out/snap.json; 4 nodes, 9 namespaces, 14 CRDs, 3 Applications
  pre-existing CRDs (owned by neither a platform app nor the bootstrap): widgets.example.org

Changes since the baseline /out/old.json (taken 2026-01-07T10:30:00Z):
  node node-1 changed: Ready → not Ready
  namespace shop added
`
	if got := b.String(); !strings.Contains(got, want) {
		t.Errorf("text report:\n%s\nwant it to contain:\n%s", got, want)
	}
}
