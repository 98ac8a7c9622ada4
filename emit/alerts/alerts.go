// Package alerts emits generated/<env>/alerts/: a PrometheusRule
// (monitoring.coreos.com/v1) of alerts on the executor's metrics
// (executor/metrics.go) and on Argo CD's own argocd_app_info, for a
// platform with an alerts block. Where the alerts go is Alertmanager's
// configuration; this package only decides when they fire.
package alerts

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit"
	"github.com/platc/platc/emit/internal/gitops"
)

// Emitter emits alerts/rules.yaml.
type Emitter struct{}

// Name implements emit.Emitter.
func (Emitter) Name() string { return "alerts" }

// Path is the file, relative to generated/<env>/.
const Path = gitops.AlertsDir + "/rules.yaml"

// Emit implements emit.Emitter. A platform without an alerts block gets
// no file.
func (Emitter) Emit(p *ir.Program) ([]emit.File, error) {
	if p.Alerts == nil {
		return nil, nil
	}
	data, err := emit.YAML(Rule(p))
	if err != nil {
		return nil, err
	}
	return []emit.File{{Path: Path, Data: data}}, nil
}

type m = map[string]any

// Alert is one alerting rule.
type Alert struct {
	Name, Expr, Summary, Description string
}

// Groups are the rule groups, by name, in the order they are emitted.
func Groups(p *ir.Program) []struct {
	Name   string
	Alerts []Alert
} {
	// Every value below is one of the executor's or Argo CD's fixed label
	// values, or a name the compiler restricted to a DNS label or
	// subdomain; each is quoted as a PromQL string all the same. The
	// annotations read only $labels, never a user-supplied string: they
	// are Go templates that Prometheus runs.
	run := matchers(map[string]string{"platform": p.Platform.Name, "environment": p.Env.Name})
	argocd := matchers(map[string]string{"namespace": p.Platform.ArgoCD.Namespace}) + "," + "project=~" + strconv.Quote(anyOf(projects(p)))
	return []struct {
		Name   string
		Alerts []Alert
	}{
		{"platc-executor", []Alert{
			{
				Name: "PlatcActionFailed",
				// Every status is written, 1 for the current one.
				Expr:        "executor_action_status{" + run + `,status=~"failed|partial|invalid|timeout"} == 1`,
				Summary:     "platc {{ $labels.action }} of {{ $labels.platform }}/{{ $labels.environment }} ended {{ $labels.status }}",
				Description: "The last platc {{ $labels.action }} run did not succeed. Its report (REPORT_FILE, or the run's log) names the failed apps and steps; fix them and run it again.",
			},
			{
				Name:        "PlatcComponentUnhealthy",
				Expr:        "executor_component_health{" + run + `,health=~"Progressing|Degraded|Missing|Unknown"} == 1`,
				Summary:     "app {{ $labels.app }} was {{ $labels.health }} at the end of platc {{ $labels.action }}",
				Description: "platc {{ $labels.action }} read app {{ $labels.app }} (stack {{ $labels.stack }}) as {{ $labels.health }} when it ended. Check its Argo CD Application.",
			},
			{
				Name: "PlatcExecutorErrors",
				// Not increase(): the executor writes each run's counts
				// afresh (each run starts from zero), so two runs with
				// the same number of errors would show no increase. A
				// count above zero is what the last run recorded.
				Expr:        "executor_errors_total{" + run + "} > 0",
				Summary:     "platc {{ $labels.action }} recorded {{ $value }} {{ $labels.type }} error(s)",
				Description: "The last platc {{ $labels.action }} run of {{ $labels.platform }}/{{ $labels.environment }} recorded errors of type {{ $labels.type }} (config, preflight, app, step, drift or timeout). Its report says which.",
			},
		}},
		{"platc-argocd", []Alert{
			{
				Name:        "PlatcApplicationUnhealthy",
				Expr:        "argocd_app_info{" + argocd + `,health_status=~"Degraded|Missing|Unknown"}`,
				Summary:     "Argo CD Application {{ $labels.name }} is {{ $labels.health_status }}",
				Description: "Argo CD reports Application {{ $labels.name }} (project {{ $labels.project }}) {{ $labels.health_status }}. argocd app get {{ $labels.name }} shows which resources.",
			},
			{
				Name:        "PlatcApplicationOutOfSync",
				Expr:        "argocd_app_info{" + argocd + `,sync_status="OutOfSync"}`,
				Summary:     "Argo CD Application {{ $labels.name }} is OutOfSync",
				Description: "The live state of Application {{ $labels.name }} (project {{ $labels.project }}) differs from Git: drift, or a change not yet deployed. platc deploy, or argocd app diff {{ $labels.name }} to see it.",
			},
		}},
	}
}

// Rule is the PrometheusRule.
func Rule(p *ir.Program) m {
	a := p.Alerts
	labels := m{"app.kubernetes.io/managed-by": "platc", "app.kubernetes.io/part-of": p.Platform.Name}
	for k, v := range a.Labels {
		labels[k] = v
	}
	var groups []m
	for _, g := range Groups(p) {
		var rules []m
		for _, al := range g.Alerts {
			rules = append(rules, m{
				"alert":       al.Name,
				"expr":        al.Expr,
				"for":         ir.FormatDuration(a.For),
				"labels":      m{"severity": a.Severity},
				"annotations": m{"summary": al.Summary, "description": al.Description},
			})
		}
		groups = append(groups, m{"name": g.Name, "rules": rules})
	}
	return m{
		"apiVersion": "monitoring.coreos.com/v1",
		"kind":       "PrometheusRule",
		"metadata":   m{"name": "platc-" + p.Platform.Name, "namespace": a.Namespace, "labels": labels},
		"spec":       m{"groups": groups},
	}
}

// matchers are equality matchers, sorted by label.
func matchers(kv map[string]string) string {
	var out []string
	for k, v := range kv {
		out = append(out, k+"="+strconv.Quote(v))
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// projects are the Argo CD projects of the platform's Applications,
// sorted: the Argo CD alerts cover every Application in them.
func projects(p *ir.Program) []string {
	out := []string{}
	for _, a := range p.Apps {
		if !slices.Contains(out, a.Project) {
			out = append(out, a.Project)
		}
	}
	if len(out) == 0 {
		out = append(out, p.Platform.ArgoCD.Project)
	}
	slices.Sort(out)
	return out
}

// anyOf is a regular expression matching exactly one of names (PromQL
// anchors =~ at both ends).
func anyOf(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = regexp.QuoteMeta(n)
	}
	return strings.Join(q, "|")
}
