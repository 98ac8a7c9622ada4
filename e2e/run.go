package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// RunOptions are make e2e-run's parameters.
type RunOptions struct {
	Options
	PlatformOptions
	// Out receives the run's files.
	Out string
	// Later are later versions of the platform, deployed in turn on the
	// same environment after the first deploy (day-2 changes, see
	// Platform.Change), each as deploy-2, deploy-3 and so on.
	Later []string
	// Prune passes PRUNE=true to every deploy.
	Prune bool
	// Hold, when set, is called once the platform is bootstrapped and
	// before the executor runs; Run waits for it to return (e2e-run
	// -hold keeps the environment up for a person to look at).
	Hold func(*Platform)
	// Failed, when set, is called with the environment when bringing the
	// platform up fails, before the environment stops.
	Failed func(*Env, error)
}

// RunSummary is what Run found, beside the files it wrote.
type RunSummary struct {
	ExitCodes  map[string]int `json:"exitCodes"`
	Violations []string       `json:"violations"`
	Problems   []string       `json:"problems"`
	Notes      []string       `json:"notes"`
}

// Run pushes one platform through the whole life cycle in a fresh
// environment: deploy, each later version and its deploy, validate,
// (with Fail) the fix and a second deploy, teardown. It writes into opts.Out: exit-codes.json, each step's report
// (<step>.report.json) and logs (<step>.log.jsonl), timeline.json, and
// checks.json (the ordering checks of the timeline, and what the
// simulated runtime could not do).
func Run(ctx context.Context, opts RunOptions) (*RunSummary, error) {
	if _, _, _, err := loadPlatform(opts.PlatformOptions); err != nil {
		return nil, err
	}
	// Every later version too, before an environment is started for them.
	for _, later := range opts.Later {
		o := opts.PlatformOptions
		o.Path, o.Fail = later, nil
		if _, _, _, err := loadPlatform(o); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return nil, err
	}
	env, err := Start(ctx, opts.Options)
	if err != nil {
		return nil, err
	}
	defer env.Close()
	pl, err := env.Deploy(ctx, opts.PlatformOptions)
	if err != nil {
		if opts.Failed != nil {
			opts.Failed(env, err)
		}
		return nil, err
	}
	if opts.Hold != nil {
		opts.Hold(pl)
	}
	sum := &RunSummary{ExitCodes: map[string]int{}, Notes: pl.Notes}
	write := func(name string, v any) error {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(opts.Out, name), append(b, '\n'), 0o644)
	}
	step := func(name, action string, env ...string) (*Result, error) {
		r, err := pl.Platc(ctx, action, env...)
		if err != nil {
			return nil, err
		}
		sum.ExitCodes[name] = r.ExitCode
		if err := os.WriteFile(filepath.Join(opts.Out, name+".report.json"), r.Report, 0o644); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(opts.Out, name+".log.jsonl"), r.Logs, 0o644); err != nil {
			return nil, err
		}
		return r, write("exit-codes.json", sum.ExitCodes)
	}
	var deployEnv []string
	if opts.Prune {
		deployEnv = append(deployEnv, "PRUNE=true")
	}
	if _, err := step("deploy", "deploy", deployEnv...); err != nil {
		return nil, err
	}
	for i, later := range opts.Later {
		if err := pl.Change(ctx, later); err != nil {
			return nil, err
		}
		if _, err := step(fmt.Sprintf("deploy-%d", i+2), "deploy", deployEnv...); err != nil {
			return nil, err
		}
	}
	if _, err := step("validate", "validate"); err != nil {
		return nil, err
	}
	if len(opts.Fail) > 0 {
		if err := pl.Fix(ctx, opts.Fail); err != nil {
			return nil, err
		}
		if _, err := step("resume", "deploy", deployEnv...); err != nil {
			return nil, err
		}
	}
	deployed := pl.Timeline.Events()
	if _, err := step("teardown", "teardown", "TEARDOWN_CONFIRM="+pl.Program.Platform.Name); err != nil {
		return nil, err
	}
	// Deletions are recorded as the Applications go: the watch must
	// have delivered the last ones.
	if err := pl.Timeline.Settle(ctx, 30*time.Second); err != nil {
		return nil, err
	}
	all := pl.Timeline.Events()
	if err := pl.Timeline.WriteFile(filepath.Join(opts.Out, "timeline.json")); err != nil {
		return nil, err
	}
	sum.Violations = append(CheckDeployOrder(pl.Declared, deployed), CheckTeardownOrder(pl.Declared, all[len(deployed):])...)
	sum.Problems = pl.Problems()
	slices.Sort(sum.Problems)
	if err := write("checks.json", sum); err != nil {
		return nil, err
	}
	return sum, nil
}

// String is a one-line summary.
func (s *RunSummary) String() string {
	return fmt.Sprintf("exit codes %v, %d ordering violations, %d runtime problems", s.ExitCodes, len(s.Violations), len(s.Problems))
}
