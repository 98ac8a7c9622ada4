package health

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/diag"
	"github.com/platc/platc/lang"
)

// Health statuses a rule can produce. Argo CD also knows Missing and
// Unknown, but those describe the absence of an answer, not an answer a
// rule gives.
const (
	Healthy     = "Healthy"
	Progressing = "Progressing"
	Degraded    = "Degraded"
	Suspended   = "Suspended"
)

// Statuses lists the outcomes of a rule, in the order a test's want may
// name them.
var Statuses = []string{Healthy, Progressing, Degraded, Suspended}

// Result is a rule's verdict on one object.
type Result struct {
	Status  string
	Message string
}

func (r Result) String() string { return fmt.Sprintf("%s %q", r.Status, r.Message) }

// Rule is a compiled health block.
type Rule struct {
	// Kind is "group/Kind"; Group and Name are its two halves.
	Kind, Group, Name string

	Healthy, Degraded, Suspended, Message node // nil when not set (Healthy never is)
	// ObservedGeneration keeps the resource Progressing while
	// status.observedGeneration < metadata.generation.
	ObservedGeneration bool

	// Lua is the script for Argo CD; UseOpenLibs says it needs Lua's
	// standard libraries.
	Lua         string
	UseOpenLibs bool

	Block *lang.Health
}

// Options tune Compile.
type Options struct {
	// Origin names where the rule comes from in the script's header,
	// such as "the platform" or "platc's built-in library".
	Origin string
	// Files holds the source files, so the script can quote the HCL it
	// was compiled from; nil leaves the quotes out.
	Files map[string]*hcl.File

	noFold bool
}

// Compile checks a health block and compiles it to Lua. It reports every
// expression outside the subset at its range and returns a nil Rule when
// there are errors.
func Compile(h *lang.Health, scope Scope, opts Options) (*Rule, hcl.Diagnostics) {
	c := &checker{scope: scope, noFold: opts.noFold}
	r := &Rule{Kind: h.Kind, ObservedGeneration: true, Block: h}
	if i := strings.LastIndex(h.Kind, "/"); i >= 0 {
		r.Group, r.Name = h.Kind[:i], h.Kind[i+1:]
	} else {
		r.Name = h.Kind
	}
	attr := func(a *hcl.Attribute, boolean bool) node {
		if a == nil {
			return nil
		}
		c.nodes = 0
		c.deep = false
		n := c.expr(a.Expr, 0)
		if boolean {
			if t := n.typ(); t != kBool && t != kDyn {
				c.errorf(a.Expr.Range(), "Expected a bool", "%s must be a condition such as obj.status.phase == \"Ready\"; this expression is %s.", a.Name, t)
			}
		} else if t := n.typ(); t == kList || t == kObject {
			c.errorf(a.Expr.Range(), "Message is not text", "message must be a string, such as \"phase ${obj.status.phase}\"; this expression is %s.", t)
		}
		return n
	}
	r.Healthy = attr(h.Healthy, true)
	r.Degraded = attr(h.Degraded, true)
	r.Suspended = attr(h.Suspended, true)
	r.Message = attr(h.Message, false)
	if h.Healthy == nil {
		c.diags = append(c.diags, diag.Error(h.KindRange, "Missing healthy expression",
			fmt.Sprintf("The health rule for %q has no healthy expression, so it could never report Healthy. Add one, such as:\n  healthy = condition(obj, \"Ready\").status == \"True\"", h.Kind)))
	}
	if a := h.ObservedGeneration; a != nil {
		before := len(c.diags)
		n := attr(a, true)
		b, ok := false, false
		if n != nil && constant(n) {
			b, ok = eval(n, nil).(bool)
		}
		switch {
		case ok:
			r.ObservedGeneration = b
		case len(c.diags) == before:
			c.errorf(a.Expr.Range(), "Invalid observed_generation", "observed_generation must be true or false, known when the rule is compiled: it may read env.* but not obj.")
		}
	}
	if c.diags.HasErrors() {
		return nil, c.diags
	}
	for _, n := range []node{r.Healthy, r.Degraded, r.Suspended, r.Message} {
		if n != nil && usesOpenLibs(n) {
			r.UseOpenLibs = true
		}
	}
	r.Lua = r.script(r.header(opts))
	return r, c.diags
}

// header is the comment at the top of the script: what it is, where it
// came from, and the HCL it was compiled from.
func (r *Rule) header(opts Options) []string {
	origin := opts.Origin
	if origin == "" {
		origin = "a health rule"
	}
	lines := []string{
		fmt.Sprintf("Health of %s, compiled by platc from %s.", r.Kind, origin),
		"Change the HCL health rule, not this script; `platc test` runs the rule's tests.",
	}
	h := r.Block
	for _, a := range []*hcl.Attribute{h.Degraded, h.Healthy, h.Suspended, h.Message, h.ObservedGeneration} {
		if a == nil {
			continue
		}
		src := sourceOf(opts.Files, a.Expr.Range())
		if src == "" {
			continue
		}
		for i, l := range strings.Split(src, "\n") {
			prefix := fmt.Sprintf("  %-9s = ", a.Name)
			if i > 0 {
				prefix = strings.Repeat(" ", len(prefix))
			}
			lines = append(lines, prefix+l)
		}
	}
	return lines
}

// sourceOf returns the source text of r, made safe for a Lua comment:
// no carriage returns (Lua ends a comment at one) and no tabs.
func sourceOf(files map[string]*hcl.File, r hcl.Range) string {
	f, ok := files[r.Filename]
	if !ok || f == nil || r.End.Byte > len(f.Bytes) || r.Start.Byte > r.End.Byte {
		return ""
	}
	s := string(f.Bytes[r.Start.Byte:r.End.Byte])
	s = strings.ReplaceAll(s, "\r", "")
	s = strings.ReplaceAll(s, "\t", "  ")
	return s
}

// Eval computes the rule's verdict on obj (a value from DecodeJSON,
// DecodeYAML or LoadObject) in Go.
func (r *Rule) Eval(obj any) Result {
	msg := func() string {
		if r.Message == nil {
			return ""
		}
		return ToString(eval(r.Message, obj))
	}
	if r.Degraded != nil && truthy(eval(r.Degraded, obj)) {
		return Result{Degraded, msg()}
	}
	if r.ObservedGeneration {
		g, gok := index(index(obj, "metadata"), "generation").(float64)
		o, ook := index(index(obj, "status"), "observedGeneration").(float64)
		if gok && ook && o < g {
			return Result{Progressing, GenerationMessage(g, o)}
		}
	}
	if truthy(eval(r.Healthy, obj)) {
		return Result{Healthy, msg()}
	}
	if r.Suspended != nil && truthy(eval(r.Suspended, obj)) {
		return Result{Suspended, msg()}
	}
	return Result{Progressing, msg()}
}
