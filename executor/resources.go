package executor

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/restmapper"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/executor/config"
	"github.com/platc/platc/executor/preflight"
	"github.com/platc/platc/health/luavm"
)

// ResourceHealth is one resource node's state for validate (RFC 5.1: a
// resource of an app that another app may depend on), judged as the
// deploy's wait step judges it: the Application manages it, it exists,
// and, unless the compiler decided existence is enough for its kind
// (ir.WaitExists), it is Healthy by its health rule.
type ResourceHealth struct {
	App      string `json:"app"`
	Stack    string `json:"stack,omitempty"`
	Resource string `json:"resource"` // app.APP.resource.NAME
	Kind     string `json:"kind"`     // GROUP/Kind, or Kind for the core group
	Object   string `json:"object"`   // namespace/name, or name
	Wait     string `json:"wait"`     // healthy or exists
	// Health is Healthy, Progressing, Suspended, Degraded, Missing or
	// Unknown; "" when it could not be checked (Message says why), which
	// counts for no aggregate.
	Health string `json:"health,omitempty"`
	// JudgedBy says what decided Health.
	JudgedBy string `json:"judged_by,omitempty"`
	Message  string `json:"message,omitempty"`
}

// managedResource is one entry of an Application's status.resources: what
// it manages, persisted by Argo CD 3 (resource health is not, by default).
type managedResource struct {
	Group, Kind, Namespace, Name string
}

func managedResources(u *unstructured.Unstructured) []managedResource {
	list, _, _ := unstructured.NestedSlice(u.Object, "status", "resources")
	out := make([]managedResource, 0, len(list))
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		str := func(k string) string { s, _ := m[k].(string); return s }
		out = append(out, managedResource{Group: str("group"), Kind: str("kind"), Namespace: str("namespace"), Name: str("name")})
	}
	return out
}

// readResources judges every resource node of the apps in scope. It
// reads only: the Applications' status (already read), API discovery,
// and one GET per resource. The health rule is the compiled one, run as
// Argo CD runs it (luavm); a kind Argo CD judges with its own Go code
// (ir.HealthArgoCD) is judged through the app's health, which Argo CD
// makes the worst of its resources'.
func (r *run) readResources(ctx context.Context, apps []*ir.App, status map[string]appStatus) []ResourceHealth {
	var out []ResourceHealth
	judge := r.resourceJudge(ctx)
	for _, a := range apps {
		for _, res := range a.Resources {
			rh := judge(a, res, status[a.Name])
			out = append(out, rh)
			switch rh.Health {
			case "Healthy":
				r.log.Infof(r.phase, a.Name, "resource %s (%s %s) Healthy (%s)", rh.Resource, rh.Kind, rh.Object, rh.JudgedBy)
			case "":
				r.log.Warnf(r.phase, a.Name, "resource %s not checked: %s", rh.Resource, rh.Message)
			default:
				r.log.Warnf(r.phase, a.Name, "resource %s (%s %s) %s: %s", rh.Resource, rh.Kind, rh.Object, rh.Health, rh.Message)
			}
		}
	}
	return out
}

// resourceJudge judges resource nodes as judgeResource does.
func (r *run) resourceJudge(ctx context.Context) func(a *ir.App, res *ir.Resource, st appStatus) ResourceHealth {
	rules := map[string]*ir.HealthRule{}
	for _, h := range r.cfg.Program.Health {
		rules[h.Key()] = h
	}
	return func(a *ir.App, res *ir.Resource, st appStatus) ResourceHealth {
		return r.judgeResource(ctx, r.restMapper(), rules, a, res, st)
	}
}

// restMapper maps kinds to resources from API discovery, read once per
// run on first use: by Phase 0 (resourcePermissions) and the judging
// after it alike. Unreadable discovery maps nothing, so every resource
// is judged Missing and its wait runs, as without the skip.
func (r *run) restMapper() meta.RESTMapper {
	if r.mapper == nil {
		groups, err := restmapper.GetAPIGroupResources(r.client.Kube.Discovery())
		if err != nil {
			r.log.Warnf(r.phase, "resources", "cannot read the API server's resource types: %s", r.client.Explain(err))
			r.mapper = meta.MultiRESTMapper{}
		} else {
			r.mapper = restmapper.NewDiscoveryRESTMapper(groups)
		}
	}
	return r.mapper
}

// resourcePermissions are the gets that judging the resource nodes of
// the apps in scope needs (judgeResource), one per resource, by name:
// deploy judges them to skip the waits of a resume, validate to report
// them. Optional: without one the resource is "not checked" and, for
// deploy, its wait runs a pod as it would without the skip. The plural
// resource name comes from discovery (restMapper); a kind the API server
// does not serve yet (its CRD comes with an app) is not asked for, since
// such a resource is judged Missing without a read. An app deploying to
// another cluster is not read (judgeResource), so not asked for either.
func (r *run) resourcePermissions() []preflight.Permission {
	if r.cfg.Action != config.Deploy && r.cfg.Action != config.Validate {
		return nil
	}
	var out []preflight.Permission
	for _, a := range r.cfg.ScopeApps {
		if !a.Destination.InCluster() {
			continue
		}
		for _, res := range a.Resources {
			mapping, err := r.restMapper().RESTMapping(schema.GroupKind{Group: res.Group, Kind: res.Kind})
			if err != nil {
				continue
			}
			ns := ""
			if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
				// Argo CD puts a namespaced object without one in the
				// app's namespace; an object a chart puts elsewhere is
				// read there, and a denied read leaves it unchecked.
				ns = res.Namespace
				if ns == "" {
					ns = a.Namespace
				}
			}
			p := preflight.Permission{Verb: "get", Group: res.Group, Resource: mapping.Resource.Resource, Namespace: ns, Name: res.ResourceName, Optional: true}
			rule := fmt.Sprintf("apiGroups [%q], resources [%s], resourceNames [%s], verbs [get]", res.Group, p.Resource, res.ResourceName)
			if ns == "" {
				rule = "a ClusterRole rule " + rule
			} else {
				rule = fmt.Sprintf("a Role rule in namespace %s: %s", ns, rule)
			}
			if r.cfg.Action == config.Deploy {
				p.Why = fmt.Sprintf("to skip the wait %s of a resume when %s is already Healthy; without it the wait runs its pod; %s lets platc skip it", res.TaskName(), res.Ref(), rule)
			} else {
				p.Why = fmt.Sprintf("to judge %s; without it validate reports it not checked; %s lets platc read it", res.Ref(), rule)
			}
			out = append(out, p)
		}
	}
	return out
}

func (r *run) judgeResource(ctx context.Context, mapper meta.RESTMapper, rules map[string]*ir.HealthRule, a *ir.App, res *ir.Resource, st appStatus) ResourceHealth {
	kind := res.Kind
	if res.Group != "" {
		kind = res.Group + "/" + res.Kind
	}
	obj := res.ResourceName
	if res.Namespace != "" {
		obj = res.Namespace + "/" + obj
	}
	rh := ResourceHealth{App: a.Name, Stack: stackOf(a), Resource: res.Ref(), Kind: kind, Object: obj, Wait: string(res.Wait)}
	unchecked := func(format string, args ...any) ResourceHealth {
		rh.Message = fmt.Sprintf(format, args...)
		return rh
	}
	missing := func(format string, args ...any) ResourceHealth {
		rh.Health, rh.JudgedBy, rh.Message = "Missing", "existence", fmt.Sprintf(format, args...)
		return rh
	}
	if !a.Destination.InCluster() {
		return unchecked("app %s deploys to another cluster; validate reads only the cluster it runs against", a.Name)
	}
	if !st.Exists {
		return missing("Application %s does not exist", a.Application)
	}
	// The one object of the Application that matches, as the wait step
	// matches it in the resource tree.
	var match []managedResource
	for _, m := range st.Managed {
		if m.Group == res.Group && m.Kind == res.Kind && m.Name == res.ResourceName && (res.Namespace == "" || m.Namespace == res.Namespace) {
			match = append(match, m)
		}
	}
	switch len(match) {
	case 0:
		return missing("Application %s does not manage %s %s", a.Application, kind, obj)
	case 1:
	default:
		rh.Health, rh.JudgedBy = "Unknown", "the Application's resources"
		rh.Message = fmt.Sprintf("%d resources of Application %s match; set namespace in the resource block to pick one", len(match), a.Application)
		return rh
	}
	m := match[0]
	if m.Namespace != "" {
		rh.Object = m.Namespace + "/" + m.Name
	}
	mapping, err := mapper.RESTMapping(schema.GroupKind{Group: res.Group, Kind: res.Kind})
	if err != nil {
		return missing("the API server serves no kind %s", kind)
	}
	cctx, cancel := r.client.Call(ctx)
	ri := r.client.Dynamic.Resource(mapping.Resource)
	var u *unstructured.Unstructured
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		u, err = ri.Namespace(m.Namespace).Get(cctx, m.Name, metav1.GetOptions{})
	} else {
		u, err = ri.Get(cctx, m.Name, metav1.GetOptions{})
	}
	cancel()
	switch {
	case apierrors.IsNotFound(err):
		return missing("%s %s does not exist", kind, rh.Object)
	case apierrors.IsForbidden(err):
		return unchecked("the kubeconfig's user may not get %s %s; grant get on %s to check it", kind, rh.Object, mapping.Resource.GroupResource())
	case err != nil:
		return unchecked("reading %s %s: %s", kind, rh.Object, r.client.Explain(err))
	}
	if res.Wait == ir.WaitExists {
		rh.Health, rh.JudgedBy = "Healthy", "existence (its kind has no health)"
		return rh
	}
	rule := rules[res.Group+"/"+res.Kind]
	if rule == nil || rule.Lua == "" {
		// Argo CD's own Go check, which runs only inside Argo CD; the
		// Application's health is the worst of its resources'.
		rh.JudgedBy = "the app's health (Argo CD's built-in check for the kind runs only in Argo CD)"
		switch st.Health {
		case "Healthy":
			rh.Health = "Healthy"
		case "":
			rh.Health, rh.Message = "Unknown", "Argo CD has not assessed the app's health"
		default:
			rh.Health, rh.Message = st.Health, fmt.Sprintf("app %s is %s", a.Name, st.Health)
		}
		return rh
	}
	data, err := json.Marshal(u.Object)
	if err != nil {
		return unchecked("encoding %s %s: %v", kind, rh.Object, err)
	}
	got, err := luavm.Run(rule.Lua, rule.UseOpenLibs, data)
	rh.JudgedBy = fmt.Sprintf("the %s health rule, as Argo CD runs it", rule.Origin)
	if err != nil {
		rh.Health, rh.Message = "Unknown", "the health rule failed: "+oneLine(err.Error())
		return rh
	}
	rh.Health, rh.Message = got.Status, strings.TrimSpace(got.Message)
	return rh
}

// resourceState is a resource node's state in RFC 5.3's table, as
// rfcState is an app's; "" counts for nothing.
func resourceState(h string) string {
	switch h {
	case "":
		return ""
	case "Healthy":
		return aggHealthy
	case "Progressing", "Suspended":
		return aggProgressing
	case "Degraded", "Missing":
		return aggDegraded
	}
	return aggFailed
}
