package rules

import (
	"fmt"

	"github.com/platc/platc/lint"
)

// OpenEventsTrigger reports an events block whose webhook anyone can
// call, or that reacts to every push.
var OpenEventsTrigger = &lint.Rule{
	Name: "open-events-trigger",
	Doc: `deploy trigger accepts pushes without a secret or ref filter

An events block makes an Argo Events EventSource that submits the deploy
workflow when the platform repository is pushed. Without a secret block
it checks nothing about the sender: a webhook event source then needs no
bearer token, and a github one does not verify GitHub's signature. Anyone
who can reach the endpoint (it is exposed for the Git host to call) can
start deploys whenever they like, and forge the pushed ref that the
sensor filters on. The request cannot choose what is deployed, only
when, and how often.

When the events branch is "HEAD" (it defaults to platform.git.revision,
which defaults to "HEAD"), the sensor has no ref filter at all: a push to
any branch or tag starts a deploy.

Create a Secret with a random token in the events namespace, give it to
the Git host as the webhook secret, and name it in a secret block. Set
the platform's revision, or events.branch, to the ref you deploy.`,
	Severity: lint.Warning,
	Default:  true,
	Run: func(p *lint.Pass) error {
		le := p.Module.Events
		if le == nil {
			return nil
		}
		for _, prog := range p.Programs {
			ev := prog.Events
			if ev == nil {
				continue
			}
			if ev.Secret == nil {
				check := "a bearer token"
				if ev.Type == "github" {
					check = "GitHub's signature"
				}
				p.Report(lint.Issue{
					Message: fmt.Sprintf("%s events trigger has no secret, so it accepts pushes without checking %s", ev.Type, check),
					Detail:  "Anyone who can reach the event source can start a deploy at any time, with any ref. Add a secret block naming a Secret that holds the webhook's shared secret, and configure the same value in the Git host.",
					Subject: le.DeclRange,
				})
			}
			if ev.Branch == "HEAD" {
				msg := `events branch "HEAD" names no ref, so a push to any branch or tag starts a deploy`
				if le.Branch == nil {
					msg = `events branch is not set and the platform revision is "HEAD", so a push to any branch or tag starts a deploy`
				}
				p.Report(lint.Issue{
					Message: msg,
					Detail:  "The sensor filters pushes on the ref the platform deploys, and HEAD is none. Set the platform's git revision, or branch in the events block, to the branch or tag you deploy.",
					Subject: exprRange(le.Branch, le.DeclRange),
				})
			}
		}
		return nil
	},
}
