package rules

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/lang"
	"github.com/platc/platc/lint"
)

// DeleteVolumesOnStatefulApp reports teardown policies that delete the
// volumes of apps that hold data.
var DeleteVolumesOnStatefulApp = &lint.Rule{
	Name: "delete-volumes-on-stateful-app",
	Doc: `teardown deletes the volumes of an app that holds data

volumes = "delete" makes teardown remove an app's persistent volumes
along with it. For a storage cluster, a database cluster, Vault or an app
managing such a custom resource, that is the platform's data, gone with
no way back; RFC 6.5 makes retain the default for this reason.

Use "snapshot" (teardown snapshots the volumes first) or "retain" for
data apps. When the policy comes from a stack, class or the defaults
block, set teardown { volumes = "snapshot" } on the app itself. For a
throwaway environment where deletion is intended, suppress the finding
with that reason.`,
	Severity: lint.Warning,
	Default:  true,
	Run: func(p *lint.Pass) error {
		for _, prog := range p.Programs {
			for _, a := range prog.Apps {
				if a.Teardown.Volumes != ir.VolumesDelete {
					continue
				}
				why, ok := stateful(a)
				la := p.Decls.App(a.Name)
				if !ok || la == nil {
					continue
				}
				is := lint.Issue{
					Message: fmt.Sprintf("teardown deletes the volumes of app %q, which holds data (%s)", a.Name, why),
					Detail:  "Teardown would destroy the data for good. Use volumes = \"snapshot\" or \"retain\".",
				}
				if a.From.Volumes == ir.FromApp {
					is.Subject = la.Teardown.Volumes.Expr.Range()
				} else {
					is.Subject = la.NameRange
					is.Detail = fmt.Sprintf("The policy comes from the %s level. Add teardown { volumes = \"snapshot\" } to this app, or change it there.", a.From.Volumes)
					if r, ok := volumesSetting(p, la, a); ok {
						is.Related = []diag.Related{{Range: r, Message: fmt.Sprintf("volumes = \"delete\" set here (%s level)", a.From.Volumes)}}
					}
				}
				p.Report(is)
			}
		}
		return nil
	},
}

// volumesSetting finds the attribute that gave an app its volume policy.
func volumesSetting(p *lint.Pass, la *lang.App, a *ir.App) (hcl.Range, bool) {
	m := p.Module
	var s *lang.Settings
	switch a.From.Volumes {
	case ir.FromStack:
		if la.Stack != nil {
			s = &la.Stack.Settings
		}
	case ir.FromClass:
		if c := p.Decls.Class(a.Class); c != nil {
			s = &c.Settings
		}
	case ir.FromDefaults:
		if m.Defaults != nil {
			s = &m.Defaults.Settings
		}
	}
	if s == nil || s.Teardown == nil || s.Teardown.Volumes == nil {
		return hcl.Range{}, false
	}
	return s.Teardown.Volumes.Expr.Range(), true
}
