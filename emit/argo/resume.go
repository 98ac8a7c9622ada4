package argo

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/plan"
	"github.com/platc/platc/step"
)

// A resume skips converged apps without a pod each. The executor reads
// every Application once, decides with the step's own rule
// (step.Application.Converged over SyncInputOf) which apps have nothing
// to do, and passes that as the deploy's parameter converged: a key, then
// one character per app of the program, by ir.App.Index, "1" for
// converged. Each app's task has a when that is false for exactly its
// "1", so Argo's controller marks it Skipped without a pod, and a bare
// name in depends accepts Skipped. A split deploy's parent also takes
// converged_children, a key and one character per child, "1" when every
// app of the child converged: the child Workflow is then not created.
//
// A resource wait (RFC 5.1, waitTask) has a character too, after the
// apps', by resourceOrder: "1" when its app converged and the resource
// exists and is Healthy by the rule the wait step applies (the executor
// judges it as validate does). Nothing in the run then changes it, so its
// pod would only confirm what was read. A resource whose app is synced in
// this run is waited for: its state before the sync says nothing about
// after.
//
// The key is a digest of what the positions mean (the apps' names in
// order, then the waited-for resources'; each child's name and apps): a
// mask built for another
// compilation of the platform (a WorkflowTemplate in the cluster that is
// older or newer than the executor's program) matches no key, and then
// nothing is skipped. An empty or malformed value skips nothing too, so
// a deploy submitted without it (argo submit, the push sensor) runs every
// app as before. The when reads the parameter as an expression variable
// ({{=...}}): its value is never spliced into the expression, and only
// the digits the compiler wrote there are.
//
// Size: one byte per app, per waited-for resource and per child. 10,000
// apps are a 10 KB parameter, far within MaxParamBytes and a Workflow's
// 1 MiB; each task's when is about 100 bytes.

// Parameters of the deploy workflow the executor sets on a resume.
const (
	ParamConverged         = "converged"
	ParamConvergedChildren = "converged_children"
)

// keyLen is the length of a mask's key, in hex digits.
const keyLen = 12

// SyncInputOf is what the app's sync-and-wait task asks for: its
// Application, the revision a converged app reports, and the steady-state
// sync policy. The task's inputs (syncValues) and the executor's skip
// decision both derive from it.
func SyncInputOf(a *ir.App) step.SyncInput {
	return step.SyncInput{
		App:            a.Application,
		ExpectRevision: expectRevision(a),
		SyncTimeout:    a.Timeouts.Sync,
		HealthTimeout:  a.Timeouts.Health,
		AutoSync:       a.Sync.Automated,
		SelfHeal:       a.Sync.Automated && a.Sync.SelfHeal,
		Prune:          a.Sync.Automated && a.Sync.Prune,
	}
}

// digest is the first keyLen hex digits of SHA-256 over parts, each
// ended by a newline (names hold no newline).
func digest(parts []string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))[:keyLen]
}

// appsKey is the key of the converged mask of p's apps and waited-for
// resources. Without resources it is what it was before they had
// positions, so such a platform's masks and templates are unchanged.
func appsKey(p *ir.Program) string {
	names := make([]string, 0, len(p.Apps)+1)
	names = append(names, "apps")
	for _, a := range p.Apps {
		names = append(names, a.Name)
	}
	if res := resourceOrder(p); len(res) > 0 {
		names = append(names, "resources")
		for _, r := range res {
			names = append(names, r.Ref())
		}
	}
	return digest(names)
}

// resourceOrder are the resources p's apps wait for, each once, in the
// order of the apps and then of their ResourceDeps: the mask's positions
// after the apps'.
func resourceOrder(p *ir.Program) []*ir.Resource {
	var out []*ir.Resource
	seen := map[string]bool{}
	for _, a := range p.Apps {
		for _, rd := range a.ResourceDeps {
			if ref := rd.Resource.Ref(); !seen[ref] {
				seen[ref] = true
				out = append(out, rd.Resource)
			}
		}
	}
	return out
}

// childrenKey is the key of a split deploy's children mask: each child's
// name and its apps.
func childrenKey(children []string, apps [][]string) string {
	parts := []string{"children"}
	for k, c := range children {
		sorted := slices.Clone(apps[k])
		slices.Sort(sorted)
		parts = append(parts, c+":"+strings.Join(sorted, ","))
	}
	return digest(parts)
}

// skipWhen is the when of a task skipped when character pos of the mask
// in param is "1" and its key is key.
func skipWhen(param, key string, pos int) string {
	// {{=V[0:keyLen] != "key" || V[pos:pos+1] != "1"}}, appended into a
	// buffer on the stack: one string per app task, not the eight
	// allocations of a Sprintf of six values.
	var buf [160]byte
	b := append(buf[:0], "{{=workflow.parameters."...)
	b = append(b, param...)
	b = append(b, "[0:"...)
	b = strconv.AppendInt(b, keyLen, 10)
	b = append(b, `] != "`...)
	b = append(b, key...)
	b = append(b, `" || workflow.parameters.`...)
	b = append(b, param...)
	b = append(b, '[')
	b = strconv.AppendInt(b, int64(keyLen+pos), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(keyLen+pos+1), 10)
	b = append(b, `] != "1"}}`...)
	return string(b)
}

// appWhen is the when of app a's task.
func (b *builder) appWhen(a *ir.App) string {
	if b.key == "" {
		b.key = appsKey(b.p)
	}
	return skipWhen(ParamConverged, b.key, a.Index)
}

// resourceWhen is the when of the wait task for r: its position follows
// the apps'. A resource p's apps do not wait for has no position, and
// its wait always runs.
func (b *builder) resourceWhen(r *ir.Resource) string {
	if b.key == "" {
		b.key = appsKey(b.p)
	}
	if b.resPos == nil {
		b.resPos = map[string]int{}
		for j, res := range resourceOrder(b.p) {
			b.resPos[res.Ref()] = len(b.p.Apps) + j
		}
	}
	pos, ok := b.resPos[r.Ref()]
	if !ok {
		return ""
	}
	return skipWhen(ParamConverged, b.key, pos)
}

// passOn is the value a child Workflow's manifest gives the parent's
// parameter name. The manifest is YAML text, so converged is passed on
// only when it holds nothing but hex digits, and is empty (nothing
// skipped) otherwise.
func passOn(name string) string {
	if name == ParamConverged {
		v := "workflow.parameters." + name
		return fmt.Sprintf(`{{=%s matches "^[0-9a-f]*$" ? %s : ""}}`, v, v)
	}
	return "{{workflow.parameters." + name + "}}"
}

// convergedParams are the deploy workflow's declarations of the masks,
// empty by default: nothing skipped.
func convergedParams(split bool) []wfv1.Parameter {
	ps := []wfv1.Parameter{value(ParamConverged, "")}
	if split {
		ps = append(ps, value(ParamConvergedChildren, ""))
	}
	return ps
}

// ChildApps are the apps of a child WorkflowTemplate, in task order: its
// tasks without resource waits and snapshot steps (none for a snapshot
// child). The emitter decides what a child holds, so the executor asks
// here rather than reading the tasks itself.
func ChildApps(c *wfv1.WorkflowTemplate) []string {
	if len(c.Spec.Templates) == 0 || c.Spec.Templates[0].DAG == nil {
		return nil
	}
	var apps []string
	for _, task := range c.Spec.Templates[0].DAG.Tasks {
		if r := task.TemplateRef; r != nil && (r.Template == tmplWaitResource || r.Template == tmplSnapshots) {
			continue
		}
		if task.Template == tmplWaitResource || task.Template == tmplSnapshots {
			continue
		}
		apps = append(apps, task.Name)
	}
	return apps
}

// ConvergedArguments are the deploy workflow's arguments that skip the
// apps converged says have nothing to do and the resource waits ready
// says need not run (asked only for a resource whose app converged):
// ParamConverged for p's apps and waited-for resources, and, when o's
// deploy is split, ParamConvergedChildren for the children whose apps
// all converged (o is nil for a scoped deploy, compiled unsplit). Nil
// when nothing is skipped.
func ConvergedArguments(p *ir.Program, o *Objects, converged func(*ir.App) bool, ready func(*ir.Resource) bool) map[string]string {
	var mask strings.Builder
	mask.WriteString(appsKey(p))
	any := false
	for _, a := range p.Apps {
		if converged(a) {
			mask.WriteByte('1')
			any = true
		} else {
			mask.WriteByte('0')
		}
	}
	for _, r := range resourceOrder(p) {
		if converged(r.App) && ready(r) {
			mask.WriteByte('1')
			any = true
		} else {
			mask.WriteByte('0')
		}
	}
	if !any {
		return nil
	}
	out := map[string]string{ParamConverged: mask.String()}
	if o == nil {
		return out
	}
	children := o.Children[DeployTemplate]
	if len(children) == 0 {
		return out
	}
	names := make([]string, len(children))
	apps := make([][]string, len(children))
	for k, c := range children {
		names[k], apps[k] = c.Name, ChildApps(c)
	}
	var cm strings.Builder
	cm.WriteString(childrenKey(names, apps))
	for k := range children {
		all := true
		for _, name := range apps[k] {
			if a := p.App(name); a == nil || !converged(a) {
				all = false
				break
			}
		}
		if all {
			cm.WriteByte('1')
		} else {
			cm.WriteByte('0')
		}
	}
	out[ParamConvergedChildren] = cm.String()
	return out
}

// childWhen is the when of the parent's task for child k (names[k], apps
// members of g): skipped when every app of it converged. Only a deploy's
// children, whose parent passes converged on, have one.
func (s *splitter) childWhen(g *plan.Graph, names []string, members [][]int, k int) string {
	if !slices.ContainsFunc(s.params, func(p wfv1.Parameter) bool { return p.Name == ParamConverged }) {
		return ""
	}
	if s.childrenKey == "" {
		apps := make([][]string, len(members))
		for j, m := range members {
			for _, i := range m {
				apps[j] = append(apps[j], g.Apps[i].Name)
			}
		}
		s.childrenKey = childrenKey(names, apps)
	}
	return skipWhen(ParamConvergedChildren, s.childrenKey, k)
}
