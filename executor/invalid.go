package executor

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/executor/config"
	"github.com/platc/platc/executor/logging"
	"github.com/platc/platc/internal/english"
	"github.com/platc/platc/internal/exitcode"
	"github.com/platc/platc/report"
)

// Invalid reports a run whose configuration has problems and returns
// exit 3, having done nothing: one log line per problem, the platform's
// diagnostics with source snippets (text logs, to stderr; colour says
// whether to colour them) or as log lines (JSON logs), then a report
// saying "invalid" on stdout and, when their own settings are sound, the
// metrics.
func Invalid(cfg *config.Config, probs *config.Problems, log *logging.Logger, stdout, stderr io.Writer, colour bool) int {
	for _, p := range probs.Errors {
		log.Errorf("config", "platc", "%s", p)
	}
	errs, _ := report.Counts(probs.Diags)
	if errs > 0 {
		if cfg.LogFormat == logging.JSON || cfg.Module == nil {
			for _, d := range probs.Diags {
				log.Errorf("config", "platform", "%s", report.Line(d))
			}
		} else {
			_ = report.Text(stderr, cfg.Module.Files, probs.Diags, report.TextOptions{Color: colour})
		}
	}
	n := len(probs.Errors) + errs
	rep := &Report{
		Action: string(cfg.Action), Status: "invalid", StartedAt: time.Now().UTC().Truncate(time.Second), ExitCode: exitcode.Invalid, Scope: cfg.Scope.String(),
		Summary:    fmt.Sprintf("invalid configuration: %d %s; nothing was done", n, english.Plural(n, "problem")),
		Problems:   probs.Errors,
		Components: []Component{}, Failures: []Failure{}, Metrics: map[string]int{},
		Recommend: []string{"Fix the configuration problems above and run again; see 'platc " + string(cfg.Action) + " --help' for every setting."},
	}
	for _, d := range probs.Diags {
		if d.Severity == hcl.DiagError {
			rep.Problems = append(rep.Problems, report.Line(d))
		}
	}
	rep.Environment = cfg.Environment
	if cfg.Program != nil {
		rep.Platform = cfg.Program.Platform.Name
	}
	if err := ExportMetrics(context.Background(), rep, cfg.MetricsFile, cfg.PushgatewayURL); err != nil {
		log.Warnf("report", "metrics", "%v", err)
	}
	if cfg.LogFormat == logging.JSON {
		_ = rep.WriteJSON(stdout)
	} else {
		rep.WriteText(stdout)
	}
	return exitcode.Invalid
}
