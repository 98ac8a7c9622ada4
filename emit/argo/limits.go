package argo

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	apiv1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// MaxObjectBytes is the most bytes of JSON any object platc emits may
// take. etcd refuses a request above 1.5 MiB (its default
// --max-request-bytes); what platc writes is not all that is stored:
// kubectl apply (and Argo CD's client-side apply) copies the whole object
// into the last-applied-configuration annotation, doubling it, and a
// Workflow created from a WorkflowTemplate carries the template's spec in
// status.storedWorkflowTemplateSpec besides its node status. 1 MiB leaves
// a third of the request limit for that, and for the kube-apiserver's own
// bookkeeping (managedFields).
const MaxObjectBytes = 1 << 20

// MaxParamBytes is the most bytes of a parameter's value, literal or
// default, anywhere in what platc emits. A step's parameters reach its
// pod as environment variables, and Linux refuses to exec a program when
// any one "NAME=value" string of its environment is longer than
// MAX_ARG_STRLEN (32 pages of 4 KiB, 128 KiB, the NUL included): the pod
// fails with E2BIG. Argo's controller moves its own ARGO_TEMPLATE
// variable to a ConfigMap when it is that long (workflowpod.go,
// MaxEnvVarLen), not a step's variables. 1 KiB less leaves room for the
// name.
const MaxParamBytes = 128<<10 - 1<<10

// A LimitError is a platform whose workflows would pass a real limit:
// an object over MaxObjectBytes, or a Workflow over the node budget even
// after splitting. It is a user's problem, not a platc bug; platc build
// turns it into a diagnostic at the platform block.
type LimitError struct {
	Summary, Detail string
	// nodes is, for a Workflow over the node budget, its nodes.
	nodes int
	// over is, for a parameter too long, what is over the limit, as a
	// clause (checkSpot lists it with the others).
	over string
}

func (e *LimitError) Error() string { return e.Summary + ": " + e.Detail }

// nodeCounter counts the status nodes Argo's controller creates for a
// Workflow, at worst: every node it may create, every retry used. Per
// template: one node for a DAG or a steps template, one StepGroup node per
// group of steps, one node for a pod (container, script, resource) or
// suspend; a template with a retryStrategy adds a Retry node over limit+1
// attempts. A step with withParam expands at run time to one node per
// item, which the build cannot know; it is counted once (teardown's
// snapshot step, one node per volume claim of an app that is snapshotted).
type nodeCounter struct {
	cluster map[string]*wfv1.Template
	// scopes is the stack of the calls being counted, reused by every
	// count (so one counter counts one call at a time): a call's inputs
	// are pushed on it, not allocated, because a build counts every app's
	// task twice (taskNodes, then each child workflow) and an allocation
	// per call was a quarter of what splitting added at 10,000 apps.
	scopes *[]inputScope
}

func newNodeCounter(c *wfv1.ClusterWorkflowTemplate) nodeCounter {
	n := nodeCounter{cluster: map[string]*wfv1.Template{}, scopes: new([]inputScope)}
	for i := range c.Spec.Templates {
		n.cluster[c.Spec.Templates[i].Name] = &c.Spec.Templates[i]
	}
	return n
}

// noCaller is the caller of a call at the top, whose arguments are
// literal.
const noCaller = -1

// workflow counts the nodes of a workflow spec, from its entrypoint.
// Parameters of the workflow itself resolve to their defaults.
func (n nodeCounter) workflow(spec *wfv1.WorkflowSpec) (int, error) {
	local := map[string]*wfv1.Template{}
	for i := range spec.Templates {
		local[spec.Templates[i].Name] = &spec.Templates[i]
	}
	return n.call(local, spec.Entrypoint, nil, wfv1.Arguments{}, noCaller)
}

// task counts the nodes of a task that calls a ClusterTemplate
// template or one of local's, with literal arguments.
func (n nodeCounter) task(local map[string]*wfv1.Template, t *wfv1.DAGTask) (int, error) {
	return n.call(local, t.Template, t.TemplateRef, t.Arguments, noCaller)
}

// call counts the nodes of one call of a template, by local name or by
// reference, with arguments args given in a caller whose inputs are
// the scope at index caller of n.scopes (noCaller at the top).
func (n nodeCounter) call(local map[string]*wfv1.Template, name string, ref *wfv1.TemplateRef, a wfv1.Arguments, caller int) (int, error) {
	var t *wfv1.Template
	if ref != nil {
		t = n.cluster[ref.Template]
		// A ClusterTemplate template calls its siblings by name.
		local = n.cluster
	} else {
		t = local[name]
	}
	if t == nil {
		return 0, fmt.Errorf("node count: no template %q", cmpOr(name, refName(ref)))
	}
	inputs := len(*n.scopes)
	*n.scopes = append(*n.scopes, inputScope{t: t, args: a.Parameters, caller: caller})
	defer func() { *n.scopes = (*n.scopes)[:inputs] }()
	body := 1
	switch {
	case t.DAG != nil:
		for _, task := range t.DAG.Tasks {
			c, err := n.call(local, task.Template, task.TemplateRef, task.Arguments, inputs)
			if err != nil {
				return 0, err
			}
			body += c
		}
	case t.Steps != nil:
		for _, group := range t.Steps {
			body++ // the StepGroup node
			for _, s := range group.Steps {
				c, err := n.call(local, s.Template, s.TemplateRef, s.Arguments, inputs)
				if err != nil {
					return 0, err
				}
				body += c
			}
		}
	}
	if t.RetryStrategy == nil {
		return body, nil
	}
	limit, err := retryLimit(t.RetryStrategy.Limit, *n.scopes, inputs)
	if err != nil {
		return 0, fmt.Errorf("node count: template %q: %w", t.Name, err)
	}
	return 1 + (limit+1)*body, nil
}

// inputScope is the inputs of one call of template t: an argument's
// value (substituted in the caller's scope) or else the input's
// default. It is looked up, not copied into a map: the count runs once
// per app task, more than once per build, and reads a handful of inputs.
type inputScope struct {
	t    *wfv1.Template
	args []wfv1.Parameter
	// caller is the index of the caller's scope in the stack, or
	// noCaller.
	caller int
}

// get is the value of input name of the scope at index i of stack, if
// it has one; of two arguments (or defaults) of one name, the last
// counts.
func get(stack []inputScope, i int, name string) (string, bool) {
	if i == noCaller {
		return "", false
	}
	s := &stack[i]
	for i := len(s.args) - 1; i >= 0; i-- {
		if p := s.args[i]; p.Name == name && p.Value != nil {
			return substitute(p.Value.String(), stack, s.caller), true
		}
	}
	ps := s.t.Inputs.Parameters
	for i := len(ps) - 1; i >= 0; i-- {
		if p := ps[i]; p.Name == name && p.Default != nil {
			return p.Default.String(), true
		}
	}
	return "", false
}

func refName(r *wfv1.TemplateRef) string {
	if r == nil {
		return ""
	}
	return r.Template
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// substitute replaces {{inputs.parameters.X}} in v with the X of the
// scope at index scope of stack, the only expression platc passes down a
// call chain.
func substitute(v string, stack []inputScope, scope int) string {
	const pre, post = "{{inputs.parameters.", "}}"
	if strings.HasPrefix(v, pre) && strings.HasSuffix(v, post) {
		if s, ok := get(stack, scope, strings.TrimSuffix(strings.TrimPrefix(v, pre), post)); ok {
			return s
		}
	}
	return v
}

// retryLimit is a retry limit as a number; an unset limit is unlimited in
// Argo, which platc never emits.
func retryLimit(l *intstr.IntOrString, stack []inputScope, inputs int) (int, error) {
	if l == nil {
		return 0, fmt.Errorf("retryStrategy without a limit")
	}
	if l.Type == intstr.Int {
		return int(l.IntVal), nil
	}
	v, err := strconv.Atoi(substitute(l.StrVal, stack, inputs))
	if err != nil || v < 0 {
		return 0, fmt.Errorf("retry limit %q does not resolve to a number", l.StrVal)
	}
	return v, nil
}

// checkParams checks every parameter value and default, and every
// literal environment variable of a step, in every template Build
// returns against MaxParamBytes.
func (o *Objects) checkParams() error {
	if err := checkSpecParams("ClusterWorkflowTemplate", o.ClusterTemplate.Name, &o.ClusterTemplate.Spec); err != nil {
		return err
	}
	for _, t := range o.templates() {
		if err := checkSpecParams("WorkflowTemplate", t.Name, &t.Spec); err != nil {
			return err
		}
	}
	return nil
}

// checkSpecParams checks one spec's parameters and literal environment
// variables against MaxParamBytes; kind and name say whose spec it is.
func checkSpecParams(kind, name string, spec *wfv1.WorkflowSpec) error {
	// where and what name the parameters' owner: "template" and its
	// name. They are joined only for an error: joined for every template,
	// step and task they were a string per task at 10,000 apps.
	check := func(where, what string, ps []wfv1.Parameter) error {
		for _, p := range ps {
			for _, v := range []*wfv1.AnyString{p.Value, p.Default} {
				if v != nil && len(v.String()) > MaxParamBytes {
					return paramError(kind, name, where+what, p.Name, len(v.String()))
				}
			}
		}
		return nil
	}
	if err := check("its arguments", "", spec.Arguments.Parameters); err != nil {
		return err
	}
	for i := range spec.Templates {
		t := &spec.Templates[i]
		if err := check("template ", t.Name, t.Inputs.Parameters); err != nil {
			return err
		}
		for _, g := range t.Steps {
			for _, s := range g.Steps {
				if err := check("step ", s.Name, s.Arguments.Parameters); err != nil {
					return err
				}
			}
		}
		if t.DAG != nil {
			for _, task := range t.DAG.Tasks {
				if err := check("task ", task.Name, task.Arguments.Parameters); err != nil {
					return err
				}
			}
		}
		var env []apiv1.EnvVar
		if t.Script != nil {
			env = t.Script.Env
		} else if t.Container != nil {
			env = t.Container.Env
		}
		for _, e := range env {
			if len(e.Value) > MaxParamBytes {
				return paramError(kind, name, "template "+t.Name, e.Name, len(e.Value))
			}
		}
	}
	return nil
}

// paramError is a parameter (or environment variable) over MaxParamBytes.
func paramError(kind, name, where, param string, size int) error {
	over := fmt.Sprintf("parameter %q of %s takes %d bytes, more than the %d platc allows: a step gets its parameters as environment variables, and Linux refuses to start a program with one longer than 128 KiB (MAX_ARG_STRLEN; the pod fails with E2BIG)",
		param, where, size, MaxParamBytes)
	return &LimitError{
		over:    over,
		Summary: fmt.Sprintf("%s %s passes a value too long for a pod's environment", kind, name),
		Detail:  "P" + over[1:] + ". platc passes the lists of Applications in chunks; what is left too long is one app's own value (names, paths, parameters): shorten it, or split the platform.",
	}
}

// objectBytes is the size of o as the compact JSON the API server
// stores (before the annotations and status that MaxObjectBytes leaves
// room for).
func objectBytes(o any) (int, error) {
	// Encoded into a counter, not marshalled: Marshal copies out every
	// object's JSON, up to a MiB each, only for its length. The Encoder
	// escapes HTML as Marshal does and adds a newline.
	var n byteCounter
	if err := json.NewEncoder(&n).Encode(o); err != nil {
		return 0, err
	}
	return int(n) - 1, nil
}

// byteCounter is an io.Writer that counts what is written to it.
type byteCounter int

func (c *byteCounter) Write(p []byte) (int, error) {
	*c += byteCounter(len(p))
	return len(p), nil
}
