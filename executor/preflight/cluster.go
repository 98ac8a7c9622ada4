package preflight

import (
	"context"
	"fmt"
	"slices"
	"strings"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/platc/platc/executor/cluster"
	"github.com/platc/platc/internal/english"
)

// Status is the outcome of one cluster check.
type Status string

// Check outcomes. Fail blocks the action; Warn is reported and ignored.
const (
	Pass Status = "pass"
	Warn Status = "warn"
	Fail Status = "fail"
	Info Status = "info"
)

// Check is one line of the validation report.
type Check struct {
	Name    string `json:"name"`
	Status  Status `json:"status"`
	Message string `json:"message"`
}

// Permission is one thing the action needs to be allowed to do.
type Permission struct {
	Verb, Group, Resource, Namespace string
	// Name restricts the permission to one object (a Role's
	// resourceNames); "" means any object.
	Name string
	// Why is said when the permission is missing.
	Why string
	// Optional: without it the action still runs, doing less (it warns
	// and says what to do by hand), so Phase 0 warns instead of failing.
	Optional bool
}

func (p Permission) String() string {
	if p.Verb == "*" && p.Resource == "*" {
		return "any verb on any resource (cluster-admin)"
	}
	r := p.Resource
	if p.Group != "" {
		r += "." + p.Group
	}
	if p.Resource == "*" && p.Group == "*" {
		r = "every resource of every API group"
	}
	if p.Name != "" {
		r += " " + p.Name
	}
	if p.Namespace != "" {
		return fmt.Sprintf("%s %s in namespace %s", p.Verb, r, p.Namespace)
	}
	return fmt.Sprintf("%s %s (cluster-wide)", p.Verb, r)
}

// Component is one orchestration primitive as found in the cluster.
type Component struct {
	Name      string   `json:"name"`
	Installed bool     `json:"installed"`
	Namespace string   `json:"namespace,omitempty"`
	Missing   []string `json:"missing,omitempty"` // what is absent when not installed
}

// Inventory is the cluster inventory of RFC 3.2.8.
type Inventory struct {
	ServerVersion string `json:"server_version"`
	Nodes         int    `json:"nodes"`
	ReadyNodes    int    `json:"ready_nodes"`
	Workers       int    `json:"ready_workers"`
	CPU           string `json:"cpu,omitempty"`
	Memory        string `json:"memory,omitempty"`
	// EphemeralStorage is the Ready nodes' allocatable local storage,
	// where nodes report it.
	EphemeralStorage string   `json:"ephemeral_storage,omitempty"`
	Kubelets         []string `json:"kubelet_versions,omitempty"`
}

// ClusterOptions say what the action needs.
type ClusterOptions struct {
	ArgoCDNamespace    string
	WorkflowsNamespace string
	// Events asks for Argo Events too (the platform has an events block).
	Events bool
	// Permissions the action needs; each is asked with a
	// SelfSubjectAccessReview.
	Permissions []Permission
	// Discovered, when set, returns more permissions, which name
	// resources only API discovery can (a custom kind's plural). It is
	// called once the credentials are proven, so an unreachable server
	// is reported as such rather than as a failed discovery.
	Discovered func() []Permission
	// Templates are WorkflowTemplates the action needs in the workflows
	// namespace, and ClusterTemplates the ClusterWorkflowTemplates.
	Templates, ClusterTemplates []string
	// Advisory turns failed node and DNS checks into warnings: validate
	// reports the platform's health even on a struggling cluster.
	Advisory bool
	// Adopted are the Applications of apps without a source, which must
	// exist before a deploy (deploy sets it; validate and teardown report
	// a missing Application themselves).
	Adopted []Adopted
	// Destinations are the declared clusters besides the in-cluster one
	// that the apps in scope deploy to; Argo CD must know each (deploy,
	// validate and teardown set it). DestinationsNeed says what goes
	// wrong for the action when it does not, for the message; under
	// Advisory an unknown cluster only warns.
	Destinations     []Destination
	DestinationsNeed string
}

// ClusterReport is the cluster half of Phase 0.
type ClusterReport struct {
	Checks    []Check    `json:"checks"`
	User      string     `json:"user,omitempty"`
	Inventory Inventory  `json:"inventory"`
	ArgoCD    Component  `json:"argocd"`
	Workflows Component  `json:"workflows"`
	Events    *Component `json:"events,omitempty"`
	Denied    []string   `json:"denied,omitempty"`
	// Unreachable is set when the API server could not be reached or
	// refused the credentials; the other checks did not run.
	Unreachable bool `json:"unreachable,omitempty"`
	// Nodes are the nodes the Ready check listed, or NodesErr why they
	// could not be: the snapshot takes this read rather than listing
	// them again.
	Nodes    []corev1.Node `json:"-"`
	NodesErr error         `json:"-"`
}

// Blocking returns the checks that failed.
func (r *ClusterReport) Blocking() []Check {
	var out []Check
	for _, c := range r.Checks {
		if c.Status == Fail {
			out = append(out, c)
		}
	}
	return out
}

func (r *ClusterReport) add(name string, st Status, format string, args ...any) {
	r.Checks = append(r.Checks, Check{Name: name, Status: st, Message: fmt.Sprintf(format, args...)})
}

// CheckCluster runs the cluster checks of RFC 3.2.4 and 6.1. The first
// call decides reachability: when the API server does not answer, or
// rejects the credentials, the report says so and nothing else is tried.
func CheckCluster(ctx context.Context, c *cluster.Client, opts ClusterOptions) *ClusterReport {
	r := &ClusterReport{}

	// Reachability: /version needs no permission beyond authentication
	// (system:public-info-viewer even allows it anonymously).
	cctx, cancel := c.Call(ctx)
	v, err := serverVersion(cctx, c)
	cancel()
	if err != nil {
		r.Unreachable = true
		r.add("api-reachable", Fail, "%s", c.Explain(err))
		return r
	}
	r.Inventory.ServerVersion = v
	r.add("api-reachable", Pass, "Kubernetes API at %s answers (version %s)", c.Host, v)

	// Authentication: SelfSubjectReview says who the API server thinks we
	// are. /version answers anonymous requests, so this is the first call
	// that proves the credentials work.
	cctx, cancel = c.Call(ctx)
	ssr, err := c.Kube.AuthenticationV1().SelfSubjectReviews().Create(cctx, &authnv1.SelfSubjectReview{}, metav1.CreateOptions{})
	cancel()
	switch {
	case err == nil:
		r.User = ssr.Status.UserInfo.Username
		if r.User == "system:anonymous" {
			r.Unreachable = true
			r.add("authentication", Fail, "the Kubernetes API at %s treats this kubeconfig as anonymous; it carries no credentials the server accepts", c.Host)
			return r
		}
		r.add("authentication", Pass, "authenticated as %q", r.User)
	case apierrors.IsUnauthorized(err) || cluster.IsUnreachable(err):
		r.Unreachable = true
		r.add("authentication", Fail, "%s", c.Explain(err))
		return r
	default:
		// An old API server without SelfSubjectReview: the access reviews
		// below still prove the credentials.
		r.add("authentication", Info, "could not ask who we are (%s); continuing", c.Explain(err))
	}

	perms := opts.Permissions
	if opts.Discovered != nil {
		perms = append(slices.Clip(perms), opts.Discovered()...)
	}
	var required, optional []Permission
	for _, p := range perms {
		if p.Optional {
			optional = append(optional, p)
		} else {
			required = append(required, p)
		}
	}
	denied := checkPermissions(ctx, c, required, r)
	if r.Unreachable {
		return r
	}
	if len(denied) > 0 {
		r.Denied = denied
		r.add("permissions", Fail, "%s may not: %s", orUnknown(r.User), strings.Join(denied, "; "))
	} else if len(required) > 0 {
		r.add("permissions", Pass, "all %d permissions the action needs are granted", len(required))
	}
	if missing := checkPermissions(ctx, c, optional, r); r.Unreachable {
		return r
	} else if len(missing) > 0 {
		r.add("permissions-optional", Warn, "%s may not: %s; the action runs without it and says what to do by hand", orUnknown(r.User), strings.Join(missing, "; "))
	}

	n := len(r.Checks)
	checkNodes(ctx, c, r)
	checkDNS(ctx, c, r)
	if opts.Advisory {
		for i := n; i < len(r.Checks); i++ {
			if r.Checks[i].Status == Fail {
				r.Checks[i].Status = Warn
			}
		}
	}
	checkPrimitives(ctx, c, opts, r)
	checkAdopted(ctx, c, opts, r)
	checkDestinations(ctx, c, opts, r)
	return r
}

func orUnknown(user string) string {
	if user == "" {
		return "the kubeconfig's user"
	}
	return fmt.Sprintf("user %q", user)
}

func serverVersion(ctx context.Context, c *cluster.Client) (string, error) {
	body, err := c.Kube.Discovery().RESTClient().Get().AbsPath("/version").Do(ctx).Raw()
	if err != nil {
		return "", err
	}
	var v struct {
		GitVersion string `json:"gitVersion"`
	}
	if err := jsonUnmarshal(body, &v); err != nil {
		return "", fmt.Errorf("/version answered with something that is not a version: %w", err)
	}
	return v.GitVersion, nil
}

// AskPermissions asks one SelfSubjectAccessReview per permission and
// returns the denied ones, each with the reason it is needed. A review
// that cannot be asked counts as denied.
func AskPermissions(ctx context.Context, c *cluster.Client, perms []Permission) []string {
	return checkPermissions(ctx, c, perms, &ClusterReport{})
}

// checkPermissions asks one SelfSubjectAccessReview per permission and
// returns the denied ones, each with the reason it is needed.
func checkPermissions(ctx context.Context, c *cluster.Client, perms []Permission, r *ClusterReport) []string {
	var denied []string
	for _, p := range perms {
		cctx, cancel := c.Call(ctx)
		res, err := c.Kube.AuthorizationV1().SelfSubjectAccessReviews().Create(cctx, &authzv1.SelfSubjectAccessReview{
			Spec: authzv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authzv1.ResourceAttributes{
				Verb: p.Verb, Group: p.Group, Resource: p.Resource, Namespace: p.Namespace, Name: p.Name,
			}},
		}, metav1.CreateOptions{})
		cancel()
		if err != nil {
			if apierrors.IsUnauthorized(err) || cluster.IsUnreachable(err) {
				r.Unreachable = true
				r.add("permissions", Fail, "%s", c.Explain(err))
				return nil
			}
			denied = append(denied, fmt.Sprintf("%s (the access review failed: %s)", p, c.Explain(err)))
			continue
		}
		if !res.Status.Allowed {
			d := p.String()
			if p.Why != "" {
				d += " (" + p.Why + ")"
			}
			denied = append(denied, d)
		}
	}
	return denied
}

const controlPlaneLabel = "node-role.kubernetes.io/control-plane"

func checkNodes(ctx context.Context, c *cluster.Client, r *ClusterReport) {
	cctx, cancel := c.Call(ctx)
	nodes, err := c.Kube.CoreV1().Nodes().List(cctx, metav1.ListOptions{})
	cancel()
	if err != nil {
		r.NodesErr = err
		r.add("nodes-ready", Fail, "cannot list nodes: %s", c.Explain(err))
		return
	}
	r.Nodes = nodes.Items
	inv := &r.Inventory
	cpu, mem, disk := resource.Quantity{}, resource.Quantity{}, resource.Quantity{}
	var notReady []string
	for _, n := range nodes.Items {
		inv.Nodes++
		if !nodeReady(&n) {
			notReady = append(notReady, n.Name)
			continue
		}
		inv.ReadyNodes++
		if _, cp := n.Labels[controlPlaneLabel]; !cp {
			inv.Workers++
		}
		cpu.Add(n.Status.Capacity[corev1.ResourceCPU])
		mem.Add(n.Status.Capacity[corev1.ResourceMemory])
		disk.Add(n.Status.Allocatable[corev1.ResourceEphemeralStorage])
		if kv := n.Status.NodeInfo.KubeletVersion; kv != "" && !slices.Contains(inv.Kubelets, kv) {
			inv.Kubelets = append(inv.Kubelets, kv)
		}
	}
	slices.Sort(inv.Kubelets)
	if inv.ReadyNodes > 0 {
		inv.CPU, inv.Memory = cpu.String(), mem.String()
		if !disk.IsZero() {
			inv.EphemeralStorage = disk.String()
		}
	}
	switch {
	case inv.ReadyNodes == 0 && inv.Nodes == 0:
		r.add("nodes-ready", Fail, "the cluster has no nodes; nothing can be scheduled")
		return
	case inv.ReadyNodes == 0:
		r.add("nodes-ready", Fail, "none of the %d nodes is Ready (%s); nothing can be scheduled", inv.Nodes, strings.Join(notReady, ", "))
		return
	case len(notReady) > 0:
		r.add("nodes-ready", Warn, "%d of %d nodes are Ready; not Ready: %s", inv.ReadyNodes, inv.Nodes, strings.Join(notReady, ", "))
	default:
		r.add("nodes-ready", Pass, "%d of %d nodes are Ready (%s CPU, %s memory)", inv.ReadyNodes, inv.Nodes, inv.CPU, inv.Memory)
	}
	if inv.Workers < 3 {
		r.add("worker-count", Warn, "%d Ready worker %s; RFC 3.2.4 asks for at least 3 (nodes labelled %s are not counted)", inv.Workers, english.Plural(inv.Workers, "node"), controlPlaneLabel)
	} else {
		r.add("worker-count", Pass, "%d Ready worker nodes", inv.Workers)
	}
	checkPressure(nodes.Items, r)
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// checkDNS looks for running, ready CoreDNS pods: kubeadm, k3s, EKS, GKE
// and AKS all label them k8s-app=kube-dns in kube-system.
func checkDNS(ctx context.Context, c *cluster.Client, r *ClusterReport) {
	cctx, cancel := c.Call(ctx)
	pods, err := c.Kube.CoreV1().Pods("kube-system").List(cctx, metav1.ListOptions{LabelSelector: "k8s-app=kube-dns"})
	cancel()
	if err != nil {
		r.add("dns", Fail, "cannot list the DNS pods in kube-system: %s", c.Explain(err))
		return
	}
	ready := 0
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodRunning && podReady(&p) {
			ready++
		}
	}
	switch {
	case len(pods.Items) == 0:
		r.add("dns", Fail, "no CoreDNS pods (label k8s-app=kube-dns) in kube-system; in-cluster DNS is required (RFC 3.2.4)")
	case ready == 0:
		r.add("dns", Fail, "%d CoreDNS %s in kube-system, none Running and Ready", len(pods.Items), english.Plural(len(pods.Items), "pod"))
	default:
		r.add("dns", Pass, "%d of %d CoreDNS pods Running and Ready", ready, len(pods.Items))
	}
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
