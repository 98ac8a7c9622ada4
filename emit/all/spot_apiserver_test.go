package all_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/argo"
	"github.com/platc/platc/internal/synth"
	"github.com/platc/platc/internal/testenv"
)

// TestSpotOnAPIServer: at 5,000 and 10,000 apps, every workflow the
// executor would compile on the spot and that the emitter admits (within
// the node budget and argo.MaxObjectBytes) is stored by a real
// kube-apiserver and etcd with their default request limits, as sent
// (the Workflow CRD's full schema prunes nothing). The largest is a
// deploy of 2,500 apps with the node budget raised out of the
// way, so that the size limit is the one that binds: it must be
// admitted and stored, and the whole platform refused for its bytes.
// No controller runs: this proves the objects are accepted, not run.
func TestSpotOnAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("big platforms")
	}
	s := testenv.Require(t)
	for _, n := range []int{5000, 10000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			p := compileSrc(t, synth.Generate(synth.Options{Apps: n, CrossStack: true, Name: fmt.Sprintf("spot%d", n)}))
			big := *p
			big.Platform.Workflows.NodeBudget = 1 << 30
			type scope struct {
				name string
				p    *ir.Program
				apps []*ir.App
			}
			var objs []*unstructured.Unstructured
			admit := func(sc scope, build func(*ir.Program, []*ir.App) (*wfv1.Workflow, error)) (int, error) {
				wf, err := build(sc.p, sc.apps)
				if err != nil {
					return 0, err
				}
				data, err := json.Marshal(wf)
				if err != nil {
					t.Fatal(err)
				}
				var obj map[string]any
				if err := json.Unmarshal(data, &obj); err != nil {
					t.Fatal(err)
				}
				objs = append(objs, &unstructured.Unstructured{Object: obj})
				return len(data), nil
			}
			// About 850 KB of deploy: near the limit at either size.
			half := 2500
			for _, sc := range []scope{
				{"app " + p.Apps[n-1].Name, p, p.Apps[n-1:]},
				{"stack " + p.Stacks[1].Name, p, p.Stacks[1].Apps},
				{fmt.Sprintf("%d apps, budget raised", half), &big, p.Apps[:half]},
			} {
				for _, action := range []string{"deploy", "teardown"} {
					build := argo.ScopedTeardown
					if action == "deploy" {
						build = argo.ScopedDeploy
					}
					size, err := admit(sc, build)
					var le *argo.LimitError
					switch {
					case errors.As(err, &le):
						t.Logf("%s %s: refused: %s", action, sc.name, le.Summary)
					case err != nil:
						t.Fatalf("%s %s: %v", action, sc.name, err)
					default:
						t.Logf("%s %s: admitted, %d bytes", action, sc.name, size)
					}
				}
			}
			if _, err := argo.ScopedDeploy(&big, p.Apps); !errors.As(err, new(*argo.LimitError)) {
				t.Errorf("the whole platform's deploy, budget raised: %v, want refused for its bytes", err)
			}
			created, largest, largestName := createAll(t, s, objs)
			if created["Workflow"] != len(objs) {
				t.Errorf("created %v of %d Workflows", created, len(objs))
			}
			if largest < argo.MaxObjectBytes/2 {
				t.Errorf("the largest Workflow stored is %d bytes: the test no longer comes near the limit of %d", largest, argo.MaxObjectBytes)
			}
			t.Logf("%d apps: %d Workflows stored; largest %s, %d bytes", n, len(objs), largestName, largest)
		})
	}
}
