package compiler

import (
	"fmt"
	"slices"
	"strings"
	"time"
	// The zone database is compiled in, so that whether a timezone is
	// valid depends on the platform source alone, not on the machine
	// that compiles it (INV-3).
	_ "time/tzdata"

	"github.com/hashicorp/hcl/v2"
	"github.com/robfig/cron/v3"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
)

// schedules lowers the schedule blocks. The cron expression and the zone
// are checked with the parser and the zone lookup the Argo Workflows
// controller itself uses (workflow/validate.ValidateCronWorkflow at
// v3.7.18: robfig/cron's ParseStandard on "CRON_TZ=<zone> <cron>", and
// time.LoadLocation), so what compiles is what the controller schedules.
func (c *compilation) schedules() {
	e := c.eval
	seen := map[string]hcl.Range{}
	for _, ls := range c.m.Schedules {
		switch ls.Action {
		case ir.ScheduleDeploy, ir.ScheduleValidate:
		case "teardown":
			c.diags = append(c.diags, diag.Error(ls.ActionRange, "Teardown cannot be scheduled",
				"A teardown deletes the platform and asks for its name as confirmation; platc does not run one unattended. Schedule \"deploy\" or \"validate\", and run platc teardown by hand."))
			continue
		default:
			c.diags = append(c.diags, diag.Error(ls.ActionRange, "Unknown scheduled action",
				fmt.Sprintf("%q is not an action a schedule can run. Use schedule \"deploy\" (re-apply the platform) or schedule \"validate\" (check its health and drift).", ls.Action)))
			continue
		}
		if first, ok := seen[ls.Action]; ok {
			c.diags = append(c.diags, diag.Error(ls.ActionRange, fmt.Sprintf("Duplicate schedule %q", ls.Action),
				fmt.Sprintf("Only one schedule per action is allowed; the first %q is at %s. Merge the two blocks.", ls.Action, diag.At(first))))
			continue
		}
		seen[ls.Action] = ls.ActionRange
		e.require(ls.Cron, "cron", "schedule", ls.DeclRange)
		s := &ir.Schedule{Action: ls.Action, Timezone: "UTC", Concurrency: ir.ConcurrencyForbid}
		if tz, ok := e.str(ls.Timezone); ok {
			if why := timezoneProblem(tz); why != "" {
				c.diags = append(c.diags, diag.Error(ls.Timezone.Expr.Range(), "Invalid timezone",
					fmt.Sprintf("%q %s. Write an IANA zone name such as \"UTC\", \"Europe/Paris\" or \"America/New_York\".", tz, why)))
			} else {
				s.Timezone = tz
			}
		}
		if expr, ok := e.str(ls.Cron); ok {
			if why := cronProblem(expr, s.Timezone); why != "" {
				c.diags = append(c.diags, diag.Error(ls.Cron.Expr.Range(), "Invalid cron expression",
					fmt.Sprintf("%q %s. Write five fields, minute hour day-of-month month day-of-week, such as \"0 3 * * *\" (03:00 every day) or \"*/30 * * * 1-5\", or a descriptor such as \"@daily\"; the zone goes in timezone.", expr, why)))
			} else {
				s.Cron = expr
			}
		}
		if e.present(ls.Concurrency) {
			if v, ok := e.str(ls.Concurrency); ok && v == "replace" {
				c.diags = append(c.diags, diag.Error(ls.Concurrency.Expr.Range(), "Invalid concurrency",
					"\"replace\" would stop a running deploy half-way to start the next one. Use \"forbid\" (skip a run while the last one is still going) or \"allow\" (queue it behind the platform's lock)."))
			} else if v, ok := e.oneOf(ls.Concurrency, ir.ConcurrencyForbid, ir.ConcurrencyAllow); ok {
				s.Concurrency = v
			}
		}
		if v, ok := e.boolean(ls.Suspend); ok {
			s.Suspend = v
		}
		c.prog.Schedules = append(c.prog.Schedules, s)
	}
	slices.SortFunc(c.prog.Schedules, func(a, b *ir.Schedule) int { return strings.Compare(a.Action, b.Action) })
}

// timezoneProblem says why tz is not a zone the controller can load, or
// "" when it is. "Local" and "" load anywhere but mean the controller's
// own zone, which is what timezone exists to avoid.
func timezoneProblem(tz string) string {
	switch tz {
	case "", "Local":
		return "names no zone (the controller's local time would decide when the schedule fires)"
	}
	// A space would split the "CRON_TZ=<zone> <cron>" the controller
	// parses; LoadLocation accepts no zone with one anyway.
	if strings.ContainsAny(tz, " \t\n") {
		return "contains white space"
	}
	if _, err := time.LoadLocation(tz); err != nil {
		return "is not a known timezone"
	}
	return ""
}

// cronProblem says why expr is not a cron expression the controller
// accepts in zone tz, or "" when it is.
func cronProblem(expr, tz string) string {
	f := strings.Fields(expr)
	if len(f) > 0 && (strings.HasPrefix(f[0], "CRON_TZ=") || strings.HasPrefix(f[0], "TZ=")) {
		return "carries its own zone prefix"
	}
	if _, err := cron.ParseStandard("CRON_TZ=" + tz + " " + expr); err != nil {
		return "is not valid: " + strings.TrimPrefix(err.Error(), "failed to parse ")
	}
	return ""
}

// alerts lowers the alerts block, if any.
func (c *compilation) alerts() {
	la := c.m.Alerts
	if la == nil {
		return
	}
	e := c.eval
	a := &ir.Alerts{
		Namespace: e.typedOr(la.Namespace, gNamespace, c.prog.Platform.Workflows.Namespace),
		Labels:    c.strMap(la.Labels, gMetaKey, gLabelValue),
		For:       10 * time.Minute,
		Severity:  "warning",
	}
	if e.present(la.For) {
		if d, ok := e.duration(la.For, alertDuration); ok {
			a.For = d
		}
	}
	if v, ok := e.oneOf(la.Severity, "info", "warning", "critical"); ok {
		a.Severity = v
	}
	c.prog.Alerts = a
}

// alertDuration bounds how long a condition must hold before it alerts:
// at least one Prometheus evaluation, at most a day.
var alertDuration = durationRange{time.Minute, 24 * time.Hour}
