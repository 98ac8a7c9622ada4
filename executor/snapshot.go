package executor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/platc/platc/emit/ansible"
	"github.com/platc/platc/executor/config"
	"github.com/platc/platc/executor/preflight"
	"github.com/platc/platc/executor/snapshot"
	"github.com/platc/platc/internal/english"
	"github.com/platc/platc/internal/exitcode"
)

// SnapshotInfo is the report's account of the cluster snapshot (RFC 6.1):
// where it was written, what it holds, the CRDs neither a platform app
// nor the bootstrap owns, and the baseline it was compared with.
type SnapshotInfo struct {
	File            string   `json:"file,omitempty"`
	Nodes           int      `json:"nodes"`
	Namespaces      int      `json:"namespaces"`
	CRDs            int      `json:"crds"`
	Applications    int      `json:"applications"`
	PreExistingCRDs []string `json:"pre_existing_crds"`
	Truncated       []string `json:"truncated,omitempty"`
	Unread          []string `json:"unread,omitempty"`
	// Baseline is SNAPSHOT_BASELINE, when set; the changes since it are
	// the report's changes_since_baseline.
	Baseline        string `json:"baseline,omitempty"`
	BaselineTakenAt string `json:"baseline_taken_at,omitempty"`
}

func (r *run) snapshotWanted() bool { return r.cfg.SnapshotFile != "" || r.cfg.Baseline != nil }

// criticalComponents are the workloads of the orchestration primitives
// the platform's bootstrap installs: Argo CD's application controller,
// repo-server and server, the workflow controller, and Argo Events'
// controller when the platform has an events block. Their releases and
// namespaces are the generated bootstrap's.
func (r *run) criticalComponents() []snapshot.Expect {
	rels, err := r.emitted().Releases()
	if err != nil {
		return nil
	}
	var out []snapshot.Expect
	for _, rel := range rels {
		switch rel.Role {
		case "argocd":
			out = append(out,
				snapshot.Expect{Component: "application-controller", Namespace: rel.Namespace, Release: rel.Name, Title: "argocd-application-controller"},
				snapshot.Expect{Component: "repo-server", Namespace: rel.Namespace, Release: rel.Name, Title: "argocd-repo-server"},
				snapshot.Expect{Component: "server", Namespace: rel.Namespace, Release: rel.Name, Title: "argocd-server"})
		case "argo-workflows":
			out = append(out, snapshot.Expect{Component: "workflow-controller", Namespace: rel.Namespace, Release: rel.Name, Title: "workflow-controller"})
		case "argo-events":
			if r.cfg.Program.Events != nil {
				out = append(out, snapshot.Expect{Component: "controller-manager", Namespace: rel.Namespace, Release: rel.Name, Title: "argo-events-controller"})
			}
		}
	}
	return out
}

// componentPermissions: reading the critical components' workloads, in
// their namespaces only.
func (r *run) componentPermissions() []preflight.Permission {
	var out []preflight.Permission
	seen := map[string]bool{}
	for _, e := range r.criticalComponents() {
		if seen[e.Namespace] {
			continue
		}
		seen[e.Namespace] = true
		why := "to read the readiness and version of the Argo components' workloads"
		out = append(out,
			preflight.Permission{Verb: "list", Group: "apps", Resource: "deployments", Namespace: e.Namespace, Why: why},
			preflight.Permission{Verb: "list", Group: "apps", Resource: "statefulsets", Namespace: e.Namespace, Why: why})
	}
	return out
}

// snapshotPermissions: what the snapshot reads besides what Phase 0 does.
// Lists only; no Secret, ConfigMap or workload's content.
func (r *run) snapshotPermissions() []preflight.Permission {
	why := "for the cluster snapshot (SNAPSHOT_FILE, SNAPSHOT_BASELINE)"
	return append([]preflight.Permission{
		{Verb: "list", Resource: "namespaces", Why: why},
		{Verb: "list", Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Why: why + ", which tells the pre-existing CRDs from the platform's"},
		{Verb: "list", Group: "argoproj.io", Resource: "applications", Namespace: r.cfg.Program.Platform.ArgoCD.Namespace, Why: why},
	}, r.componentPermissions()...)
}

// knownCRDs maps the CRDs each bootstrap release's chart installs from
// its crds/ directory, which Helm does not annotate with the release, to
// the release: the bootstrap's own account of them (Release.CRDs).
func knownCRDs(rels []ansible.Release) map[string]string {
	out := map[string]string{}
	for _, rel := range rels {
		for _, c := range rel.CRDs {
			out[c] = rel.Name
		}
	}
	return out
}

// readComponents reads the critical components once, for validate and
// the snapshot.
func (r *run) readComponents(ctx context.Context) {
	if r.cfg.Action != config.Validate && !r.snapshotWanted() {
		return
	}
	r.critical = snapshot.Components(ctx, r.client, r.criticalComponents())
	sanitize(reflect.ValueOf(&r.critical).Elem(), r.log.Scrub)
}

// takeSnapshot reads the cluster snapshot, writes it to SNAPSHOT_FILE,
// and compares it with SNAPSHOT_BASELINE. Nothing here changes the exit
// code: a snapshot that cannot be written is a warning and a problem of
// the report.
func (r *run) takeSnapshot(ctx context.Context, cr *preflight.ClusterReport) {
	if !r.snapshotWanted() {
		return
	}
	p := r.cfg.Program
	o := snapshot.Options{Action: string(r.cfg.Action), Platform: p.Platform.Name, Environment: p.Env.Name, Now: r.now(),
		ArgoCDNamespace: p.Platform.ArgoCD.Namespace, Applications: map[string]string{}, Components: r.critical}
	for _, a := range p.Apps {
		o.Applications[a.Application] = a.Name
	}
	o.Instances = r.instanceValues(p.Apps, nil)
	if rels, err := r.emitted().Releases(); err == nil {
		for _, rel := range rels {
			o.Releases = append(o.Releases, rel.Name)
		}
		o.KnownCRDs = knownCRDs(rels)
	}
	// What the run read already, it does not read again: Phase 0's
	// nodes, and the Applications, which the first judgement of the apps
	// may take (readAppsOnce).
	o.Nodes = snapshot.Listed[corev1.Node]{Items: cr.Nodes, Err: cr.NodesErr}
	items, err := r.listApplications(ctx)
	o.ApplicationObjects = snapshot.Listed[unstructured.Unstructured]{Items: items, Err: err}
	r.listedApps = &o.ApplicationObjects
	s := snapshot.Collect(ctx, r.client, cr.Inventory.ServerVersion, o)
	// Redacted and escaped as the report is: a taint or a message may
	// carry anything.
	sanitize(reflect.ValueOf(s).Elem(), r.log.Scrub)
	data, fitErr := s.Fit()
	info := &SnapshotInfo{File: r.cfg.SnapshotFile, Nodes: len(s.Nodes), Namespaces: len(s.Namespaces), CRDs: len(s.CRDs),
		Applications: len(s.Applications), PreExistingCRDs: s.PreExisting(), Truncated: s.Truncated, Unread: s.Unread}
	if info.PreExistingCRDs == nil {
		info.PreExistingCRDs = []string{}
	}
	r.rep.Snapshot = info
	for _, u := range s.Unread {
		r.log.Warnf(r.phase, "snapshot", "not in the snapshot: %s", u)
	}
	if f := r.cfg.SnapshotFile; f != "" {
		err := fitErr
		if err == nil {
			err = writeSnapshot(f, data)
		}
		if err != nil {
			err = fmt.Errorf("SNAPSHOT_FILE %s: %w", f, err)
			r.log.Warnf(r.phase, "snapshot", "%v", err)
			r.rep.Problems = append(r.rep.Problems, err.Error())
			info.File = ""
		} else {
			r.log.Infof(r.phase, "snapshot", "cluster snapshot written to %s: %d nodes, %d namespaces, %d CRDs (%d pre-existing), %d Applications",
				f, info.Nodes, info.Namespaces, info.CRDs, len(info.PreExistingCRDs), info.Applications)
		}
	}
	if b := r.cfg.Baseline; b != nil {
		info.Baseline, info.BaselineTakenAt = r.cfg.BaselinePath, b.TakenAt.UTC().Format("2006-01-02T15:04:05Z")
		r.rep.Changes = snapshot.Diff(b, s)
		if b.Server != s.Server {
			r.rep.Problems = append(r.rep.Problems, fmt.Sprintf("SNAPSHOT_BASELINE %s is a snapshot of the API server %s, this run's is %s: the changes compare two clusters", r.cfg.BaselinePath, b.Server, s.Server))
		}
		r.log.Infof(r.phase, "snapshot", "%s since the baseline %s (taken %s)", english.Count(len(r.rep.Changes), "change"), r.cfg.BaselinePath, info.BaselineTakenAt)
	}
}

// writeSnapshot replaces file atomically: a reader (a later run's
// SNAPSHOT_BASELINE) never sees half a snapshot.
func writeSnapshot(file string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		return err
	}
	return nil
}

// componentOutcome makes a healthy validate degraded (2) when a critical
// component's workload is not ready, missing or unreadable: the apps are
// Healthy as of the last time Argo CD looked, but nothing keeps them so.
// It judges the components validate reported, so nothing when Phase 0
// stopped it.
func (r *run) componentOutcome(code int) int {
	var bad []string
	for _, w := range r.rep.Critical {
		if w.Status != snapshot.Ready {
			bad = append(bad, fmt.Sprintf("%s (%s)", w.Component, w.Status))
		}
	}
	if len(bad) == 0 {
		return code
	}
	if r.rep.Summary != "" {
		r.rep.Summary += "; "
	}
	r.rep.Summary += fmt.Sprintf("%s not ready: %s", english.Count(len(bad), "critical component"), strings.Join(bad, ", "))
	r.rep.recommend("A critical component that is not ready stops Argo CD or Argo Workflows from keeping the platform as deployed: look at its pods with kubectl -n <namespace> describe pods -l app.kubernetes.io/component=<component>.")
	if code == exitcode.OK {
		r.rep.Status = verdictDegraded
		return exitcode.Partial
	}
	return code
}
