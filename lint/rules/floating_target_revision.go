package rules

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/platc/platc/lint"
)

// FloatingTargetRevision reports Git revisions that move: HEAD and
// branches.
var FloatingTargetRevision = &lint.Rule{
	Name: "floating-target-revision",
	Doc: `git revision follows a branch or HEAD, not a fixed commit

A branch or HEAD moves with every push, so the same platform description
deploys different manifests depending on when it runs, and a re-run after
a failure may deploy something else than the run that failed (RFC 2.2.4:
identical inputs must produce the same cluster state).

A revision counts as pinned when it is a commit SHA (7 to 40 hex digits,
or 64), a refs/tags/ reference, or a tag that carries a full version
number (major.minor.patch somewhere in the name, such as "v1.4.0" or
"platform-v1.4.0"). Everything else is taken for a branch: HEAD,
refs/heads/..., main, release-1.4 and so on. The rule checks the
platform's git revision (the default "HEAD" included) and every
target_revision of a Git path source.

Pin a tag or a commit. If the platform deliberately tracks a branch,
suppress the finding with the reason.`,
	Severity: lint.Warning,
	Default:  true,
	Run: func(p *lint.Pass) error {
		for _, prog := range p.Programs {
			if g := p.Module.Platform.Git; g != nil {
				rev := prog.Platform.Git.Revision
				if why := whyFloating(rev); why != "" {
					msg := fmt.Sprintf("platform git revision %q %s", rev, why)
					if g.Revision == nil {
						msg = fmt.Sprintf("platform git revision is not set, so it defaults to %q, which %s", rev, why)
					}
					p.Report(lint.Issue{
						Message: msg,
						Detail:  "The root Application and every Git path source without its own target_revision deploy this revision. Set revision in the platform's git block to a tag such as \"v1.4.0\" or to a commit SHA.",
						Subject: exprRange(g.Revision, g.DeclRange),
					})
				}
			}
			for _, a := range prog.Apps {
				la := p.Decls.App(a.Name)
				if la == nil || len(la.Sources) != len(a.Sources) {
					continue
				}
				for i, src := range a.Sources {
					ls := la.Sources[i]
					if src.IsChart() || ls.TargetRevision == nil {
						continue // inherits the platform revision, checked above
					}
					rev := src.TargetRevision
					if why := whyFloating(rev); why != "" {
						p.Report(lint.Issue{
							Message: fmt.Sprintf("target revision %q %s", rev, why),
							Detail:  "Argo CD deploys whatever this revision points to when the app syncs. Pin a tag such as \"v1.4.0\" or a commit SHA.",
							Subject: ls.TargetRevision.Expr.Range(),
						})
					}
				}
			}
		}
		return nil
	},
}

var (
	commitSHA   = regexp.MustCompile(`^([0-9a-f]{7,40}|[0-9a-f]{64})$`)
	fullVersion = regexp.MustCompile(`\d+\.\d+\.\d+`)
)

// wellKnownBranches are names that are branches in almost every
// repository, so the message can say so plainly.
var wellKnownBranches = []string{"main", "master", "develop", "development", "dev", "trunk", "staging", "production", "prod", "stable", "latest", "release"}

// whyFloating says why a Git revision moves, or "" if it is pinned.
func whyFloating(rev string) string {
	switch r := strings.TrimSpace(rev); {
	case r == "" || strings.EqualFold(r, "HEAD"):
		return "follows the last push"
	case strings.HasPrefix(r, "refs/tags/"), commitSHA.MatchString(r):
		return ""
	case strings.HasPrefix(r, "refs/heads/"):
		return "is a branch, which moves with every push"
	case slices.Contains(wellKnownBranches, strings.ToLower(r)):
		return "is a branch, which moves with every push"
	case fullVersion.MatchString(r):
		return ""
	default:
		return "looks like a branch, which moves with every push"
	}
}
