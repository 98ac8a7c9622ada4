package executor

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/alerts"
)

// series is one sample: its labels, __name__ included, and its value.
type series struct {
	labels labels.Labels
	value  float64
}

// exported is what ExportMetrics writes for rep, read back with
// Prometheus' text parser, as the samples a scrape of the textfile
// collector would store.
func exported(t *testing.T, rep *Report) []series {
	t.Helper()
	file := filepath.Join(t.TempDir(), "platc.prom")
	if err := ExportMetrics(context.Background(), rep, file, ""); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []series
	for name, mf := range parse(t, f) {
		for _, m := range mf.GetMetric() {
			b := labels.NewBuilder(labels.FromStrings("__name__", name))
			for _, l := range m.GetLabel() {
				b.Set(l.GetName(), l.GetValue())
			}
			v := m.GetGauge().GetValue() + m.GetCounter().GetValue()
			if m.Histogram != nil {
				b.Set("__name__", name+"_sum")
				v = m.Histogram.GetSampleSum()
			}
			out = append(out, series{b.Labels(), v})
		}
	}
	return out
}

// eval evaluates the parsed rule expression at one instant over samples.
// It is this test's own evaluator, not Prometheus' engine (whose module
// brings its storage along): it knows only the shapes the alerts use, a
// vector selector alone or compared with a number, and fails the test on
// anything else, so a rule that outgrows it cannot pass unevaluated.
func eval(t *testing.T, e parser.Expr, samples []series) []series {
	t.Helper()
	switch x := e.(type) {
	case *parser.ParenExpr:
		return eval(t, x.Expr, samples)
	case *parser.VectorSelector:
		var out []series
		for _, s := range samples {
			match := true
			for _, m := range x.LabelMatchers {
				match = match && m.Matches(s.labels.Get(m.Name))
			}
			if match {
				out = append(out, s)
			}
		}
		return out
	case *parser.BinaryExpr:
		n, ok := x.RHS.(*parser.NumberLiteral)
		if !ok || x.ReturnBool {
			t.Fatalf("eval: only a vector compared with a number is supported, not %s", x)
		}
		var out []series
		for _, s := range eval(t, x.LHS, samples) {
			var keep bool
			switch x.Op {
			case parser.EQLC:
				keep = s.value == n.Val
			case parser.GTR:
				keep = s.value > n.Val
			default:
				t.Fatalf("eval: operator %s is not supported", x.Op)
			}
			if keep {
				out = append(out, s)
			}
		}
		return out
	}
	t.Fatalf("eval: %T is not supported", e)
	return nil
}

func alertProgram() *ir.Program {
	return &ir.Program{
		Platform: ir.Platform{Name: "shop", ArgoCD: ir.ArgoCD{Namespace: "argocd", Project: "shop"}},
		Env:      ir.Environment{Name: "prod"},
		Apps:     []*ir.App{{Name: "orders", Project: "shop"}, {Name: "postgres", Project: "team.data"}},
		Alerts:   &ir.Alerts{Namespace: "monitoring"},
	}
}

// firing is, by alert, the values of label of each series that fires.
func firing(t *testing.T, p *ir.Program, samples []series, label string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	ps := parser.NewParser(parser.Options{})
	for _, g := range alerts.Groups(p) {
		for _, a := range g.Alerts {
			e, err := ps.ParseExpr(a.Expr)
			if err != nil {
				t.Fatalf("%s: %q does not parse as PromQL: %v", a.Name, a.Expr, err)
			}
			for _, s := range eval(t, e, samples) {
				out[a.Name] = append(out[a.Name], s.labels.Get(label))
			}
			slices.Sort(out[a.Name])
		}
	}
	return out
}

// TestAlertsOnExecutorMetrics parses every generated rule with
// Prometheus' PromQL parser and evaluates it over the metrics the
// executor really writes: a partial deploy fires the failed-run, the
// unhealthy-app and the errors alerts for what went wrong and nothing
// else; a clean run, and a failed run of another platform or
// environment, fire nothing.
func TestAlertsOnExecutorMetrics(t *testing.T) {
	p := alertProgram()
	got := firing(t, p, exported(t, partialDeploy()), "")
	if len(got["PlatcActionFailed"]) != 1 {
		t.Errorf("PlatcActionFailed fired %d times for a partial deploy, want once", len(got["PlatcActionFailed"]))
	}
	if apps := firing(t, p, exported(t, partialDeploy()), "app")["PlatcComponentUnhealthy"]; !slices.Equal(apps, []string{"orders"}) {
		t.Errorf("PlatcComponentUnhealthy fired for %q, want [orders]", apps)
	}
	if types := firing(t, p, exported(t, partialDeploy()), "type")["PlatcExecutorErrors"]; !slices.Equal(types, []string{"app", "drift", "preflight", "step"}) {
		t.Errorf("PlatcExecutorErrors fired for %q, want app, drift, preflight, step", types)
	}

	clean := partialDeploy()
	clean.Status, clean.ExitCode, clean.Failures, clean.BootstrapDrift, clean.Preflight = "succeeded", 0, nil, nil, nil
	clean.Components = []Component{{App: "postgres", Stack: "data", Health: "Healthy"}, {App: "orders", Stack: "apps", Health: "Healthy"}}
	if got := firing(t, p, exported(t, clean), "__name__"); len(got) > 0 {
		t.Errorf("a clean run fired %v", got)
	}
	for _, other := range []func(*Report){
		func(r *Report) { r.Platform = "other" },
		func(r *Report) { r.Environment = "staging" },
	} {
		rep := partialDeploy()
		other(rep)
		if got := firing(t, p, exported(t, rep), "__name__"); len(got) > 0 {
			t.Errorf("a run of %s/%s fired %v", rep.Platform, rep.Environment, got)
		}
	}
}

// TestAlertsOnArgoCDMetrics evaluates the Argo CD rules over
// argocd_app_info series shaped as Argo CD v3.2's application controller
// writes them (controller/metrics: namespace, name, project, ...,
// sync_status, health_status; value 1). Simulated: the e2e box's
// controller is not scraped here. Applications of the platform's
// projects count, others do not, and a project's dot is not a wildcard.
func TestAlertsOnArgoCDMetrics(t *testing.T) {
	app := func(ns, name, project, sync, health string) series {
		return series{labels.FromStrings("__name__", "argocd_app_info", "namespace", ns, "name", name, "project", project,
			"autosync_enabled", "false", "repo", "https://git.example.com/shop", "dest_server", "https://kubernetes.default.svc",
			"dest_namespace", name, "sync_status", sync, "health_status", health, "operation", ""), 1}
	}
	samples := []series{
		app("argocd", "orders", "shop", "Synced", "Degraded"),
		app("argocd", "postgres", "team.data", "OutOfSync", "Missing"),
		app("argocd", "web", "shop", "Synced", "Healthy"),
		app("argocd", "cache", "teamxdata", "OutOfSync", "Degraded"),
		app("other-argocd", "orders", "shop", "OutOfSync", "Degraded"),
	}
	got := firing(t, alertProgram(), samples, "name")
	if !slices.Equal(got["PlatcApplicationUnhealthy"], []string{"orders", "postgres"}) {
		t.Errorf("PlatcApplicationUnhealthy fired for %q, want orders, postgres", got["PlatcApplicationUnhealthy"])
	}
	if !slices.Equal(got["PlatcApplicationOutOfSync"], []string{"postgres"}) {
		t.Errorf("PlatcApplicationOutOfSync fired for %q, want postgres", got["PlatcApplicationOutOfSync"])
	}
}
