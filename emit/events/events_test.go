package events_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	ebv1 "github.com/argoproj/argo-events/pkg/apis/eventbus/v1alpha1"
	esv1 "github.com/argoproj/argo-events/pkg/apis/eventsource/v1alpha1"
	snv1 "github.com/argoproj/argo-events/pkg/apis/sensor/v1alpha1"
	"github.com/argoproj/argo-events/sensors/dependencies"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/events"
	"github.com/platc/platc/emit/internal/emittest"
	"github.com/platc/platc/internal/crdschema"
)

// objects holds the emitted objects, each decoded strictly into its
// upstream Go type.
type objects struct {
	bus      *ebv1.EventBus
	source   *esv1.EventSource
	sensor   *snv1.Sensor
	sa       *corev1.ServiceAccount
	role     *rbacv1.Role
	binding  *rbacv1.RoleBinding
	workflow []byte // the Workflow the sensor creates, as JSON
}

func strictDecode(j []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(j))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

// decode decodes every document of the emitted files strictly: an unknown
// or mistyped field anywhere fails.
func decode(t *testing.T, files map[string][]byte) objects {
	t.Helper()
	var o objects
	for _, path := range []string{"events/events.yaml", "events/rbac.yaml"} {
		data, ok := files[path]
		if !ok {
			t.Fatalf("%s not emitted", path)
		}
		for _, doc := range strings.Split(string(data), "\n---\n") {
			j, err := yaml.YAMLToJSON([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			var head struct{ Kind string }
			if err := json.Unmarshal(j, &head); err != nil {
				t.Fatal(err)
			}
			var v any
			switch head.Kind {
			case "EventBus":
				o.bus = &ebv1.EventBus{}
				v = o.bus
			case "EventSource":
				o.source = &esv1.EventSource{}
				v = o.source
			case "Sensor":
				o.sensor = &snv1.Sensor{}
				v = o.sensor
			case "ServiceAccount":
				o.sa = &corev1.ServiceAccount{}
				v = o.sa
			case "Role":
				o.role = &rbacv1.Role{}
				v = o.role
			case "RoleBinding":
				o.binding = &rbacv1.RoleBinding{}
				v = o.binding
			default:
				t.Fatalf("%s: unexpected kind %q", path, head.Kind)
			}
			if err := strictDecode(j, v); err != nil {
				t.Errorf("%s: %s: %v", path, head.Kind, err)
			}
		}
	}
	if o.bus == nil || o.source == nil || o.sensor == nil || o.sa == nil || o.role == nil || o.binding == nil {
		t.Fatalf("missing objects: %+v", o)
	}
	if len(o.sensor.Spec.Triggers) != 1 || o.sensor.Spec.Triggers[0].Template.K8s == nil {
		t.Fatal("the sensor has no Kubernetes trigger")
	}
	o.workflow = o.sensor.Spec.Triggers[0].Template.K8s.Source.Resource.Value
	return o
}

const base = `platform "p" {
  workflows {
    namespace = "wf"
  }
  git {
    repo_url = "https://git.example.com/p.git"
    revision = "release"
  }
}
app "a" {
  namespace = "a"
  source {
    path = "apps/a"
  }
}
`

// check asserts that the objects fit together: the sensor listens to the
// event the source produces on the bus both name, it runs as the service
// account the RBAC binds, and that account may create Workflows in the
// workflows namespace and do nothing else.
func check(t *testing.T, p *ir.Program, o objects) {
	t.Helper()
	ns := p.Events.Namespace
	wfNS := p.Platform.Workflows.Namespace
	for _, m := range []struct{ name, namespace string }{
		{o.bus.Name, o.bus.Namespace}, {o.source.Name, o.source.Namespace},
		{o.sensor.Name, o.sensor.Namespace}, {o.sa.Name, o.sa.Namespace},
	} {
		if m.namespace != ns {
			t.Errorf("%s is in %q, want the events namespace %q", m.name, m.namespace, ns)
		}
	}
	if o.bus.Spec.JetStream == nil || o.bus.Spec.JetStream.Version == "" || o.bus.Spec.JetStream.Version == "latest" {
		t.Errorf("JetStream version not pinned: %+v", o.bus.Spec.JetStream)
	}
	if o.source.Spec.EventBusName != o.bus.Name || o.sensor.Spec.EventBusName != o.bus.Name {
		t.Errorf("bus names: source %q, sensor %q, bus %q", o.source.Spec.EventBusName, o.sensor.Spec.EventBusName, o.bus.Name)
	}
	var hook *esv1.WebhookContext
	var names []string
	for name, w := range o.source.Spec.Webhook {
		names = append(names, name)
		hook = &w.WebhookContext
	}
	for name, g := range o.source.Spec.Github {
		names = append(names, name)
		hook = g.Webhook
	}
	if len(names) != 1 || hook == nil {
		t.Fatalf("event source has events %v", names)
	}
	if port, err := strconv.Atoi(hook.Port); err != nil || port != p.Events.Port {
		t.Errorf("webhook port %q, want %d", hook.Port, p.Events.Port)
	}
	if len(o.source.Spec.Service.Ports) != 1 || o.source.Spec.Service.Ports[0].TargetPort.IntValue() != p.Events.Port {
		t.Errorf("service ports %+v do not reach the webhook port", o.source.Spec.Service.Ports)
	}
	if hook.Endpoint != p.Events.Endpoint || hook.Method != "POST" {
		t.Errorf("webhook %s %s", hook.Method, hook.Endpoint)
	}
	deps := o.sensor.Spec.Dependencies
	if len(deps) != 1 || deps[0].EventSourceName != o.source.Name || deps[0].EventName != names[0] {
		t.Errorf("sensor dependencies %+v do not name event %s/%s", deps, o.source.Name, names[0])
	}
	if o.sensor.Spec.Template == nil || o.sensor.Spec.Template.ServiceAccountName != o.sa.Name {
		t.Errorf("sensor does not run as %s", o.sa.Name)
	}
	if tr := o.sensor.Spec.Triggers[0].Template.K8s; tr.Operation != snv1.Create {
		t.Errorf("trigger operation %q", tr.Operation)
	}

	if o.role.Namespace != wfNS || o.binding.Namespace != wfNS {
		t.Errorf("role in %q, binding in %q, want %q", o.role.Namespace, o.binding.Namespace, wfNS)
	}
	want := []rbacv1.PolicyRule{{APIGroups: []string{"argoproj.io"}, Resources: []string{"workflows"}, Verbs: []string{"create"}}}
	if len(o.role.Rules) != 1 || !slices.Equal(o.role.Rules[0].APIGroups, want[0].APIGroups) ||
		!slices.Equal(o.role.Rules[0].Resources, want[0].Resources) || !slices.Equal(o.role.Rules[0].Verbs, want[0].Verbs) ||
		len(o.role.Rules[0].ResourceNames) > 0 || len(o.role.Rules[0].NonResourceURLs) > 0 {
		t.Errorf("role rules %+v, want exactly %+v", o.role.Rules, want)
	}
	if o.binding.RoleRef != (rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: o.role.Name}) {
		t.Errorf("binding refers to %+v", o.binding.RoleRef)
	}
	if len(o.binding.Subjects) != 1 || o.binding.Subjects[0] != (rbacv1.Subject{Kind: "ServiceAccount", Name: o.sa.Name, Namespace: ns}) {
		t.Errorf("binding subjects %+v", o.binding.Subjects)
	}

	var wf struct {
		Metadata struct{ Namespace, GenerateName string }
		Spec     struct{ WorkflowTemplateRef struct{ Name string } }
	}
	if err := json.Unmarshal(o.workflow, &wf); err != nil {
		t.Fatal(err)
	}
	if wf.Metadata.Namespace != wfNS || wf.Spec.WorkflowTemplateRef.Name != "deploy" || wf.Metadata.GenerateName == "" {
		t.Errorf("the sensor creates %s", o.workflow)
	}
}

// The example platform's events objects decode strictly into argo-events'
// own types, the Workflow they create validates against Argo Workflows'
// schema, and the objects fit together.
func TestExample(t *testing.T) {
	p := emittest.Example(t, "../..")
	files := emittest.Emit(t, p, events.Emitter{})
	o := decode(t, files)
	check(t, p, o)
	if err := crdschema.Validate("Workflow", o.workflow); err != nil {
		t.Errorf("the sensor's Workflow: %v", err)
	}
	// The example deploys tag platform-v1.4.0: pushes of that ref, as a
	// branch or a tag, are the only ones that trigger.
	f := o.sensor.Spec.Dependencies[0].Filters
	if f == nil || len(f.Data) != 1 || f.Data[0].Path != "body.ref" ||
		!slices.Equal(f.Data[0].Value, []string{`^refs/heads/platform-v1\.4\.0$`, `^refs/tags/platform-v1\.4\.0$`}) {
		t.Errorf("filters %+v", f)
	}
}

// The schema check is not vacuous: a Workflow with a misspelt field is
// refused.
func TestWorkflowSchemaRejects(t *testing.T) {
	bad := `{"apiVersion":"argoproj.io/v1alpha1","kind":"Workflow","metadata":{"generateName":"d-"},"spec":{"workflowTemplateRef":{"nmae":"deploy"}}}`
	if err := crdschema.Validate("Workflow", []byte(bad)); err == nil {
		t.Error("accepted a misspelt workflowTemplateRef field")
	}
}

// A GitHub source in its own namespace: the webhook secret signs
// deliveries, the repository splits into owner and name, and the sensor's
// permission is granted in the workflows namespace to the account in the
// events namespace.
func TestGitHubOwnNamespace(t *testing.T) {
	p := emittest.Compile(t, "p.hcl", []byte(base+`
events {
  type       = "github"
  namespace  = "events"
  repository = "acme/platform"
  url        = "https://hooks.acme.example"
  branch     = "main"
  secret {
    name = "gh"
    key  = "hmac"
  }
}
`), "")
	o := decode(t, emittest.Emit(t, p, events.Emitter{}))
	check(t, p, o)
	gh, ok := o.source.Spec.Github["push"]
	if !ok {
		t.Fatal("no github push event")
	}
	if len(gh.Repositories) != 1 || gh.Repositories[0].Owner != "acme" || !slices.Equal(gh.Repositories[0].Names, []string{"platform"}) {
		t.Errorf("repositories %+v", gh.Repositories)
	}
	if gh.WebhookSecret == nil || gh.WebhookSecret.Name != "gh" || gh.WebhookSecret.Key != "hmac" || gh.Webhook.URL != "https://hooks.acme.example" {
		t.Errorf("webhook secret %+v, url %q", gh.WebhookSecret, gh.Webhook.URL)
	}
	if len(o.source.Spec.Webhook) != 0 {
		t.Error("a github source also has a plain webhook")
	}
}

// A plain webhook checks the bearer token in the named Secret; with the
// default revision HEAD every push triggers.
func TestWebhookSecretNoFilter(t *testing.T) {
	src := strings.Replace(base, `    revision = "release"`+"\n", "", 1) + `
events {
  secret {
    name = "hook"
    key  = "token"
  }
}
`
	p := emittest.Compile(t, "p.hcl", []byte(src), "")
	o := decode(t, emittest.Emit(t, p, events.Emitter{}))
	check(t, p, o)
	w := o.source.Spec.Webhook["push"]
	if w.AuthSecret == nil || w.AuthSecret.Name != "hook" || w.AuthSecret.Key != "token" {
		t.Errorf("auth secret %+v", w.AuthSecret)
	}
	if f := o.sensor.Spec.Dependencies[0].Filters; f != nil {
		t.Errorf("filter %+v for revision HEAD", f)
	}
}

// Without an events block there is nothing to emit.
func TestNoEvents(t *testing.T) {
	p := emittest.Compile(t, "p.hcl", []byte(base), "")
	if files := emittest.Emit(t, p, events.Emitter{}); len(files) != 0 {
		t.Errorf("emitted %d files", len(files))
	}
}

// TestSensorFilterAnchored runs the sensor's dependency filter through
// Argo Events' own filter code (sensors/dependencies.Filter, what the
// sensor runs on each event): only pushes of exactly the deployed ref,
// as a branch or a tag, trigger. Unanchored, pushes to main-experiment
// and mainline deployed too (issue 13).
func TestSensorFilterAnchored(t *testing.T) {
	src := strings.Replace(base, `revision = "release"`, `revision = "main"`, 1) + "events {}\n"
	p := emittest.Compile(t, "p.hcl", []byte(src), "")
	o := decode(t, emittest.Emit(t, p, events.Emitter{}))
	f := o.sensor.Spec.Dependencies[0].Filters
	if f == nil {
		t.Fatal("no filter for revision main")
	}
	for ref, want := range map[string]bool{
		"refs/heads/main":            true,
		"refs/tags/main":             true,
		"refs/heads/main-experiment": false,
		"refs/heads/mainline":        false,
		"refs/heads/feature/main":    false,
		"refs/heads/xmain":           false,
		"refs/tags/main.1":           false,
		"refs/heads/main\n":          false,
		"":                           false,
	} {
		body, _ := json.Marshal(map[string]any{"header": map[string]any{}, "body": map[string]any{"ref": ref}})
		ev := &snv1.Event{Context: &snv1.EventContext{DataContentType: "application/json"}, Data: body}
		got, err := dependencies.Filter(ev, f, "")
		if err != nil && want {
			t.Errorf("%q: %v", ref, err)
		}
		if got != want {
			t.Errorf("a push of %q triggers: %v, want %v", ref, got, want)
		}
	}
	// A revision with regular-expression characters matches itself only.
	src = strings.Replace(base, `revision = "release"`, `revision = "v1.2+build.3"`, 1) + "events {}\n"
	p = emittest.Compile(t, "p.hcl", []byte(src), "")
	o = decode(t, emittest.Emit(t, p, events.Emitter{}))
	for ref, want := range map[string]bool{"refs/tags/v1.2+build.3": true, "refs/tags/v1x2build.3": false, "refs/tags/v1.22build.3": false} {
		body, _ := json.Marshal(map[string]any{"body": map[string]any{"ref": ref}})
		ev := &snv1.Event{Context: &snv1.EventContext{DataContentType: "application/json"}, Data: body}
		if got, _ := dependencies.Filter(ev, o.sensor.Spec.Dependencies[0].Filters, ""); got != want {
			t.Errorf("revision v1.2+build.3, push of %q triggers: %v, want %v", ref, got, want)
		}
	}
}
