package argo

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"

	"github.com/platc/platc/compiler/valid"
)

// Argo's validation (workflow/validate, what argo lint runs) does not
// catch everything that fails later, at admission or at run time: a
// malformed depends expression, an object name that is not RFC 1123, or
// the v4 CRDs' caps of 200 tasks per DAG and 200 templates per workflow. checkSpec checks those on everything this
// package builds, so a violation is reported as a platc bug at build time
// instead of by a cluster.

// taskName is Argo's task and template names; depends needs a leading
// letter.
var taskName = regexp.MustCompile(`^[a-zA-Z][-a-zA-Z0-9]*$`)

// checkName checks an object name (or, with generate, a generateName
// prefix, to which the API server appends 5 characters).
func checkName(kind, name string, maxLen int, generate bool) error {
	check := name
	if generate {
		check = strings.TrimSuffix(name, "-")
		maxLen -= 5
	}
	if len(name) == 0 || len(name) > maxLen || !valid.DNSSubdomain(check) {
		return fmt.Errorf("%s name %q is not an RFC 1123 name of at most %d characters", kind, name, maxLen)
	}
	return nil
}

func checkNamespace(ns string) error {
	if !valid.DNSLabel(ns) {
		return fmt.Errorf("namespace %q is not an RFC 1123 label", ns)
	}
	return nil
}

// checkSpec checks the templates of one workflow spec.
func checkSpec(spec *wfv1.WorkflowSpec) error {
	if n := len(spec.Templates); n > MaxTemplates {
		return fmt.Errorf("%d templates, more than Argo's limit of %d", n, MaxTemplates)
	}
	local := map[string]bool{}
	for _, t := range spec.Templates {
		if !taskName.MatchString(t.Name) || len(t.Name) > 128 {
			return fmt.Errorf("template name %q is invalid", t.Name)
		}
		if local[t.Name] {
			return fmt.Errorf("template %q is defined twice", t.Name)
		}
		local[t.Name] = true
	}
	for _, t := range spec.Templates {
		if t.DAG != nil {
			if err := checkDAG(t.Name, t.DAG, local); err != nil {
				return err
			}
		}
		for _, ps := range t.Steps {
			for _, s := range ps.Steps {
				if s.ContinueOn != nil {
					return fmt.Errorf("template %q: step %q has continueOn, which would swallow a failure (INV-4)", t.Name, s.Name)
				}
				if s.Template != "" && !local[s.Template] {
					return fmt.Errorf("template %q: step %q calls undefined template %q", t.Name, s.Name, s.Template)
				}
			}
		}
	}
	return nil
}

func checkDAG(name string, d *wfv1.DAGTemplate, local map[string]bool) error {
	if len(d.Tasks) == 0 {
		return fmt.Errorf("template %q: a DAG without tasks, which Argo rejects", name)
	}
	if n := len(d.Tasks); n > MaxTasks {
		return fmt.Errorf("template %q: %d tasks, more than Argo's limit of %d per DAG", name, n, MaxTasks)
	}
	tasks := make(map[string]bool, len(d.Tasks))
	for _, t := range d.Tasks {
		if !taskName.MatchString(t.Name) || len(t.Name) > 128 {
			return fmt.Errorf("template %q: task name %q is invalid (letters, digits and '-', starting with a letter)", name, t.Name)
		}
		if tasks[t.Name] {
			return fmt.Errorf("template %q: task %q appears twice", name, t.Name)
		}
		tasks[t.Name] = true
	}
	for _, t := range d.Tasks {
		if t.ContinueOn != nil {
			return fmt.Errorf("template %q: task %q has continueOn, which would swallow a failure (INV-4)", name, t.Name)
		}
		if len(t.Dependencies) > 0 {
			return fmt.Errorf("template %q: task %q uses dependencies; platc emits depends only", name, t.Name)
		}
		if t.Template != "" && !local[t.Template] {
			return fmt.Errorf("template %q: task %q calls undefined template %q", name, t.Name, t.Template)
		}
		if t.Depends == "" {
			continue
		}
		refs, err := parseDepends(t.Depends)
		if err != nil {
			return fmt.Errorf("template %q: task %q: depends %q: %v", name, t.Name, t.Depends, err)
		}
		for _, r := range refs {
			if !tasks[r] {
				return fmt.Errorf("template %q: task %q depends on %q, which is not a task of this DAG", name, t.Name, r)
			}
			if r == t.Name {
				return fmt.Errorf("template %q: task %q depends on itself", name, t.Name)
			}
		}
	}
	return nil
}

// depends results Argo accepts after a task name (enhanced depends logic).
var results = []string{"Succeeded", "Failed", "Errored", "Skipped", "Omitted", "Daemoned", "AnySucceeded", "AllFailed"}

// parseDepends parses an Argo depends expression: task names with an
// optional .Result, combined with &&, || and !, and parentheses. It
// returns the task names referenced, in order.
func parseDepends(s string) ([]string, error) {
	p := &dependsParser{s: s}
	p.next()
	if err := p.or(); err != nil {
		return nil, err
	}
	if p.tok != "" {
		return nil, fmt.Errorf("unexpected %q at offset %d", p.tok, p.at)
	}
	return p.refs, nil
}

type dependsParser struct {
	s    string
	pos  int
	tok  string // current token; "" at the end
	at   int    // offset of tok
	refs []string
}

var dependsToken = regexp.MustCompile(`^(&&|\|\||!|\(|\)|[a-zA-Z0-9][-a-zA-Z0-9]*(\.[a-zA-Z]+)?)`)

func (p *dependsParser) next() {
	for p.pos < len(p.s) && p.s[p.pos] == ' ' {
		p.pos++
	}
	p.at = p.pos
	if p.pos == len(p.s) {
		p.tok = ""
		return
	}
	m := dependsToken.FindString(p.s[p.pos:])
	if m == "" {
		m = p.s[p.pos : p.pos+1] // reported by the caller as unexpected
	}
	p.tok = m
	p.pos += len(m)
}

func (p *dependsParser) or() error {
	if err := p.and(); err != nil {
		return err
	}
	for p.tok == "||" {
		p.next()
		if err := p.and(); err != nil {
			return err
		}
	}
	return nil
}

func (p *dependsParser) and() error {
	if err := p.unary(); err != nil {
		return err
	}
	for p.tok == "&&" {
		p.next()
		if err := p.unary(); err != nil {
			return err
		}
	}
	return nil
}

func (p *dependsParser) unary() error {
	switch {
	case p.tok == "!":
		p.next()
		return p.unary()
	case p.tok == "(":
		p.next()
		if err := p.or(); err != nil {
			return err
		}
		if p.tok != ")" {
			return fmt.Errorf("missing ) at offset %d", p.at)
		}
		p.next()
		return nil
	case p.tok == "":
		return fmt.Errorf("expression ends where a task name is expected")
	case p.tok == "&&" || p.tok == "||" || p.tok == ")":
		return fmt.Errorf("unexpected %q at offset %d where a task name is expected", p.tok, p.at)
	}
	name, result, hasResult := strings.Cut(p.tok, ".")
	if !taskName.MatchString(name) {
		return fmt.Errorf("%q at offset %d is not a task name", p.tok, p.at)
	}
	if hasResult && !slices.Contains(results, result) {
		return fmt.Errorf("unknown task result %q at offset %d", result, p.at)
	}
	p.refs = append(p.refs, name)
	p.next()
	return nil
}
