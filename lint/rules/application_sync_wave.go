package rules

import (
	"fmt"

	"github.com/platc/platc/detect"
	"github.com/platc/platc/lint"
)

// ApplicationSyncWave reports sync waves on Argo CD Applications.
var ApplicationSyncWave = &lint.Rule{
	Name: "application-sync-wave",
	Doc: `sync wave on an Application orders apps by waves

A sync wave on an Application object (or in an ApplicationSet's
template) orders whole apps inside an app-of-apps. RFC 5.4 keeps waves
for ordering resources inside one app; across apps they cannot express
health-gated dependencies, and a wave number says nothing about which
app waits for which. With platc, cross-app order comes from depends_on
and the generated deploy DAG.

Remove the annotation and express the order with depends_on between
the apps. Waves on the resources inside an app (CRDs before instances,
a ConfigMap before its Deployment) are fine and are not reported.`,
	Severity: lint.Error,
	Default:  true,
	Scan:     true,
	Syntax:   true, // reads only the syntax: runs when compilation fails
	Run: func(p *lint.Pass) error {
		for _, o := range p.Manifests.Objects {
			ann, ok := detect.SyncWave(o)
			if !ok {
				continue
			}
			what := objectName(o)
			if o.Kind == "ApplicationSet" {
				what = "the Applications of " + what
			}
			p.Report(lint.Issue{
				Message: fmt.Sprintf("sync wave %q on %s orders apps by waves", ann.Value.Value, what),
				Detail:  "Waves order resources inside one app (RFC 5.4); across apps they cannot wait for health and hide which app needs which. Remove the annotation and put the apps this one must follow in its depends_on.",
				Subject: o.File.Span(ann.Key, ann.Value),
			})
		}
		return nil
	},
}
