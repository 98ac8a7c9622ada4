package events

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit"
	"github.com/platc/platc/emit/internal/gitops"
)

// Names of the objects in events/.
const (
	EventBus       = "default" // the name EventSources and Sensors use when they name none
	EventSource    = "platc-git"
	EventName      = "push"
	Sensor         = "platc-deploy"
	ServiceAccount = "platc-sensor"
	Trigger        = "submit-deploy"
)

// Emitter emits events/events.yaml and events/rbac.yaml.
type Emitter struct{}

// Name implements emit.Emitter.
func (Emitter) Name() string { return "events" }

// Emit implements emit.Emitter. A platform without an events block gets
// no files.
func (Emitter) Emit(p *ir.Program) ([]emit.File, error) {
	ev := p.Events
	if ev == nil {
		return nil, nil
	}
	objs, err := emit.YAML(eventBus(p), eventSource(p), sensor(p))
	if err != nil {
		return nil, err
	}
	rbac, err := emit.YAML(RBAC(p)...)
	if err != nil {
		return nil, err
	}
	return []emit.File{
		{Path: gitops.EventsDir + "/events.yaml", Data: objs},
		{Path: gitops.EventsDir + "/rbac.yaml", Data: rbac},
	}, nil
}

type m = map[string]any

func meta(p *ir.Program, name, namespace string) m {
	return m{
		"name":      name,
		"namespace": namespace,
		"labels": m{
			"app.kubernetes.io/managed-by": "platc",
			"app.kubernetes.io/part-of":    p.Platform.Name,
		},
	}
}

func object(apiVersion, kind string, metadata m, fields m) m {
	o := m{"apiVersion": apiVersion, "kind": kind, "metadata": metadata}
	for _, k := range []string{"spec", "rules", "roleRef", "subjects"} {
		if v, ok := fields[k]; ok {
			o[k] = v
		}
	}
	return o
}

func eventBus(p *ir.Program) m {
	return object("argoproj.io/v1alpha1", "EventBus", meta(p, EventBus, p.Events.Namespace), m{
		// A concrete version, never "latest".
		"spec": m{"jetstream": m{"version": gitops.JetStream.Version}},
	})
}

func eventSource(p *ir.Program) m {
	ev := p.Events
	port := strconv.Itoa(ev.Port)
	hook := m{"endpoint": ev.Endpoint, "method": "POST", "port": port}
	spec := m{
		"eventBusName": EventBus,
		"service":      m{"ports": []m{{"port": ev.Port, "targetPort": ev.Port}}},
	}
	switch ev.Type {
	case "github":
		if ev.URL != "" {
			hook["url"] = ev.URL
		}
		owner, name, _ := strings.Cut(ev.Repository, "/")
		gh := m{
			"repositories": []m{{"owner": owner, "names": []string{name}}},
			"webhook":      hook,
			"events":       []string{"push"},
			"contentType":  "json",
			"active":       true,
		}
		if ev.Secret != nil {
			// GitHub signs each delivery with this secret; the event
			// source rejects deliveries whose signature does not match.
			gh["webhookSecret"] = secretKey(ev.Secret)
		}
		spec["github"] = m{EventName: gh}
	default:
		if ev.Secret != nil {
			// The sender must present this token as a bearer token.
			hook["authSecret"] = secretKey(ev.Secret)
		}
		spec["webhook"] = m{EventName: hook}
	}
	return object("argoproj.io/v1alpha1", "EventSource", meta(p, EventSource, ev.Namespace), m{"spec": spec})
}

func secretKey(s *ir.SecretRef) m { return m{"name": s.Name, "key": s.Key} }

func sensor(p *ir.Program) m {
	ev := p.Events
	dep := m{"name": EventName, "eventSourceName": EventSource, "eventName": EventName}
	// Push payloads of GitHub, GitLab and Gitea all carry the pushed ref.
	// Only pushes to the revision the platform deploys trigger a deploy;
	// the revision may be a branch or a tag. HEAD names no ref, so every
	// push counts.
	//
	// Argo Events reads a string filter value as a regular expression and
	// looks for it anywhere in the value (Go's regexp Match), so a plain
	// "refs/heads/main" also matched pushes to main-experiment and
	// mainline. The values are anchored, and the ref quoted.
	if ev.Branch != "" && ev.Branch != "HEAD" {
		ref := regexp.QuoteMeta(ev.Branch)
		dep["filters"] = m{"data": []m{{
			"path":  "body.ref",
			"type":  "string",
			"value": []string{"^refs/heads/" + ref + "$", "^refs/tags/" + ref + "$"},
		}}}
	}
	wf := m{
		"apiVersion": "argoproj.io/v1alpha1",
		"kind":       "Workflow",
		"metadata": m{
			"generateName": gitops.DeployTemplate + "-",
			"namespace":    p.Platform.Workflows.Namespace,
			"labels": m{
				"app.kubernetes.io/managed-by": "platc",
				"platc.io/workflow":            gitops.DeployTemplate,
				"platc.io/trigger":             "git-push",
			},
		},
		"spec": m{"workflowTemplateRef": m{"name": gitops.DeployTemplate}},
	}
	return object("argoproj.io/v1alpha1", "Sensor", meta(p, Sensor, ev.Namespace), m{"spec": m{
		"eventBusName": EventBus,
		"template":     m{"serviceAccountName": ServiceAccount},
		"dependencies": []m{dep},
		"triggers": []m{{
			"template": m{
				"name": Trigger,
				// The Kubernetes trigger creates the Workflow object
				// directly, so the sensor needs only "create workflows";
				// the argoWorkflow trigger would run the argo CLI and need
				// list and get as well (Argo Events' trigger docs).
				"k8s": m{
					"operation": "create",
					"source":    m{"resource": wf},
				},
			},
			// Retries cover a briefly unavailable API server, not a
			// rejected Workflow.
			"retryStrategy": m{"steps": 3, "duration": "10s"},
		}},
	}})
}

// RBAC is the sensor's ServiceAccount, and a Role and RoleBinding in the
// workflows namespace that let it create Workflows and nothing else. The
// deploy workflow then runs as the service account its template names,
// not as the sensor.
func RBAC(p *ir.Program) []any {
	ev := p.Events
	wfNS := p.Platform.Workflows.Namespace
	return []any{
		object("v1", "ServiceAccount", meta(p, ServiceAccount, ev.Namespace), nil),
		object("rbac.authorization.k8s.io/v1", "Role", meta(p, ServiceAccount, wfNS), m{
			"rules": []m{{
				"apiGroups": []string{"argoproj.io"},
				"resources": []string{"workflows"},
				"verbs":     []string{"create"},
			}},
		}),
		object("rbac.authorization.k8s.io/v1", "RoleBinding", meta(p, ServiceAccount, wfNS), m{
			"roleRef":  m{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": ServiceAccount},
			"subjects": []m{{"kind": "ServiceAccount", "name": ServiceAccount, "namespace": ev.Namespace}},
		}),
	}
}
