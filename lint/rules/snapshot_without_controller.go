package rules

import (
	"fmt"
	"path"
	"strings"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/lint"
)

// SnapshotWithoutController reports the snapshot volume policy in a
// platform that deploys no snapshot controller.
var SnapshotWithoutController = &lint.Rule{
	Name: "snapshot-without-controller",
	Doc: `snapshot volume policy without a snapshot controller

volumes = "snapshot" makes teardown create a VolumeSnapshot of each of
the app's claims and wait until it is ready to use before anything is
deleted. Only the CSI snapshot controller (and a CSI driver that can
snapshot) makes a VolumeSnapshot ready. Without one the teardown waits
out the app's teardown timeout and fails before its first deletion.

An app counts as the snapshot controller when its name, one of its
charts or the last element of one of its source paths contains
"snapshot-controller".

Add the controller to the platform (for example the piraeus
snapshot-controller chart), or use "retain". When the cluster already
runs one outside the platform (most managed Kubernetes offerings do),
suppress the finding with that reason.`,
	Severity: lint.Warning,
	Default:  true,
	Run: func(p *lint.Pass) error {
		for _, prog := range p.Programs {
			if hasSnapshotController(prog) {
				continue
			}
			for _, a := range prog.Apps {
				if a.Teardown.Volumes != ir.VolumesSnapshot {
					continue
				}
				la := p.Decls.App(a.Name)
				if la == nil {
					continue
				}
				is := lint.Issue{
					Message: fmt.Sprintf("teardown snapshots the volumes of app %q, but the platform deploys no snapshot controller", a.Name),
					Detail:  "Nothing would make its VolumeSnapshots ready to use: the teardown would time out before deleting anything. Add a snapshot-controller app, or use volumes = \"retain\".",
				}
				if a.From.Volumes == ir.FromApp {
					is.Subject = la.Teardown.Volumes.Expr.Range()
				} else {
					is.Subject = la.NameRange
					if r, ok := volumesSetting(p, la, a); ok {
						is.Related = []diag.Related{{Range: r, Message: fmt.Sprintf("volumes = \"snapshot\" set here (%s level)", a.From.Volumes)}}
					}
				}
				p.Report(is)
			}
		}
		return nil
	},
}

// hasSnapshotController reports whether an app of prog deploys the CSI
// snapshot controller, by the names the rule's doc lists.
func hasSnapshotController(prog *ir.Program) bool {
	const name = "snapshot-controller"
	for _, a := range prog.Apps {
		if strings.Contains(a.Name, name) {
			return true
		}
		for _, s := range a.Sources {
			if strings.Contains(s.Chart, name) || (s.Path != "" && strings.Contains(path.Base(s.Path), name)) {
				return true
			}
		}
	}
	return false
}
