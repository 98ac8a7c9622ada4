package argo

import (
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/argoproj/argo-workflows/v3/workflow/validate"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/platc/platc/compiler/ir"
)

// TestArgoAcceptsEverything runs Argo Workflows' own validation (what argo
// lint --offline runs) on every emitted template, read back strictly from
// the emitted bytes, for the example and for synthetic platforms up to
// 10,000 apps. It also validates the Workflows a user or the executor
// submits from them, with submit-time strictness, and the scoped
// Workflows for a stack and for one app.
func TestArgoAcceptsEverything(t *testing.T) {
	for _, pl := range platforms() {
		t.Run(pl.name, func(t *testing.T) {
			bigPlatform(t, pl.opts)
			p := load(t, pl.opts)
			wfts, cwfts := objects(t, emitFiles(t, p))
			lint := validate.ValidateOpts{Lint: true}
			for name, c := range cwfts {
				if err := validate.ValidateClusterWorkflowTemplate(wfts, cwfts, c, nil, lint); err != nil {
					t.Errorf("ClusterWorkflowTemplate %s: %v", name, err)
				}
			}
			for _, name := range []string{DeployTemplate, TeardownTemplate, ValidateTemplate} {
				if _, ok := wfts[name]; !ok {
					t.Fatalf("WorkflowTemplate %s missing", name)
				}
			}
			// The three, and the children of those split over the node
			// budget.
			for name, wft := range wfts {
				if err := validate.ValidateWorkflowTemplate(wfts, cwfts, wft, nil, lint); err != nil {
					t.Errorf("WorkflowTemplate %s: %v", name, err)
				}
			}
			// What gets submitted: a Workflow per template, by reference.
			// Submit-time validation checks the arguments, then validates
			// the whole referenced template again: about half of this
			// test's time at 10,000 apps. The arguments do not depend on
			// the platform's size, and the 500-app platforms already
			// submit nested DAGs, so the big platforms skip it.
			submits := []struct {
				template string
				params   []wfv1.Parameter
			}{
				{DeployTemplate, nil},
				{ValidateTemplate, nil},
				{TeardownTemplate, []wfv1.Parameter{{Name: ParamConfirm, Value: wfv1.AnyStringPtr(p.Platform.Name)}}},
			}
			if pl.opts != nil && pl.opts.Apps >= 1000 {
				submits = nil
			}
			for _, sub := range submits {
				wf := &wfv1.Workflow{
					ObjectMeta: metav1.ObjectMeta{GenerateName: sub.template + "-", Namespace: p.Platform.Workflows.Namespace},
					Spec: wfv1.WorkflowSpec{
						WorkflowTemplateRef: &wfv1.WorkflowTemplateRef{Name: sub.template},
						Arguments:           wfv1.Arguments{Parameters: sub.params},
					},
				}
				if err := validate.ValidateWorkflow(wfts, cwfts, wf, nil, validate.ValidateOpts{Submit: true}); err != nil {
					t.Errorf("submitting %s: %v", sub.template, err)
				}
			}
			for _, scope := range scopes(p) {
				// Unchecked against the limits (TestSpotWithinLimits
				// covers those): what Argo is asked here is whether it
				// accepts the shape, at every size.
				dep, err := scopedDeploy(p, scope.apps)
				if err != nil {
					t.Fatalf("ScopedDeploy(%s): %v", scope.name, err)
				}
				td, err := scopedTeardown(p, scope.apps)
				if err != nil {
					t.Fatalf("ScopedTeardown(%s): %v", scope.name, err)
				}
				for _, wf := range []*wfv1.Workflow{dep.wf, td.wf} {
					back := roundTrip(t, wf)
					if err := validate.ValidateWorkflow(wfts, cwfts, back, nil, lint); err != nil {
						t.Errorf("%s (%s): %v", wf.GenerateName, scope.name, err)
					}
				}
			}
		})
	}
}

type scope struct {
	name string
	apps []*ir.App
}

// scopes are the biggest stack, every app, the last app (the most
// dependencies outside itself) and the first app (the most dependents
// outside).
func scopes(p *ir.Program) []scope {
	var out []scope
	var big *ir.Stack
	for _, s := range p.Stacks {
		if big == nil || len(s.Apps) > len(big.Apps) {
			big = s
		}
	}
	if big != nil {
		out = append(out, scope{"stack:" + big.Name, big.Apps})
	}
	// Every app: what a whole-platform run compiled on the spot submits
	// (environment.yaml timeouts or retries, a dag.yaml without subset).
	// Validating one workflow of thousands of apps takes minutes: the
	// platforms of 1000 apps and more are left out.
	if len(p.Apps) < 1000 {
		out = append(out, scope{"platform", p.Apps})
	}
	first, last := p.Apps[0], p.Apps[len(p.Apps)-1]
	out = append(out, scope{"app:" + last.Name, []*ir.App{last}})
	if first != last {
		out = append(out, scope{"app:" + first.Name, []*ir.App{first}})
	}
	return out
}

// roundTrip renders a Workflow as build would and reads it back strictly.
func roundTrip(t testing.TB, wf *wfv1.Workflow) *wfv1.Workflow {
	t.Helper()
	data, err := new(Objects).render(wf)
	if err != nil {
		t.Fatal(err)
	}
	objs := parse(t, wf.GenerateName, data)
	back, ok := objs[0].(*wfv1.Workflow)
	if !ok || len(objs) != 1 {
		t.Fatalf("%s: read back %T", wf.GenerateName, objs[0])
	}
	return back
}
