package argo

import (
	"strings"
	"testing"

	"github.com/argoproj/argo-workflows/v3/workflow/validate"
)

// teardown { snapshot_class } reaches the snapshots step, and the
// snapshot-volume-of-class template names the class in its manifest;
// an app without one takes the default class (no field at all). Argo's
// own validation accepts the templates.
func TestSnapshotClass(t *testing.T) {
	p := source(t, `
platform "shop" {
  git {
    repo_url = "https://git.example.com/shop.git"
  }
}
app "snapshot-controller" {
  namespace = "kube-system"
  source { path = "snapshot-controller" }
}
app "db" {
  namespace = "db"
  source { path = "db" }
  teardown {
    volumes        = "snapshot"
    snapshot_class = "csi-rbd-snapclass"
  }
}
app "cache" {
  namespace = "cache"
  source { path = "cache" }
  teardown {
    volumes = "snapshot"
  }
}
`)
	wfts, cwfts := objects(t, emitFiles(t, p))
	td := wfts[TeardownTemplate]
	main := td.Spec.Templates[0]
	var apps string
	for _, ps := range main.Steps {
		for _, st := range ps.Steps {
			if st.Name == "snapshots" {
				apps = st.Arguments.Parameters[0].Value.String()
			}
		}
	}
	if !strings.Contains(apps, `{"application":"db","project":"default","volumes":"snapshot","timeout":"900","class":"csi-rbd-snapclass"}`) ||
		!strings.Contains(apps, `{"application":"cache","project":"default","volumes":"snapshot","timeout":"900"}`) {
		t.Errorf("snapshots step apps = %s", apps)
	}
	var classed, plain string
	for _, c := range cwfts {
		for _, tm := range c.Spec.Templates {
			switch tm.Name {
			case tmplSnapshotClass:
				classed = tm.Resource.Manifest
			case tmplSnapshot:
				plain = tm.Resource.Manifest
			}
		}
		if err := validate.ValidateClusterWorkflowTemplate(wfts, cwfts, c, nil, validate.ValidateOpts{Lint: true}); err != nil {
			t.Errorf("Argo refuses the ClusterWorkflowTemplate: %v", err)
		}
	}
	if !strings.Contains(classed, `volumeSnapshotClassName: '{{inputs.parameters.class}}'`) && !strings.Contains(classed, `volumeSnapshotClassName: "{{inputs.parameters.class}}"`) {
		t.Errorf("classed manifest:\n%s", classed)
	}
	if plain == "" || strings.Contains(plain, "volumeSnapshotClassName") {
		t.Errorf("default-class manifest:\n%s", plain)
	}
	if err := validate.ValidateWorkflowTemplate(wfts, cwfts, td, nil, validate.ValidateOpts{Lint: true}); err != nil {
		t.Errorf("Argo refuses the teardown template: %v", err)
	}
}
