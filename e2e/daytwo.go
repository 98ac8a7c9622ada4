package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

// Change is a day-2 change, the way a team makes one: the platform at
// path, a later version of the one deployed (same platform, same
// environment), is built with platc build and committed in place of the
// current output, with platform.git.revision's tag on the new commit.
//
// What the version adds that a cluster would get from elsewhere comes
// first, simulated as at day 0: the CRDs and operators of new kinds (a
// real app's chart or operator would install them), the volumes of new
// apps that keep data, and every app's content, published where its
// Application looks (a new chart repository host included). Nothing the
// bootstrap owns is touched: AppProjects, argocd-cm, the RBAC policy and
// the root stay as they are, and the next platc deploy reconciles them
// (issue 20).
//
// When the revision is the one the root already follows, Argo CD is
// told the repository changed, as a push webhook would, and Change
// returns once the root has synced the new commit. When the version
// moves platform.git.revision, the root still follows the old tag (which
// stays where it was), so nothing reaches Argo CD until platc deploy
// moves the root: Change returns after publishing.
func (pl *Platform) Change(ctx context.Context, path string) error {
	opts := pl.Opts
	opts.Path = path
	opts.Fail = nil
	m, prog, opts, err := loadPlatform(opts)
	if err != nil {
		return err
	}
	if prog.Platform.Name != pl.Program.Platform.Name {
		return fmt.Errorf("%s is platform %q, not a later version of %q", path, prog.Platform.Name, pl.Program.Platform.Name)
	}
	declared, err := ReadDeclared(opts.Path)
	if err != nil {
		return err
	}
	// A fresh tree: files of the earlier version must not linger.
	if err := os.RemoveAll(filepath.Dir(pl.Generated)); err != nil {
		return err
	}
	if pl.Generated, err = pl.Env.build(ctx, opts); err != nil {
		return err
	}
	moved := prog.Platform.Git.Revision != pl.Program.Platform.Git.Revision
	pl.Opts, pl.Program, pl.Module, pl.Declared = opts, prog, m, declared
	pl.samples = loadSamples(prog, m, filepath.Join(pl.Env.opts.Src, "argo-cd"))
	for _, n := range pl.samples.notes {
		if !slices.Contains(pl.Notes, n) {
			pl.Notes = append(pl.Notes, n)
		}
	}
	if err := pl.operatorResources(ctx); err != nil {
		return err
	}
	if err := pl.ops.add(ctx, prog, pl.samples); err != nil {
		return err
	}
	if err := pl.publish(ctx); err != nil {
		return err
	}
	if moved {
		pl.Env.logf("published %s at %s; the root follows the old revision until platc deploy moves it", prog.Platform.Git.Revision, pl.Revision)
		return nil
	}
	return pl.rootSynced(ctx)
}

// Push is a push to the platform repository that Argo CD acts on: the
// platform published again as a new commit at the revision the root
// follows, and the root hard-refreshed, as a push webhook does. It
// returns the new commit at once, without waiting for any sync: with
// automated sync the root would now sync it, re-creating every
// Application it lists.
func (pl *Platform) Push(ctx context.Context) (string, error) {
	if err := pl.publish(ctx); err != nil {
		return "", err
	}
	ri, name, err := pl.root()
	if err != nil {
		return "", err
	}
	patch := []byte(`{"metadata":{"annotations":{"argocd.argoproj.io/refresh":"hard"}}}`)
	if _, err := ri.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return "", err
	}
	pl.Env.logf("pushed %s to the platform repository and refreshed the root", pl.Revision)
	return pl.Revision, nil
}

// RootCompared waits until Argo CD has compared the root Application
// with commit: it saw the push.
func (pl *Platform) RootCompared(ctx context.Context, commit string) error {
	ri, name, err := pl.root()
	if err != nil {
		return err
	}
	return waitFor(ctx, nil, "the root Application to compare "+commit, 3*time.Minute, func(ctx context.Context) error {
		u, err := ri.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if rev, _, _ := unstructured.NestedString(u.Object, "status", "sync", "revision"); rev != commit {
			return fmt.Errorf("root compared with %s", rev)
		}
		return nil
	})
}

// root is the root Application's client and name, from argocd/root.yaml.
func (pl *Platform) root() (dynamic.ResourceInterface, string, error) {
	b, err := os.ReadFile(filepath.Join(pl.Generated, "argocd", "root.yaml"))
	if err != nil {
		return nil, "", err
	}
	var root struct {
		Metadata struct{ Name, Namespace string }
	}
	if err := yaml.Unmarshal(b, &root); err != nil {
		return nil, "", fmt.Errorf("argocd/root.yaml: %w", err)
	}
	return pl.Env.Dynamic.Resource(applicationGVR).Namespace(root.Metadata.Namespace), root.Metadata.Name, nil
}

// rootSynced asks Argo CD to look at the platform repository again (a
// hard refresh, what a push webhook triggers) and waits until the root
// Application's automated sync has applied pl.Revision. The root may stay
// OutOfSync afterwards: it does not prune, so Applications of removed
// apps are still there.
func (pl *Platform) rootSynced(ctx context.Context) error {
	b, err := os.ReadFile(filepath.Join(pl.Generated, "argocd", "root.yaml"))
	if err != nil {
		return err
	}
	var root struct {
		Metadata struct{ Name, Namespace string }
	}
	if err := yaml.Unmarshal(b, &root); err != nil {
		return fmt.Errorf("argocd/root.yaml: %w", err)
	}
	ri := pl.Env.Dynamic.Resource(applicationGVR).Namespace(root.Metadata.Namespace)
	patch := []byte(`{"metadata":{"annotations":{"argocd.argoproj.io/refresh":"hard"}}}`)
	if _, err := ri.Patch(ctx, root.Metadata.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return err
	}
	err = waitFor(ctx, nil, "the root Application to sync "+pl.Revision, 3*time.Minute, func(ctx context.Context) error {
		u, err := ri.Get(ctx, root.Metadata.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		rev, _, _ := unstructured.NestedString(u.Object, "status", "operationState", "syncResult", "revision")
		phase, _, _ := unstructured.NestedString(u.Object, "status", "operationState", "phase")
		if rev != pl.Revision || phase != "Succeeded" {
			return fmt.Errorf("root last synced %s (%s)", rev, phase)
		}
		return nil
	})
	if err == nil {
		pl.Env.logf("the root Application synced %s", pl.Revision)
	}
	return err
}
