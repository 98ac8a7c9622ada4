package rules

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/compiler/valid"
	"github.com/platc/platc/lint"
)

// UnpinnedChartVersion reports Helm chart versions that are not one exact
// release.
var UnpinnedChartVersion = &lint.Rule{
	Name: "unpinned-chart-version",
	Doc: `chart version is a range or a tag, not one exact release

RFC 6.2.1 requires pinned chart versions: the same platform description
must install the same software every time (RFC 2.2.4). Helm and Argo CD
read a version such as "^1.2.0", "~1.2", "1.2", "1.x", ">=1.0", "*" or
"latest" as a constraint and install the newest matching release, so a
deploy next month can silently differ from today's.

Write the exact version, major.minor.patch with an optional "v" and an
optional pre-release, such as "1.16.1" or "v1.15.3". This applies to app
sources and to the bootstrap charts of the platform block.`,
	Severity: lint.Error,
	Default:  true,
	Run: func(p *lint.Pass) error {
		for _, prog := range p.Programs {
			for _, a := range prog.Apps {
				la := p.Decls.App(a.Name)
				if la == nil || len(la.Sources) != len(a.Sources) {
					continue
				}
				for i, src := range a.Sources {
					if !src.IsChart() || la.Sources[i].Version == nil {
						continue // a missing version is a compiler error
					}
					checkChartVersion(p, src.Version, la.Sources[i].Version, fmt.Sprintf("chart %q", src.Chart))
				}
			}
			if b := p.Module.Platform.Bootstrap; b != nil {
				bs := prog.Platform.Bootstrap
				for _, c := range []struct {
					attr *hcl.Attribute
					v    string
				}{
					{b.ArgoCDChart, bs.ArgoCDChart},
					{b.WorkflowsChart, bs.WorkflowsChart},
					{b.EventsChart, bs.EventsChart},
					{b.SealedSecretsChart, bs.SealedSecretsChart},
				} {
					if c.attr != nil {
						checkChartVersion(p, c.v, c.attr, "bootstrap "+c.attr.Name)
					}
				}
			}
		}
		return nil
	},
}

// partialVersion is "1" or "1.2", which Helm's constraint parser treats
// like "~1.2".
var partialVersion = regexp.MustCompile(`^v?\d+(\.\d+)?$`)

// whyUnpinned says why a chart version is not pinned, or "" if it is.
func whyUnpinned(v string) string {
	switch lower := strings.ToLower(strings.TrimSpace(v)); {
	case valid.Semver(v):
		return ""
	case lower == "latest" || lower == "stable" || lower == "*" || lower == "x":
		return "follows the newest release"
	case partialVersion.MatchString(v):
		return "is a partial version, which Helm resolves to the newest matching release"
	case strings.ContainsAny(v, "^~<>=*|, ") || strings.Contains(lower, ".x"):
		return "is a range, not a pinned version"
	default:
		return "is not an exact major.minor.patch version"
	}
}

func checkChartVersion(p *lint.Pass, v string, attr *hcl.Attribute, what string) {
	why := whyUnpinned(v)
	if why == "" {
		return
	}
	p.Report(lint.Issue{
		Message: fmt.Sprintf("%s version %q %s", what, v, why),
		Detail:  "RFC 6.2.1 requires pinned chart versions, so the same description installs the same release every time. Write the exact release, such as \"1.16.1\"; `helm search repo CHART --versions` lists them.",
		Subject: attr.Expr.Range(),
	})
}
