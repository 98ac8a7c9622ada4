package argocd_test

import (
	"fmt"
	"path"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/argocd"
	"github.com/platc/platc/emit/internal/emittest"
	"github.com/platc/platc/emit/internal/gitops"
	"github.com/platc/platc/internal/synth"
)

// appsTree is what the root and each group root sync: the Applications
// by directory, each read back from the emitted YAML.
func appsTree(t *testing.T, p *ir.Program) map[string][]gitops.Application {
	t.Helper()
	out := map[string][]gitops.Application{}
	for fp, data := range emittest.Emit(t, p, argocd.Apps{}) {
		if !strings.HasPrefix(fp, gitops.AppsDir+"/") {
			continue
		}
		var a gitops.Application
		if err := yaml.Unmarshal(data, &a); err != nil {
			t.Fatalf("%s: %v", fp, err)
		}
		if want := path.Join(path.Dir(fp), a.Metadata.Name+".yaml"); fp != want {
			t.Errorf("%s holds Application %s", fp, a.Metadata.Name)
		}
		out[path.Dir(fp)] = append(out[path.Dir(fp)], a)
	}
	return out
}

// TestGroupRoots: at 1,000, 5,000 and 10,000 synthetic apps, layered and
// with stacks that depend on each other both ways, no app-of-apps holds
// more than applications_per_root Applications; every app's Application
// is in exactly one group root's directory, the one of its stack; and a
// group root is the root's own Application of that directory. The
// example and 1,000 apps, within the default, keep one root.
func TestGroupRoots(t *testing.T) {
	for _, n := range []int{1000, 5000, 10000} {
		for _, cross := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d-cross-%v", n, cross), func(t *testing.T) {
				p := emittest.Compile(t, "platform.hcl", synth.Generate(synth.Options{Apps: n, CrossStack: cross}), "")
				limit := p.Platform.ArgoCD.AppsPerRoot
				tree := appsTree(t, p)
				groups := gitops.Groups(p)
				if n <= limit {
					if len(groups) != 0 || len(tree) != 1 {
						t.Fatalf("%d apps within %d: %d groups, %d directories; want the root alone", n, limit, len(groups), len(tree))
					}
					return
				}
				if len(tree) != len(groups)+1 {
					t.Errorf("%d directories for %d group roots and the root", len(tree), len(groups))
				}
				where := map[string]string{}
				for dir, apps := range tree {
					if len(apps) > limit {
						t.Errorf("%s: %d Applications, more than %d", dir, len(apps), limit)
					}
					for _, a := range apps {
						if prev, dup := where[a.Metadata.Name]; dup {
							t.Errorf("Application %s in %s and %s", a.Metadata.Name, prev, dir)
						}
						where[a.Metadata.Name] = dir
					}
				}
				root := argocd.Root(p)
				for _, g := range groups {
					if where[g.Name] != gitops.AppsDir {
						t.Errorf("group root %s is in %q, want the root's directory", g.Name, where[g.Name])
					}
					want := *root
					want.Metadata.Name = g.Name
					want.Spec.Source = &gitops.Source{RepoURL: root.Spec.Source.RepoURL, Path: gitops.TreePath(p, g.Dir), TargetRevision: root.Spec.Source.TargetRevision}
					got := tree[gitops.AppsDir][indexOf(tree[gitops.AppsDir], g.Name)]
					if a, b := mustYAML(t, &got), mustYAML(t, &want); a != b {
						t.Errorf("group root %s:\n%s\nwant the root's policy on its own directory:\n%s", g.Name, a, b)
					}
				}
				for _, a := range p.Apps {
					dir := where[a.Application]
					stack := "0"
					if a.Stack != nil {
						stack = a.Stack.Name
					}
					want := gitops.AppsDir + "/" + gitops.GroupRootPrefix + stack
					if dir != want && !strings.HasPrefix(dir, want+".") {
						t.Errorf("app %s of stack %s is in %s", a.Name, stack, dir)
					}
				}
			})
		}
	}
}

func indexOf(apps []gitops.Application, name string) int {
	for i, a := range apps {
		if a.Metadata.Name == name {
			return i
		}
	}
	return -1
}

func mustYAML(t *testing.T, v any) string {
	t.Helper()
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestGroupRootNames: the example, at 3 Applications per root: one
// group root per stack, a stack over 3 continued in <stack>.2 and on,
// in the order of p.Apps; and removing an app moves no other app's
// Application.
func TestGroupRootNames(t *testing.T) {
	p := emittest.Example(t, "../..")
	p.Platform.ArgoCD.AppsPerRoot = 3
	groups := gitops.Groups(p)
	stacks := map[string]int{}
	for _, g := range groups {
		base, part, chunk := strings.Cut(strings.TrimPrefix(g.Name, gitops.GroupRootPrefix), ".")
		stacks[base]++
		if chunk && part != fmt.Sprint(stacks[base]) {
			t.Errorf("%s: chunk %s, want %d", g.Name, part, stacks[base])
		}
		if len(g.Apps) == 0 || len(g.Apps) > 3 {
			t.Errorf("%s: %d apps", g.Name, len(g.Apps))
		}
		for _, a := range g.Apps {
			if a.Stack == nil || a.Stack.Name != base {
				t.Errorf("%s holds app %s of another stack", g.Name, a.Name)
			}
		}
	}
	if len(stacks) != len(p.Stacks) {
		t.Errorf("group roots of %d stacks, the example has %d", len(stacks), len(p.Stacks))
	}
	before := appsTree(t, p)
	// Drop the first app of the first stack with more than 3 apps.
	var gone *ir.App
	for _, g := range groups {
		if strings.HasSuffix(g.Name, ".2") {
			gone = g.Apps[0]
			break
		}
	}
	if gone == nil {
		t.Fatal("the example has no stack of more than 3 apps")
	}
	q := *p
	q.Apps = nil
	for _, a := range p.Apps {
		if a != gone {
			q.Apps = append(q.Apps, a)
		}
	}
	after := appsTree(t, &q)
	dir := map[string]string{}
	for d, apps := range before {
		for _, a := range apps {
			dir[a.Metadata.Name] = d
		}
	}
	// Within gone's stack the chunks of 3 shift by one; no other stack's
	// Application moves.
	for d, apps := range after {
		for _, a := range apps {
			if dir[a.Metadata.Name] != d && !strings.Contains(d, gitops.GroupRootPrefix+gone.Stack.Name) && !strings.HasPrefix(a.Metadata.Name, gitops.GroupRootPrefix) {
				t.Errorf("removing %s moved %s from %s to %s", gone.Name, a.Metadata.Name, dir[a.Metadata.Name], d)
			}
		}
	}
}
