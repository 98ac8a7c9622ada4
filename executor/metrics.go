package executor

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/push"

	"github.com/platc/platc/executor/preflight"
	"github.com/platc/platc/internal/exitcode"
)

// The values the metrics' state labels take. Every value is written,
// 1 for the current one and 0 for the others, so that a query for a
// state that is not current finds a 0 rather than nothing
// (kube-state-metrics' convention).
var (
	actionStatuses = []string{"succeeded", "failed", "partial", "invalid", "timeout", "dry-run"}
	healthStates   = []string{"Healthy", "Progressing", "Degraded", "Suspended", "Missing", "Unknown"}
	// errorTypes, for executor_errors_total: a configuration problem, a
	// failed Phase 0 check, a failed app, a failed step that is no app's,
	// a kind of bootstrap drift, and the action's own deadline.
	errorTypes = []string{"config", "preflight", "app", "step", "drift", "timeout"}
)

// Metrics are the RFC 7.5 metrics of one run, read from its final report
// so that they say what the report says. Every series carries the
// platform, the environment and the action, so that one textfile
// directory or Pushgateway serves several platforms and a validate does
// not hide the last deploy: as labels of the series when scoped is true
// (the textfile), else left to the Pushgateway's grouping key, which
// refuses series that carry them too.
func Metrics(rep *Report, scoped bool) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	var labels prometheus.Labels
	if scoped {
		labels = scope(rep)
	}
	duration := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:        "executor_action_duration_seconds",
		Help:        "Time the executor's action took, from start to report.",
		ConstLabels: labels,
		// From a 10 s validate to a 5.7 h deploy of a large platform.
		Buckets: prometheus.ExponentialBuckets(10, 2, 12),
	}, nil)
	status := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name:        "executor_action_status",
		Help:        "1 for the status the action ended with, 0 for the others.",
		ConstLabels: labels,
	}, []string{"status"})
	health := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name:        "executor_component_health",
		Help:        "1 for each app's health as the action last read it, 0 for the other states.",
		ConstLabels: labels,
	}, []string{"app", "stack", "health"})
	errs := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name:        "executor_errors_total",
		Help:        "Errors of the action, by type; each run starts from zero.",
		ConstLabels: labels,
	}, []string{"type"})
	reg.MustRegister(duration, status, health, errs)

	duration.WithLabelValues().Observe(rep.Duration)
	for _, s := range actionStatuses {
		status.WithLabelValues(s).Set(oneIf(s == rep.Status))
	}
	for _, c := range rep.Components {
		if c.Health == "" {
			continue // never read (a dry run, an app the run did not reach)
		}
		for _, h := range healthStates {
			health.WithLabelValues(c.App, c.Stack, h).Set(oneIf(h == c.Health))
		}
	}
	n := map[string]int{"config": len(rep.Problems), "drift": len(rep.BootstrapDrift)}
	for _, f := range rep.Failures {
		if f.App != "" {
			n["app"]++
		} else {
			n["step"]++
		}
	}
	if rep.Preflight != nil && rep.Preflight.Cluster != nil {
		for _, c := range rep.Preflight.Cluster.Checks {
			if c.Status == preflight.Fail {
				n["preflight"]++
			}
		}
	}
	if rep.ExitCode == exitcode.Timeout {
		n["timeout"]++
	}
	for _, t := range errorTypes {
		errs.WithLabelValues(t).Add(float64(n[t]))
	}
	return reg
}

func scope(rep *Report) prometheus.Labels {
	return prometheus.Labels{"platform": rep.Platform, "environment": rep.Environment, "action": rep.Action}
}

func oneIf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// pushTimeout bounds the push: the action is over, and an unreachable
// Pushgateway must not hold the executor's pod.
const pushTimeout = 15 * time.Second

// ExportMetrics writes the run's metrics to file (textfile-collector
// format, replaced atomically) and pushes them to pushgateway, each when
// set. A failure is returned, never fatal: the action's own exit code
// stands.
func ExportMetrics(ctx context.Context, rep *Report, file, pushgateway string) error {
	if file == "" && pushgateway == "" {
		return nil
	}
	var errs []error
	if file != "" {
		if err := prometheus.WriteToTextfile(file, Metrics(rep, true)); err != nil {
			errs = append(errs, fmt.Errorf("METRICS_FILE: %w", err))
		}
	}
	if pushgateway != "" {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), pushTimeout)
		defer cancel()
		// One group per platform, environment and action: a validate
		// does not replace the last deploy's metrics.
		p := push.New(pushgateway, "platc_executor").Gatherer(Metrics(rep, false)).Client(&http.Client{Timeout: pushTimeout})
		for k, v := range scope(rep) {
			p = p.Grouping(k, v)
		}
		if err := p.PushContext(ctx); err != nil {
			errs = append(errs, fmt.Errorf("PUSHGATEWAY_URL: %w", err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("metrics: %v", errs)
	}
	return nil
}
