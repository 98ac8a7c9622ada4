package executor

import (
	"bytes"
	"context"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/platc/platc/executor/config"
	"github.com/platc/platc/executor/logging"
	"github.com/platc/platc/executor/preflight"
)

// partialDeploy is a deploy that ended partial: one app failed, one
// converged, one was never read, with a failed Phase 0 check, a failed
// step and a kind of bootstrap drift.
func partialDeploy() *Report {
	return &Report{
		Action: "deploy", Platform: "shop", Environment: "prod", Status: "partial", ExitCode: 2, Duration: 754,
		Preflight: &PreflightInfo{Cluster: &preflight.ClusterReport{Checks: []preflight.Check{
			{Name: "api", Status: preflight.Pass}, {Name: "dns", Status: preflight.Fail}, {Name: "nodes", Status: preflight.Warn},
		}}},
		Components: []Component{
			{App: "postgres", Stack: "data", Health: "Healthy"},
			{App: "orders", Stack: "apps", Health: "Degraded"},
			{App: "web", Stack: "apps"},
		},
		Failures:       []Failure{{App: "orders", Message: "Degraded"}, {Step: "tail", Message: "x"}},
		BootstrapDrift: []Drift{{What: DriftHealth}},
		Metrics:        map[string]int{},
	}
}

// parse reads the text exposition format with Prometheus' own parser.
func parse(t *testing.T, r io.Reader) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := p.TextToMetricFamilies(r)
	if err != nil {
		t.Fatalf("the metrics do not parse as Prometheus' text format: %v", err)
	}
	return mfs
}

// value is the value of the family's series whose labels include want,
// and the number of series that matched.
func value(mf *dto.MetricFamily, want map[string]string) (float64, int) {
	var v float64
	n := 0
	for _, m := range mf.GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		match := true
		for k, w := range want {
			match = match && got[k] == w
		}
		if !match {
			continue
		}
		n++
		switch {
		case m.Gauge != nil:
			v = m.Gauge.GetValue()
		case m.Counter != nil:
			v = m.Counter.GetValue()
		case m.Histogram != nil:
			v = m.Histogram.GetSampleSum()
		}
	}
	return v, n
}

func TestMetricsFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "platc-deploy.prom")
	if err := ExportMetrics(context.Background(), partialDeploy(), file, ""); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mfs := parse(t, f)
	scope := map[string]string{"platform": "shop", "environment": "prod", "action": "deploy"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range scope {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, c := range []struct {
		family string
		labels map[string]string
		want   float64
	}{
		{"executor_action_duration_seconds", with(), 754},
		{"executor_action_status", with("status", "partial"), 1},
		{"executor_action_status", with("status", "succeeded"), 0},
		{"executor_component_health", with("app", "postgres", "stack", "data", "health", "Healthy"), 1},
		{"executor_component_health", with("app", "orders", "stack", "apps", "health", "Degraded"), 1},
		{"executor_component_health", with("app", "orders", "stack", "apps", "health", "Healthy"), 0},
		{"executor_errors_total", with("type", "app"), 1},
		{"executor_errors_total", with("type", "step"), 1},
		{"executor_errors_total", with("type", "preflight"), 1},
		{"executor_errors_total", with("type", "drift"), 1},
		{"executor_errors_total", with("type", "timeout"), 0},
	} {
		mf := mfs[c.family]
		if mf == nil {
			t.Fatalf("no %s in the file", c.family)
		}
		got, n := value(mf, c.labels)
		if n != 1 || got != c.want {
			t.Errorf("%s%v = %v (%d series), want %v", c.family, c.labels, got, n, c.want)
		}
	}
	if mf := mfs["executor_action_duration_seconds"]; mf.GetType() != dto.MetricType_HISTOGRAM || mf.GetMetric()[0].GetHistogram().GetSampleCount() != 1 {
		t.Errorf("executor_action_duration_seconds is not a histogram of one observation: %v", mf)
	}
	// Six states for each of the two apps that were read; none for web.
	if _, n := value(mfs["executor_component_health"], map[string]string{"app": "web"}); n != 0 {
		t.Errorf("an app never read has %d health series", n)
	}
	if n := len(mfs["executor_component_health"].GetMetric()); n != 12 {
		t.Errorf("%d health series, want 12", n)
	}
	// Replaced atomically: no temporary file is left beside it.
	if es, _ := os.ReadDir(filepath.Dir(file)); len(es) != 1 {
		t.Errorf("%d files in the textfile directory, want only the metrics file", len(es))
	}
}

// TestMetricsPushed pushes to an HTTP server that records the request:
// a stand-in for the Pushgateway's push endpoint (the Pushgateway itself
// is not built here), checked against its documented API: PUT to
// /metrics/job/<job>/<label>/<value>..., with series that do not repeat
// the grouping labels.
func TestMetricsPushed(t *testing.T) {
	var method, path string
	var header http.Header
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		method, path, header = r.Method, r.URL.Path, r.Header
		body, _ = io.ReadAll(r.Body)
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	if err := ExportMetrics(context.Background(), partialDeploy(), "", srv.URL); err != nil {
		t.Fatal(err)
	}
	// The client orders the grouping labels as it likes; the
	// Pushgateway reads them as pairs.
	seg := strings.Split(strings.TrimPrefix(path, "/metrics/"), "/")
	group := map[string]string{}
	for i := 0; i+1 < len(seg); i += 2 {
		group[seg[i]] = seg[i+1]
	}
	want := map[string]string{"job": "platc_executor", "platform": "shop", "environment": "prod", "action": "deploy"}
	if method != http.MethodPut || len(seg) != 8 || !maps.Equal(group, want) {
		t.Errorf("pushed %s %s, want PUT with grouping %v", method, path, want)
	}
	// The client pushes Prometheus' protobuf format; decode it with
	// Prometheus' own decoder, as the Pushgateway does.
	mfs := map[string]*dto.MetricFamily{}
	dec := expfmt.NewDecoder(bytes.NewReader(body), expfmt.ResponseFormat(header))
	for {
		mf := &dto.MetricFamily{}
		if err := dec.Decode(mf); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("decoding the push: %v", err)
		}
		mfs[mf.GetName()] = mf
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "platform" || l.GetName() == "action" || l.GetName() == "environment" {
					t.Errorf("pushed series %s repeats the grouping label %s", mf.GetName(), l.GetName())
				}
			}
		}
	}
	if got, _ := value(mfs["executor_action_status"], map[string]string{"status": "partial"}); got != 1 {
		t.Errorf("pushed status partial = %v", got)
	}
}

// A Pushgateway that does not answer costs at most the push timeout, and
// the action's exit code stands, with a warning in the log.
func TestMetricsPushFailureIsAWarning(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "no", http.StatusBadGateway)
	}))
	defer srv.Close()
	var out, logs bytes.Buffer
	log := logging.New(&logs, logging.Options{Format: logging.Text, Action: "deploy"})
	r := &run{cfg: &config.Config{PushgatewayURL: srv.URL}, env: Env{Stdout: &out, Now: time.Now}, log: log, start: time.Now()}
	r.rep = partialDeploy()
	r.rep.Status = ""
	if code := r.finish(context.Background(), 2); code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	if !strings.Contains(logs.String(), "WARN [deploy/report/metrics] metrics: [PUSHGATEWAY_URL: unexpected status code 502") {
		t.Errorf("no warning for the failed push:\n%s", logs.String())
	}
}
