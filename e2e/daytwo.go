package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"
)

// Change is a day-2 change, the way a team makes one: the platform at
// path, a later version of the one deployed (same platform, same
// environment), is built with platc build, committed in place of the
// current output (the revision's tag moves to the new commit) and Argo
// CD is told the repository changed, as a push webhook would. Change
// returns once the root Application has synced the new commit.
//
// Change installs nothing the bootstrap owns: AppProjects, argocd-cm and
// the root stay as day 0 left them, which is what platc does on a real
// cluster today. So a version that adds apps is refused here: their
// content, operators and possibly projects or health rules would need
// exactly that (issue 20).
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
	for _, a := range prog.Apps {
		if pl.Program.App(a.Name) == nil {
			return fmt.Errorf("%s adds app %q: a day-2 addition needs the bootstrap's objects reconciled, which platc does not do yet", path, a.Name)
		}
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
	pl.Opts, pl.Program, pl.Module, pl.Declared = opts, prog, m, declared
	if err := pl.publish(ctx); err != nil {
		return err
	}
	return pl.rootSynced(ctx)
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
