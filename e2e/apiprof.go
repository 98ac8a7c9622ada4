package e2e

import (
	"bufio"
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// apiSample is the API server's own request counters at one moment
// (GET /metrics): what it served, by verb and resource, and the watch
// events it sent, by kind. Reading them costs one request, so the bench
// reads them before and after every deploy.
type apiSample struct {
	requests map[apiKey]*apiRow
	watch    map[string]*watchRow
}

type apiKey struct{ verb, resource string }

// apiRow is one verb on one resource between two samples.
type apiRow struct {
	Verb     string `json:"verb"`
	Resource string `json:"resource"`
	Count    int64  `json:"count"`
	// Seconds is the summed latency the API server measured
	// (apiserver_request_duration_seconds_sum): time spent, not CPU,
	// though for reads and writes of large objects they go together.
	Seconds float64 `json:"seconds"`
	// ResponseBytes is apiserver_response_sizes_sum (reads only: the
	// API server measures the size of get and list responses).
	ResponseBytes int64 `json:"response_bytes,omitempty"`
}

// watchRow is what the API server sent its watchers about one resource:
// every event is encoded for each watcher, so a large object written
// often costs in proportion to its size, its writes and its watchers.
type watchRow struct {
	Resource string `json:"resource"` // resource.group
	Events   int64  `json:"events"`
	Bytes    int64  `json:"bytes"`
}

// apiMetrics reads the API server's counters.
func (e *Env) apiMetrics(ctx context.Context) (apiSample, error) {
	s := apiSample{requests: map[apiKey]*apiRow{}, watch: map[string]*watchRow{}}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(e.apiCA)
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.URL+"/metrics", nil)
	if err != nil {
		return s, err
	}
	req.Header.Set("Authorization", "Bearer "+e.AdminToken)
	resp, err := hc.Do(req)
	if err != nil {
		return s, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return s, fmt.Errorf("kube-apiserver /metrics: %s", resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		return s, fmt.Errorf("kube-apiserver /metrics: %w", err)
	}
	row := func(m *dto.Metric) *apiRow {
		l := metricLabels(m)
		res := l["resource"]
		if l["subresource"] != "" {
			res += "/" + l["subresource"]
		}
		k := apiKey{l["verb"], res}
		r := s.requests[k]
		if r == nil {
			r = &apiRow{Verb: k.verb, Resource: k.resource}
			s.requests[k] = r
		}
		return r
	}
	for _, m := range fams["apiserver_request_total"].GetMetric() {
		row(m).Count += int64(m.GetCounter().GetValue())
	}
	for _, m := range fams["apiserver_request_duration_seconds"].GetMetric() {
		row(m).Seconds += m.GetHistogram().GetSampleSum()
	}
	for _, m := range fams["apiserver_response_sizes"].GetMetric() {
		row(m).ResponseBytes += int64(m.GetHistogram().GetSampleSum())
	}
	wrow := func(m *dto.Metric) *watchRow {
		l := metricLabels(m)
		k := l["resource"] // "kind" before Kubernetes 1.32
		if k == "" {
			k = l["kind"]
		}
		if l["group"] != "" {
			k += "." + l["group"]
		}
		r := s.watch[k]
		if r == nil {
			r = &watchRow{Resource: k}
			s.watch[k] = r
		}
		return r
	}
	for _, m := range fams["apiserver_watch_events_total"].GetMetric() {
		wrow(m).Events += int64(m.GetCounter().GetValue())
	}
	for _, m := range fams["apiserver_watch_events_sizes"].GetMetric() {
		wrow(m).Bytes += int64(m.GetHistogram().GetSampleSum())
	}
	return s, nil
}

func metricLabels(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

// apiDelta is what the API server served between two samples: requests
// by verb and resource, most first, and watch events by kind, most
// bytes first.
func apiDelta(before, after apiSample) ([]apiRow, []watchRow) {
	return delta(before.requests, after.requests), delta(before.watch, after.watch)
}

// deltaRow is a row of a sample's table: what remains of it after an
// earlier sample's row is taken away, whether anything was served in
// between, and its order in the table.
type deltaRow[R any] interface {
	minus(R) R
	served() bool
	compare(R) int
}

// delta is after's rows less before's, those that served anything, in
// the rows' order.
func delta[K comparable, R deltaRow[R]](before, after map[K]*R) []R {
	var out []R
	for k, a := range after {
		r := *a
		if b := before[k]; b != nil {
			r = r.minus(*b)
		}
		if r.served() {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, R.compare)
	return out
}

func (r apiRow) minus(b apiRow) apiRow {
	r.Count -= b.Count
	r.Seconds -= b.Seconds
	r.ResponseBytes -= b.ResponseBytes
	return r
}

func (r apiRow) served() bool { return r.Count > 0 }

// compare: most requests first, then by verb and resource.
func (r apiRow) compare(o apiRow) int {
	if c := cmp.Compare(o.Count, r.Count); c != 0 {
		return c
	}
	return strings.Compare(r.Verb+r.Resource, o.Verb+o.Resource)
}

func (w watchRow) minus(b watchRow) watchRow {
	w.Events -= b.Events
	w.Bytes -= b.Bytes
	return w
}

func (w watchRow) served() bool { return w.Events > 0 }

// compare: most bytes first, then by resource.
func (w watchRow) compare(o watchRow) int {
	if c := cmp.Compare(o.Bytes, w.Bytes); c != 0 {
		return c
	}
	return strings.Compare(w.Resource, o.Resource)
}

// apiTable renders the first n rows of each.
func apiTable(rows []apiRow, watch []watchRow, n int) string {
	var b strings.Builder
	var total int64
	for _, r := range rows {
		total += r.Count
	}
	fmt.Fprintf(&b, "API server requests during the deploy: %d\n", total)
	fmt.Fprintf(&b, "  %-8s %-40s %8s %9s %11s\n", "VERB", "RESOURCE", "COUNT", "LATENCY-S", "RESP-MB")
	for i, r := range rows {
		if i == n {
			break
		}
		fmt.Fprintf(&b, "  %-8s %-40s %8d %9.1f %11.1f\n", r.Verb, r.Resource, r.Count, r.Seconds, float64(r.ResponseBytes)/1e6)
	}
	fmt.Fprintf(&b, "watch events sent:\n  %-40s %8s %11s\n", "RESOURCE", "EVENTS", "MB")
	for i, w := range watch {
		if i == n {
			break
		}
		fmt.Fprintf(&b, "  %-40s %8d %11.1f\n", w.Resource, w.Events, float64(w.Bytes)/1e6)
	}
	return b.String()
}

// Diagnostic runs (Options.Diagnose, make e2e-bench DIAGNOSE=1) add what
// a measurement run cannot afford, so their CPU figures are not
// comparable with other runs: every request in the audit log at
// Metadata level (who asked) and the application controller's debug log
// (which object update requeued which app). Profiles (PROFILE=dir) are
// cheap and can be taken in any run: kube-apiserver serves /debug/pprof
// by default, the application controller is started with its on.

// fullAuditPolicy keeps execAuditPolicy's pods/exec rule (the step
// runtime reads it, steps.go) and records every other request once, when
// complete, with who made it.
const fullAuditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Metadata
  resources: [{group: "", resources: ["pods/exec"]}]
  omitStages: [ResponseStarted, ResponseComplete, Panic]
- level: Metadata
  omitStages: [RequestReceived, ResponseStarted]
`

// profile takes a CPU profile of each named process over d, into dir
// (name.pprof), concurrently. A process that does not answer is reported
// in the error and the others are kept.
func (pl *Platform) profile(ctx context.Context, dir string, d time.Duration) error {
	e := pl.Env
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(e.apiCA)
	hc := &http.Client{Timeout: d + time.Minute, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	targets := map[string]string{"kube-apiserver": e.URL}
	// Not the workflow controller: ARGO_PPROF registers pprof on Go's
	// default mux, which its :6060 (the health server) does not serve in
	// this release (measured: 404).
	if a := pl.kubelet.addr("argocd-application-controller"); a != "" {
		targets["argocd-application-controller"] = "http://" + a
	}
	var mu sync.Mutex
	var errs []string
	var wg sync.WaitGroup
	for name, base := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := func() error {
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", base, int(d.Seconds())), nil)
				if err != nil {
					return err
				}
				req.Header.Set("Authorization", "Bearer "+e.AdminToken)
				resp, err := hc.Do(req)
				if err != nil {
					return err
				}
				defer resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
					return fmt.Errorf("%s: %s", resp.Status, strings.TrimSpace(string(b)))
				}
				f, err := os.Create(filepath.Join(dir, name+".pprof"))
				if err != nil {
					return err
				}
				if _, err := io.Copy(f, resp.Body); err != nil {
					f.Close()
					return err
				}
				return f.Close()
			}()
			if err != nil {
				mu.Lock()
				errs = append(errs, name+": "+err.Error())
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		sort.Strings(errs)
		return fmt.Errorf("profiles: %s", strings.Join(errs, "; "))
	}
	return nil
}

// pprofTop is `go tool pprof -top` of a profile: the functions that
// used the most CPU, by their own time and by their callees'.
func pprofTop(ctx context.Context, file string, n int) string {
	var b strings.Builder
	for _, mode := range []string{"-top", "-top -cum"} {
		args := append([]string{"tool", "pprof"}, strings.Fields(mode)...)
		args = append(args, fmt.Sprintf("-nodecount=%d", n), file)
		out, err := exec.CommandContext(ctx, "go", args...).CombinedOutput()
		if err != nil {
			fmt.Fprintf(&b, "go tool pprof %s: %v\n", mode, err)
		}
		b.Write(out)
	}
	return b.String()
}

// clientRow is one client's requests, from the audit log.
type clientRow struct {
	Client   string `json:"client"`
	Verb     string `json:"verb"`
	Resource string `json:"resource"`
	Count    int64  `json:"count"`
}

// auditClients counts the completed requests in the audit log from
// since on, by client (its user agent's product and user name), verb
// and resource, most first.
func (e *Env) auditClients(since time.Time) ([]clientRow, error) {
	f, err := os.Open(e.auditLog())
	if err != nil {
		return nil, err
	}
	defer f.Close()
	counts := map[clientRow]int64{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev struct {
			Stage    string    `json:"stage"`
			Verb     string    `json:"verb"`
			Received time.Time `json:"requestReceivedTimestamp"`
			Agent    string    `json:"userAgent"`
			User     struct {
				Username string `json:"username"`
			} `json:"user"`
			ObjectRef struct {
				Resource, Subresource string
			} `json:"objectRef"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Stage != "ResponseComplete" || ev.Received.Before(since) {
			continue
		}
		res := ev.ObjectRef.Resource
		if ev.ObjectRef.Subresource != "" {
			res += "/" + ev.ObjectRef.Subresource
		}
		if res == "" {
			res = "(non-resource)"
		}
		counts[clientRow{Client: clientName(ev.Agent, ev.User.Username), Verb: ev.Verb, Resource: res}]++
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	rows := make([]clientRow, 0, len(counts))
	for r, n := range counts {
		r.Count = n
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Count != rows[j].Count {
			return rows[i].Count > rows[j].Count
		}
		return rows[i].Client+rows[i].Verb+rows[i].Resource < rows[j].Client+rows[j].Verb+rows[j].Resource
	})
	return rows, nil
}

// clientName names a client by its user agent's product ("argocd-
// application-controller/v3.2.6 (linux/amd64) ..." is
// argocd-application-controller) and, for kube-controller-manager, the
// controller (the agent's last segment), with the user it authenticated
// as when that is not the environment's admin.
func clientName(agent, user string) string {
	name, _, _ := strings.Cut(agent, " ")
	product, _, _ := strings.Cut(name, "/")
	if product == "kube-controller-manager" {
		seg := agent[strings.LastIndexByte(agent, '/')+1:]
		product += "/" + seg[strings.LastIndexByte(seg, ':')+1:] // a service account's name

	}
	if product == "" {
		product = "(no user agent)"
	}
	if user != "" && user != "admin" {
		product += " as " + user
	}
	return product
}

// refreshCause is one kind of object whose updates requeued apps, from
// the application controller's debug log.
type refreshCause struct {
	Kind string `json:"kind"`
	// App is "root" (the app of apps) or "app".
	App string `json:"app"`
	// Level is the comparison the update asked for: 0 compares nothing
	// (the object is not one the app manages itself: a pod of its
	// Deployment), 1 compares with the last manifests.
	Level    int   `json:"level"`
	Requests int64 `json:"requests"`
}

// refreshCauses reads the application controller's debug log, from
// since on, for
// "Requesting app refresh caused by object update" and counts them by
// the object's kind, the app and the level; ignored counts the updates
// Argo CD's ignoreResourceUpdates dropped, by kind.
func (e *Env) refreshCauses(root string, since time.Time) ([]refreshCause, map[string]int64, error) {
	f, err := os.Open(filepath.Join(e.opts.Dir, "logs", "argocd-application-controller.log"))
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	counts := map[refreshCause]int64{}
	ignored := map[string]int64{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var ev struct {
			Time  time.Time `json:"time"`
			Kind  string    `json:"kind"`
			App   string    `json:"application"`
			Level int       `json:"comparison-level"`
		}
		switch {
		case strings.Contains(string(line), "Requesting app refresh caused by object update"):
			if json.Unmarshal(line, &ev) != nil || ev.Time.Before(since.Truncate(time.Second)) {
				continue
			}
			app := "app"
			if ev.App == root || strings.HasSuffix(ev.App, "/"+root) {
				app = "root"
			}
			counts[refreshCause{Kind: ev.Kind, App: app, Level: ev.Level}]++
		case strings.Contains(string(line), "Ignoring change of object"):
			if json.Unmarshal(line, &ev) == nil && !ev.Time.Before(since.Truncate(time.Second)) {
				ignored[ev.Kind]++
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	rows := make([]refreshCause, 0, len(counts))
	for c, n := range counts {
		c.Requests = n
		rows = append(rows, c)
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Requests != rows[j].Requests {
			return rows[i].Requests > rows[j].Requests
		}
		return fmt.Sprint(rows[i]) < fmt.Sprint(rows[j])
	})
	return rows, ignored, nil
}

// addr is the address of the running process playing name's container
// (in any namespace), or "".
func (k *processKubelet) addr(name string) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, p := range k.running {
		if p.name == name {
			return p.addr
		}
	}
	return ""
}
