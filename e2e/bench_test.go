package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/argo"
	"github.com/platc/platc/internal/synth"
)

// BenchmarkDeploy1000 deploys a 1,000-app synthetic platform
// (internal/synth, seed 1) on the platform-in-a-box and reports:
//
//   - wall-s: platc deploy's wall time;
//   - critical-s: the critical path of the apps' simulated durations
//     (expected_duration scaled a minute to a second), the least any
//     orchestrator could take;
//   - overhead-s and overhead-%: wall time minus critical path, absolute
//     and as a share of the wall time (the makespan);
//   - the peak RSS of the workflow controller and of Argo CD's
//     application controller, repo-server and server.
//
// It also reports CPU-seconds per app over platc deploy's window: of
// each component process (from /proc/PID/stat), of the step processes
// and platc (the test process's waited-for children), and busy
// machine-wide (/proc/stat, which counts every process on the machine,
// other users' too).
//
// PLATC_BENCH_APPS (make e2e-bench APPS=N) deploys N apps instead; the
// benchmark keeps its name. PLATC_BENCH_PARALLELISM (PARALLELISM=P)
// sets platform.workflows.parallelism instead of synth's 20. PLATC_BENCH_OUT (make e2e-bench
// BENCH_OUT=file.json) also writes the figures as JSON (benchResult):
// with the wall time and critical path, the CPU-seconds per app, the
// layout the emitter chose (Workflows, nodes each, the largest object
// it wrote) and the largest Workflow objects the API server held after
// the deploy, by bytes of JSON and by status nodes.
//
// It is a benchmark, not a test: run it with make e2e-bench.
func BenchmarkDeploy1000(b *testing.B) {
	apps := 1000
	if v := os.Getenv("PLATC_BENCH_APPS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("PLATC_BENCH_APPS=%q: want a number of apps, at least 1", v)
		}
		apps = n
	}
	par := 0 // synth's default, 20
	if v := os.Getenv("PLATC_BENCH_PARALLELISM"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("PLATC_BENCH_PARALLELISM=%q: want a number of apps at once, at least 1", v)
		}
		par = n
	}
	benchDeploy(b, apps, par)
}

// cpuSample is the CPU time used so far, by component, by the test
// process's waited-for children (the step processes and platc), and by
// the whole machine.
type cpuSample struct {
	procs       map[string]time.Duration
	steps, busy time.Duration
}

func sampleCPU(b *testing.B, env *Env) cpuSample {
	s := cpuSample{procs: env.CPUTimes()}
	var err error
	if s.steps, err = procCPU("/proc/self/stat", true); err != nil {
		b.Fatal(err)
	}
	if s.busy, err = machineBusy(); err != nil {
		b.Fatal(err)
	}
	return s
}

// reportCPU reports CPU-seconds per app between two samples, and returns
// them by component ("steps", "environment" and "machine-busy" included).
func reportCPU(b *testing.B, before, after cpuSample, apps int) map[string]float64 {
	out := map[string]float64{}
	per := func(d time.Duration) float64 { return d.Seconds() / float64(apps) }
	names := make([]string, 0, len(after.procs))
	for n := range after.procs {
		names = append(names, n)
	}
	sort.Strings(names)
	var lines []string
	var comp time.Duration
	for _, n := range names {
		d := after.procs[n] - before.procs[n]
		comp += d
		lines = append(lines, fmt.Sprintf("%s %.3f", n, per(d)))
		b.ReportMetric(per(d), n+"-cpu-s/app")
		out[n] = per(d)
	}
	steps := after.steps - before.steps
	busy := after.busy - before.busy
	b.ReportMetric(per(steps), "steps-cpu-s/app")
	b.ReportMetric(per(comp+steps), "env-cpu-s/app")
	b.ReportMetric(per(busy), "busy-cpu-s/app")
	b.Logf("CPU-s per app: %s; steps and platc %.3f; environment total %.3f; machine busy %.3f (every process on the machine)",
		strings.Join(lines, ", "), per(steps), per(comp+steps), per(busy))
	out["steps"], out["environment"], out["machine-busy"] = per(steps), per(comp+steps), per(busy)
	return out
}

func benchDeploy(b *testing.B, apps, parallelism int) {
	if os.Getenv("PLATC_E2E") != "1" || os.Getenv("PLATC_E2E_BIN") == "" {
		b.Skip("end-to-end benchmark: run make e2e-bench")
	}
	dir := b.TempDir()
	path := filepath.Join(dir, "platform.hcl")
	if err := os.WriteFile(path, synth.Generate(synth.Options{Apps: apps, Seed: 1, Parallelism: parallelism}), 0o644); err != nil {
		b.Fatal(err)
	}
	bin := os.Getenv("PLATC_E2E_BIN")
	ctx, cancel := context.WithTimeout(context.Background(), 110*time.Minute)
	defer cancel()
	platc := platcBinary(b)
	// PLATC_BENCH_PROFILE=dir (make e2e-bench PROFILE=dir) takes 30 s
	// CPU profiles mid-deploy into dir, which costs little;
	// PLATC_BENCH_DIAGNOSE=1 (DIAGNOSE=1) makes the run a diagnostic one
	// (Options.Diagnose): who made each request, what requeued each app.
	profDir := os.Getenv("PLATC_BENCH_PROFILE")
	if profDir != "" {
		if err := os.MkdirAll(profDir, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	diagnose := os.Getenv("PLATC_BENCH_DIAGNOSE") == "1"
	env, err := Start(ctx, Options{Bin: bin, Src: filepath.Join(bin, "..", "src"), Dir: filepath.Join(dir, "env"), Platc: platc, Log: b.Logf, Diagnose: diagnose})
	if err != nil {
		b.Fatal(err)
	}
	defer env.Close()
	pl, err := env.Deploy(ctx, PlatformOptions{Path: path, Platc: platc})
	if err != nil {
		b.Fatal(err)
	}
	res := benchResult{Apps: apps, Parallelism: pl.Program.Platform.Workflows.Parallelism, PeakRSSMiB: map[string]float64{}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		apiBefore, err := env.apiMetrics(ctx)
		if err != nil {
			b.Fatal(err)
		}
		since := time.Now()
		before := sampleCPU(b, env)
		profiled := make(chan error, 1)
		deployed := make(chan struct{})
		if profDir != "" {
			go func() {
				// Mid-deploy: after the first minute the DAG's steps,
				// the syncs and the simulated operators all run.
				select {
				case <-time.After(profileAfter):
					profiled <- pl.profile(ctx, profDir, 30*time.Second)
				case <-deployed:
					profiled <- fmt.Errorf("the deploy ended within %s, before the profiles", profileAfter)
				}
			}()
		}
		r, err := pl.Platc(ctx, "deploy")
		close(deployed)
		if err != nil {
			b.Fatal(err)
		}
		res.CPUSecondsPerApp = reportCPU(b, before, sampleCPU(b, env), apps)
		apiAfter, err := env.apiMetrics(ctx)
		if err != nil {
			b.Fatal(err)
		}
		rows, watch := apiDelta(apiBefore, apiAfter)
		b.Logf("%s", apiTable(rows, watch, 20))
		res.APIRequests, res.WatchEvents = rows, watch
		if profDir != "" {
			if err := <-profiled; err != nil {
				b.Logf("no CPU profiles: %v", err)
			}
			files, _ := filepath.Glob(filepath.Join(profDir, "*.pprof"))
			for _, f := range files {
				b.Logf("CPU profile %s (30 s from %s into the deploy):\n%s", f, profileAfter, pprofTop(ctx, f, 25))
			}
		}
		if diagnose {
			res.diagnose(b, pl, since)
		}
		if r.ExitCode != 0 {
			b.Fatalf("deploy exited %d:\n%s\n%s", r.ExitCode, r.Report, r.LastLog(20))
		}
		crit := criticalPath(pl.Program, pl.Opts.Scale)
		over := r.Duration - crit
		b.ReportMetric(r.Duration.Seconds(), "wall-s")
		b.ReportMetric(crit.Seconds(), "critical-s")
		b.ReportMetric(over.Seconds(), "overhead-s")
		b.ReportMetric(100*over.Seconds()/r.Duration.Seconds(), "overhead-%")
		b.Logf("%d apps: wall %s, critical path %s, overhead %s (%.0f%% of the makespan), %d step pods",
			apps, r.Duration.Round(time.Second), crit.Round(time.Second), over.Round(time.Second),
			100*over.Seconds()/r.Duration.Seconds(), pl.Steps())
		res.WallSeconds, res.CriticalPathSeconds, res.OverheadPercent = r.Duration.Seconds(), crit.Seconds(), 100*over.Seconds()/r.Duration.Seconds()
		res.StepPods = pl.Steps()
	}
	b.StopTimer()
	for _, name := range []string{"workflow-controller", "argocd-application-controller", "argocd-repo-server", "argocd-server", "kube-apiserver"} {
		if rss, err := env.PeakRSS(name); err == nil {
			b.ReportMetric(float64(rss)/(1<<20), name+"-MiB")
			res.PeakRSSMiB[name] = float64(rss) / (1 << 20)
		}
	}
	if err := res.sizes(ctx, env, pl); err != nil {
		b.Fatal(err)
	}
	b.Logf("largest object written: %s, %d bytes; largest Workflow held: %s, %d bytes, %d status nodes",
		res.LargestObject, res.LargestObjectBytes, res.LargestWorkflow, res.LargestWorkflowBytes, res.MostWorkflowNodes)
	if out := os.Getenv("PLATC_BENCH_OUT"); out != "" {
		data, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(out, append(data, '\n'), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// benchResult is what PLATC_BENCH_OUT holds.
type benchResult struct {
	Apps                int     `json:"apps"`
	Parallelism         int     `json:"parallelism"`
	WallSeconds         float64 `json:"wall_seconds"`
	CriticalPathSeconds float64 `json:"critical_path_seconds"`
	// OverheadPercent is wall time minus critical path, as a share of
	// the wall time.
	OverheadPercent  float64            `json:"overhead_percent"`
	StepPods         int                `json:"step_pods"`
	CPUSecondsPerApp map[string]float64 `json:"cpu_seconds_per_app"`
	PeakRSSMiB       map[string]float64 `json:"peak_rss_mib"`
	// NodeBudget and Workflows are the emitter's layout: per workflow,
	// how many Workflows it is and their nodes counted at worst.
	NodeBudget int             `json:"node_budget"`
	Workflows  []benchWorkflow `json:"workflows"`
	// LargestObject is the largest object platc build wrote, as JSON.
	LargestObject      string `json:"largest_object"`
	LargestObjectBytes int    `json:"largest_object_bytes"`
	// LargestWorkflow is the largest Workflow the API server held after
	// the deploy (status included), by bytes of JSON; MostWorkflowNodes
	// the most status nodes one held.
	LargestWorkflow      string `json:"largest_workflow"`
	LargestWorkflowBytes int    `json:"largest_workflow_bytes"`
	MostWorkflowNodes    int    `json:"most_workflow_nodes"`
	// APIRequests are the requests the API server served during the
	// deploy, by verb and resource, most first; WatchEvents the events
	// it sent its watchers, by resource, most bytes first (apiprof.go).
	APIRequests []apiRow   `json:"api_requests"`
	WatchEvents []watchRow `json:"watch_events"`
	// A diagnostic run's (PLATC_BENCH_DIAGNOSE): the requests by client,
	// from the audit log; the object updates that requeued apps, by
	// kind, and the updates ignoreResourceUpdates dropped, from the
	// application controller's debug log.
	Clients        []clientRow      `json:"clients,omitempty"`
	RefreshCauses  []refreshCause   `json:"refresh_causes,omitempty"`
	IgnoredUpdates map[string]int64 `json:"ignored_updates,omitempty"`
}

// profileAfter is how far into the deploy a diagnostic run takes its
// 30-second CPU profiles.
const profileAfter = 60 * time.Second

// diagnose adds a diagnostic run's findings to the result and the log.
func (res *benchResult) diagnose(b *testing.B, pl *Platform, since time.Time) {
	clients, err := pl.Env.auditClients(since)
	if err != nil {
		b.Fatal(err)
	}
	res.Clients = clients
	var t strings.Builder
	perClient := map[string]int64{}
	for _, c := range clients {
		perClient[c.Client] += c.Count
	}
	names := make([]string, 0, len(perClient))
	for n := range perClient {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return perClient[names[i]] > perClient[names[j]] })
	for _, n := range names {
		fmt.Fprintf(&t, "  %8d  %s\n", perClient[n], n)
	}
	for i, c := range clients {
		if i == 30 {
			break
		}
		fmt.Fprintf(&t, "  %8d  %-8s %-35s %s\n", c.Count, c.Verb, c.Resource, c.Client)
	}
	b.Logf("requests by client (audit log), then by client, verb and resource:\n%s", t.String())
	if res.RefreshCauses, res.IgnoredUpdates, err = pl.Env.refreshCauses("platc-root", since); err != nil { // emit/internal/gitops.RootApp
		b.Fatal(err)
	}
	t.Reset()
	for _, c := range res.RefreshCauses {
		fmt.Fprintf(&t, "  %8d  %-4s level %d  %s\n", c.Requests, c.App, c.Level, c.Kind)
	}
	kinds := make([]string, 0, len(res.IgnoredUpdates))
	for k := range res.IgnoredUpdates {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		fmt.Fprintf(&t, "  ignored %6d  %s\n", res.IgnoredUpdates[k], k)
	}
	b.Logf("app refreshes requested by object updates (application controller debug log), during the deploy:\n%s", t.String())
}

type benchWorkflow struct {
	Name      string `json:"name"`
	Workflows int    `json:"workflows"`
	// Nodes are the parent's (or the single Workflow's); MostChildNodes
	// the largest child's.
	Nodes          int `json:"nodes"`
	MostChildNodes int `json:"most_child_nodes,omitempty"`
}

// sizes fills the layout from the emitter and the Workflows' sizes from
// the API server.
func (res *benchResult) sizes(ctx context.Context, env *Env, pl *Platform) error {
	o, err := argo.Build(pl.Program)
	if err != nil {
		return err
	}
	layouts, kind, name, size, err := o.Layouts()
	if err != nil {
		return err
	}
	res.NodeBudget = pl.Program.Platform.Workflows.NodeBudget
	res.LargestObject, res.LargestObjectBytes = kind+" "+name, size
	for _, l := range layouts {
		w := benchWorkflow{Name: l.Name, Workflows: 1 + len(l.Children), Nodes: l.Nodes}
		for _, c := range l.Children {
			w.MostChildNodes = max(w.MostChildNodes, c.Nodes)
		}
		res.Workflows = append(res.Workflows, w)
	}
	list, err := env.Dynamic.Resource(workflowGVR).Namespace(pl.Program.Platform.Workflows.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, w := range list.Items {
		data, err := json.Marshal(w.Object)
		if err != nil {
			return err
		}
		if len(data) > res.LargestWorkflowBytes {
			res.LargestWorkflow, res.LargestWorkflowBytes = w.GetName(), len(data)
		}
		nodes, _, _ := unstructured.NestedMap(w.Object, "status", "nodes")
		n := len(nodes)
		// Argo writes status.compressedNodes (base64 of gzip of the JSON
		// node map) instead when the status grows too large.
		if c, _, _ := unstructured.NestedString(w.Object, "status", "compressedNodes"); c != "" {
			if n, err = compressedNodes(c); err != nil {
				return fmt.Errorf("workflow %s: %w", w.GetName(), err)
			}
		}
		res.MostWorkflowNodes = max(res.MostWorkflowNodes, n)
	}
	return nil
}

// criticalPath is the longest chain of scaled expected durations: Apps
// are in topological order, so one pass settles each app's finish.
func criticalPath(p *ir.Program, scale float64) time.Duration {
	finish := map[*ir.App]time.Duration{}
	var longest time.Duration
	for _, a := range p.Apps {
		var start time.Duration
		for _, d := range a.Deps {
			start = max(start, finish[d.App])
		}
		finish[a] = start + scaled(a.ExpectedDuration, scale)
		longest = max(longest, finish[a])
	}
	return longest
}

// compressedNodes counts the nodes of a status.compressedNodes.
func compressedNodes(s string) (int, error) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return 0, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return 0, err
	}
	var nodes map[string]json.RawMessage
	if err := json.NewDecoder(zr).Decode(&nodes); err != nil {
		return 0, err
	}
	return len(nodes), nil
}
