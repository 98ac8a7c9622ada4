package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/platc/platc/compiler/ir"
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
// benchmark keeps its name.
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
	benchDeploy(b, apps)
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

// reportCPU reports CPU-seconds per app between two samples.
func reportCPU(b *testing.B, before, after cpuSample, apps int) {
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
	}
	steps := after.steps - before.steps
	busy := after.busy - before.busy
	b.ReportMetric(per(steps), "steps-cpu-s/app")
	b.ReportMetric(per(comp+steps), "env-cpu-s/app")
	b.ReportMetric(per(busy), "busy-cpu-s/app")
	b.Logf("CPU-s per app: %s; steps and platc %.3f; environment total %.3f; machine busy %.3f (every process on the machine)",
		strings.Join(lines, ", "), per(steps), per(comp+steps), per(busy))
}

func benchDeploy(b *testing.B, apps int) {
	if os.Getenv("PLATC_E2E") != "1" || os.Getenv("PLATC_E2E_BIN") == "" {
		b.Skip("end-to-end benchmark: run make e2e-bench")
	}
	dir := b.TempDir()
	path := filepath.Join(dir, "platform.hcl")
	if err := os.WriteFile(path, synth.Generate(synth.Options{Apps: apps, Seed: 1}), 0o644); err != nil {
		b.Fatal(err)
	}
	bin := os.Getenv("PLATC_E2E_BIN")
	ctx, cancel := context.WithTimeout(context.Background(), 110*time.Minute)
	defer cancel()
	platc := platcBinary(b)
	env, err := Start(ctx, Options{Bin: bin, Src: filepath.Join(bin, "..", "src"), Dir: filepath.Join(dir, "env"), Platc: platc, Log: b.Logf})
	if err != nil {
		b.Fatal(err)
	}
	defer env.Close()
	pl, err := env.Deploy(ctx, PlatformOptions{Path: path, Platc: platc})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		before := sampleCPU(b, env)
		r, err := pl.Platc(ctx, "deploy")
		if err != nil {
			b.Fatal(err)
		}
		reportCPU(b, before, sampleCPU(b, env), apps)
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
	}
	b.StopTimer()
	for _, name := range []string{"workflow-controller", "argocd-application-controller", "argocd-repo-server", "argocd-server", "kube-apiserver"} {
		if rss, err := env.PeakRSS(name); err == nil {
			b.ReportMetric(float64(rss)/(1<<20), name+"-MiB")
		}
	}
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
