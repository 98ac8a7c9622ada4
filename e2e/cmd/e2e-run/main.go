// Command e2e-run pushes one platform through platc's platform-in-a-box:
// deploy, each later version given (-platform a,b,...) and its deploy,
// validate, (with -fail) the fix and a second deploy, teardown.
// make e2e-run is the usual way to call it; docs/e2e.md describes the
// environment and the files it writes.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/platc/platc/e2e"
)

func main() {
	os.Exit(run())
}

func run() int {
	var (
		platform = flag.String("platform", "", "the platform: a directory of .hcl files or one file; a comma-separated list deploys each later one as a day-2 change of the first (required)")
		prune    = flag.Bool("prune", false, "pass PRUNE=true to every deploy: delete the Applications of apps a later version removed")
		env      = flag.String("env", "", "the environment (default: the first one declared)")
		fail     = flag.String("fail", "", "comma-separated apps whose operators report Degraded until the fix")
		out      = flag.String("out", "", "directory for the run's files (required)")
		platc    = flag.String("platc", "bin/platc", "the platc binary")
		scale    = flag.Float64("scale", 1.0/60, "simulated time per real time of expected durations (1/60: a minute is a second)")
		dir      = flag.String("dir", "", "directory for the environment's state and logs (default: OUT/env)")
		hold     = flag.Bool("hold", false, "stop after the bootstrap and keep the environment up until interrupted")
		charts   = flag.String("charts", "", "a directory of the upstream charts' archives (<chart>-<version>.tgz, scripts/e2e-charts.sh) to install in place of the stand-ins")
	)
	flag.Parse()
	if *platform == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: e2e-run -platform DIR[,DIR2,...] -out DIR [-env NAME] [-fail app,...] [-prune] [-charts DIR]")
		return 3
	}
	bin := os.Getenv("PLATC_E2E_BIN")
	if bin == "" {
		fmt.Fprintln(os.Stderr, "PLATC_E2E_BIN is not set: run .ci/e2e/build.sh (or make e2e-run, which does) and set it to the directory it prints")
		return 3
	}
	src := os.Getenv("PLATC_E2E_SRC")
	if src == "" {
		src = filepath.Join(bin, "..", "src")
	}
	if *dir == "" {
		*dir = filepath.Join(*out, "env")
	}
	// The environment keeps etcd's data there: a second run on it would
	// start on the first one's cluster (its pods, its Applications) and
	// wait for processes that no longer exist.
	if entries, err := os.ReadDir(*dir); err == nil && len(entries) > 0 {
		fmt.Fprintf(os.Stderr, "e2e-run: %s holds an earlier run's environment; remove it (rm -rf %s) or choose another -out\n", *dir, *out)
		return 3
	}
	absPlatc, err := filepath.Abs(*platc)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	versions := strings.Split(*platform, ",")
	var failing []string
	if *fail != "" {
		failing = strings.Split(*fail, ",")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	var holdFn func(*e2e.Platform)
	if *hold {
		holdFn = func(pl *e2e.Platform) {
			fmt.Printf("e2e-run: holding; KUBECONFIG=%s; Argo CD at %s (admin password %s); interrupt to stop\n",
				pl.Env.Kubeconfig, pl.ArgoCD.Addr, pl.ArgoCD.AdminPassword)
			<-ctx.Done()
		}
	}
	var failFn func(*e2e.Env, error)
	if *hold {
		failFn = func(env *e2e.Env, err error) {
			fmt.Printf("e2e-run: %v\nholding; KUBECONFIG=%s; interrupt to stop\n", err, env.Kubeconfig)
			<-ctx.Done()
		}
	}
	sum, err := e2e.Run(ctx, e2e.RunOptions{
		Hold:            holdFn,
		Failed:          failFn,
		Options:         e2e.Options{Bin: bin, Src: src, Dir: *dir, Platc: absPlatc, Log: func(f string, a ...any) { fmt.Fprintf(os.Stderr, "e2e: "+f+"\n", a...) }},
		PlatformOptions: e2e.PlatformOptions{Path: versions[0], Env: *env, Platc: absPlatc, Scale: *scale, Fail: failing, Charts: *charts},
		Out:             *out,
		Later:           versions[1:],
		Prune:           *prune,
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e-run: %v\n", err)
		return 1
	}
	fmt.Printf("e2e-run: %s in %s; files in %s\n", sum, time.Since(start).Round(time.Second), *out)
	for _, v := range sum.Violations {
		fmt.Println("  order:", v)
	}
	for _, p := range sum.Problems {
		fmt.Println("  runtime:", p)
	}
	if len(sum.Violations) > 0 || len(sum.Problems) > 0 {
		return 1
	}
	return 0
}
