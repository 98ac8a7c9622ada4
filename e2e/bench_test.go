package e2e

import (
	"context"
	"os"
	"path/filepath"
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
// It is a benchmark, not a test: run it with make e2e-bench.
func BenchmarkDeploy1000(b *testing.B) {
	benchDeploy(b, 1000)
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
	env, err := Start(ctx, Options{Bin: bin, Src: filepath.Join(bin, "..", "src"), Dir: filepath.Join(dir, "env"), Log: b.Logf})
	if err != nil {
		b.Fatal(err)
	}
	defer env.Close()
	platc := platcBinary(b)
	pl, err := env.Deploy(ctx, PlatformOptions{Path: path, Platc: platc})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := pl.Platc(ctx, "deploy")
		if err != nil {
			b.Fatal(err)
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
