package e2e

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"sigs.k8s.io/yaml"
)

// CheckDeployOrder checks INV-1 on a deploy's timeline: for every edge
// d → a the HCL declares, d was Healthy before a's first sync operation
// started. An app that never started is not a violation (it may have
// been skipped because a dependency failed).
func CheckDeployOrder(decl *Declared, evs []Event) []string {
	var out []string
	for _, a := range decl.Apps() {
		started, ok := First(evs, decl.Application[a], OperationStarted)
		if !ok {
			continue
		}
		for _, d := range decl.Deps[a] {
			healthy, ok := First(evs, decl.Application[d], Healthy)
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("%s started syncing at %s but its dependency %s never became Healthy", a, started.Format(timeFormat), d))
			case healthy.After(started):
				out = append(out, fmt.Sprintf("%s started syncing at %s, before its dependency %s became Healthy at %s", a, started.Format(timeFormat), d, healthy.Format(timeFormat)))
			}
		}
	}
	return out
}

// CheckTeardownOrder checks INV-5 on a teardown's timeline: for every
// edge d → a the HCL declares, a was deleted before d.
func CheckTeardownOrder(decl *Declared, evs []Event) []string {
	var out []string
	for _, a := range decl.Apps() {
		for _, d := range decl.Deps[a] {
			gone, ok := First(evs, decl.Application[d], Deleted)
			if !ok {
				continue
			}
			dependent, ok := First(evs, decl.Application[a], Deleted)
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("%s was deleted at %s while its dependent %s was not", d, gone.Format(timeFormat), a))
			case dependent.After(gone):
				out = append(out, fmt.Sprintf("%s was deleted at %s, before its dependent %s at %s", d, gone.Format(timeFormat), a, dependent.Format(timeFormat)))
			}
		}
	}
	return out
}

// CheckSnapshotsFirst: every VolumeSnapshot was ready to use (ready, by
// "namespace/name") before the first Application deletion in evs
// (RFC 6.5: snapshots before the first deletion).
func CheckSnapshotsFirst(ready map[string]time.Time, evs []Event) []string {
	var first *Event
	for i, e := range evs {
		if e.Event == DeletionRequested || e.Event == Deleted {
			first = &evs[i]
			break
		}
	}
	if first == nil {
		return nil
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(ready)) {
		if !ready[name].Before(first.At) {
			out = append(out, fmt.Sprintf("VolumeSnapshot %s was ready at %s, not before the first deletion (%s at %s)",
				name, ready[name].Format(timeFormat), first.App, first.At.Format(timeFormat)))
		}
	}
	return out
}

const timeFormat = "15:04:05.000"

// ReadVolumePolicies reads each app's teardown volume policy from the
// generated teardown WorkflowTemplate in generated (platc build's output
// for one environment), by Application name: the volumes argument of the
// app's task, else the default of the ClusterWorkflowTemplate input it
// fills. These are what the teardown runs with; the IR is not consulted.
func ReadVolumePolicies(generated string) (map[string]string, error) {
	var wt wfv1.WorkflowTemplate
	var cwt wfv1.ClusterWorkflowTemplate
	for f, obj := range map[string]any{"teardown.yaml": &wt, "templates.yaml": &cwt} {
		b, err := os.ReadFile(filepath.Join(generated, "workflows", f))
		if err != nil {
			return nil, err
		}
		if err := yaml.Unmarshal(b, obj); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
	}
	defaults := map[string]string{} // template → its volumes input's default
	for _, t := range cwt.Spec.Templates {
		for _, in := range t.Inputs.Parameters {
			if in.Name == "volumes" && in.Default != nil {
				defaults[t.Name] = in.Default.String()
			}
		}
	}
	out := map[string]string{}
	for _, t := range wt.Spec.Templates {
		if t.DAG == nil {
			continue
		}
		for _, task := range t.DAG.Tasks {
			ref := task.TemplateRef
			if ref == nil || ref.Name != cwt.Name {
				continue // a nested DAG of the grouping, or not an app
			}
			var app, volumes string
			for _, p := range task.Arguments.Parameters {
				switch p.Name {
				case "application":
					app = p.Value.String()
				case "volumes":
					volumes = p.Value.String()
				}
			}
			if app == "" {
				continue
			}
			if volumes == "" {
				volumes = defaults[ref.Template]
			}
			if volumes == "" {
				return nil, fmt.Errorf("teardown.yaml: task %s passes no volume policy and %s/%s has no default", task.Name, ref.Name, ref.Template)
			}
			out[app] = volumes
		}
	}
	return out, nil
}
