package compiler

import (
	"fmt"
	"slices"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/lang"
)

// builtinClass is one application type of RFC 3.8.5 with its default
// timeouts, plus the typical duration RFC 3.8.2 gives for its layer, which
// plan uses when an app sets no expected_duration.
type builtinClass struct {
	name, description string
	sync, health      time.Duration
	expected          time.Duration
}

// builtinClasses are sorted by name.
var builtinClasses = []builtinClass{
	{"database-cluster", "Database cluster (RFC 3.8.5: 15m sync, 15m health)", 15 * time.Minute, 15 * time.Minute, 8 * time.Minute},
	{"operator", "Operator installation (RFC 3.8.5: 10m sync, 10m health)", 10 * time.Minute, 10 * time.Minute, 3 * time.Minute},
	{"simple", "Simple deployment (RFC 3.8.5: 5m sync, 5m health)", 5 * time.Minute, 5 * time.Minute, 3 * time.Minute},
	{"storage-cluster", "Ceph cluster (RFC 3.8.5: 30m sync, 30m health)", 30 * time.Minute, 30 * time.Minute, 20 * time.Minute},
	{"vault", "Vault with unseal (RFC 3.8.5: 15m sync, 15m health)", 15 * time.Minute, 15 * time.Minute, 6 * time.Minute},
}

// builtin is the bottom of the precedence chain: a simple deployment with
// the retry policy of RFC 5.3 (three attempts, exponential backoff) and
// the retain-by-default volume policy of RFC 6.5.
var builtin = ir.App{
	Timeouts:         ir.Timeouts{Sync: 5 * time.Minute, Health: 5 * time.Minute},
	Retry:            ir.Retry{Limit: 2, Backoff: 30 * time.Second, Factor: 2, MaxBackoff: 5 * time.Minute},
	Teardown:         ir.Teardown{Volumes: ir.VolumesRetain, Timeout: 15 * time.Minute},
	ExpectedDuration: 3 * time.Minute,
}

// opt is an optional setting value.
type opt[T any] struct {
	v   T
	set bool
}

func some[T any](v T, ok bool) opt[T] { return opt[T]{v: v, set: ok} }

// partial is the settings one level (defaults, class, stack or app)
// declares, each evaluated once.
type partial struct {
	sync, health              opt[time.Duration]
	limit, factor             opt[int]
	backoff, maxBackoff       opt[time.Duration]
	volumes, snapshotClass    opt[string]
	teardownTimeout, expected opt[time.Duration]
}

func (e *evaluator) settings(s lang.Settings) partial {
	var p partial
	if t := s.Timeouts; t != nil {
		p.sync = some(e.duration(t.Sync, stepDuration))
		p.health = some(e.duration(t.Health, stepDuration))
	}
	if r := s.Retry; r != nil {
		p.limit = some(e.integer(r.Limit, 0, maxRetryLimit))
		p.factor = some(e.integer(r.Factor, 1, maxRetryFactor))
		p.backoff = some(e.duration(r.Backoff, stepDuration))
		p.maxBackoff = some(e.duration(r.MaxBackoff, stepDuration))
	}
	if t := s.Teardown; t != nil {
		p.volumes = some(e.oneOf(t.Volumes, string(ir.VolumesRetain), string(ir.VolumesDelete), string(ir.VolumesSnapshot)))
		p.teardownTimeout = some(e.duration(t.Timeout, stepDuration))
		p.snapshotClass = some(e.typed(t.SnapshotClass, gSnapshotClass))
	}
	p.expected = some(e.duration(s.ExpectedDuration, stepDuration))
	return p
}

// level is one rung of the precedence ladder.
type level struct {
	from ir.Level
	p    *partial
}

// pick returns the first value set in levels, or def from the built-in
// level.
func pick[T any](levels []level, get func(*partial) opt[T], def T) (T, ir.Level) {
	for _, l := range levels {
		if l.p == nil {
			continue
		}
		if o := get(l.p); o.set {
			return o.v, l.from
		}
	}
	return def, ir.FromBuiltIn
}

// resolveSettings applies precedence app > class > stack > defaults >
// built-in to each setting independently.
func resolveSettings(a *ir.App, levels []level) {
	f := &a.From
	a.Timeouts.Sync, f.SyncTimeout = pick(levels, func(p *partial) opt[time.Duration] { return p.sync }, builtin.Timeouts.Sync)
	a.Timeouts.Health, f.HealthTimeout = pick(levels, func(p *partial) opt[time.Duration] { return p.health }, builtin.Timeouts.Health)
	a.Retry.Limit, f.RetryLimit = pick(levels, func(p *partial) opt[int] { return p.limit }, builtin.Retry.Limit)
	a.Retry.Backoff, f.Backoff = pick(levels, func(p *partial) opt[time.Duration] { return p.backoff }, builtin.Retry.Backoff)
	a.Retry.Factor, f.Factor = pick(levels, func(p *partial) opt[int] { return p.factor }, builtin.Retry.Factor)
	a.Retry.MaxBackoff, f.MaxBackoff = pick(levels, func(p *partial) opt[time.Duration] { return p.maxBackoff }, builtin.Retry.MaxBackoff)
	var vol string
	vol, f.Volumes = pick(levels, func(p *partial) opt[string] { return p.volumes }, string(builtin.Teardown.Volumes))
	a.Teardown.Volumes = ir.VolumePolicy(vol)
	a.Teardown.SnapshotClass, f.SnapshotClass = pick(levels, func(p *partial) opt[string] { return p.snapshotClass }, "")
	a.Teardown.Timeout, f.TeardownTimeout = pick(levels, func(p *partial) opt[time.Duration] { return p.teardownTimeout }, builtin.Teardown.Timeout)
	a.ExpectedDuration, f.ExpectedDuration = pick(levels, func(p *partial) opt[time.Duration] { return p.expected }, builtin.ExpectedDuration)
}

// class is a class available to apps: its resolved IR form and the
// partial settings that take the "class" rung for its apps.
type class struct {
	ir      *ir.Class
	partial partial
}

// resolveClasses merges declared classes over the built-in ones.
func (c *compilation) resolveClasses() {
	c.classes = make(map[string]*class, len(builtinClasses)+len(c.m.Classes))
	for _, b := range builtinClasses {
		c.classes[b.name] = &class{
			ir: &ir.Class{Name: b.name, Description: b.description, BuiltIn: true, Default: ir.Timeouts{Sync: b.sync, Health: b.health},
				Timeouts: ir.Timeouts{Sync: b.sync, Health: b.health}, ExpectedDuration: b.expected},
			partial: partial{sync: some(b.sync, true), health: some(b.health, true), expected: some(b.expected, true)},
		}
	}
	declared := make(map[string]*lang.Class, len(c.m.Classes))
	for _, lc := range c.m.Classes {
		if d := checkName("class", lc.Name, lc.NameRange); d != nil {
			c.diags = append(c.diags, d)
		}
		if first, ok := declared[lc.Name]; ok {
			c.diags = append(c.diags, duplicateName("class", lc.Name, lc.NameRange, first.NameRange))
			continue
		}
		declared[lc.Name] = lc
		p := c.eval.settings(lc.Settings)
		cl, ok := c.classes[lc.Name]
		if !ok {
			cl = &class{ir: &ir.Class{Name: lc.Name}}
			c.classes[lc.Name] = cl
		}
		cl.ir.Declared = true
		cl.ir.DeclRange = lc.DeclRange
		cl.ir.Description = c.eval.strOr(lc.Description, cl.ir.Description)
		overlay(&cl.partial, p)
		cl.ir.Timeouts = ir.Timeouts{Sync: cl.partial.sync.v, Health: cl.partial.health.v}
		cl.ir.ExpectedDuration = cl.partial.expected.v
		if cl.partial.limit.set || cl.partial.backoff.set || cl.partial.factor.set || cl.partial.maxBackoff.set {
			cl.ir.Retry = &ir.Retry{Limit: cl.partial.limit.v, Backoff: cl.partial.backoff.v, Factor: cl.partial.factor.v, MaxBackoff: cl.partial.maxBackoff.v}
		}
	}
	names := make([]string, 0, len(c.classes))
	for name := range c.classes {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		c.prog.Classes = append(c.prog.Classes, c.classes[name].ir)
	}
	c.classNames = names
}

// overlay sets every field of dst that src sets.
func overlay(dst *partial, src partial) {
	set := func(d *opt[time.Duration], s opt[time.Duration]) {
		if s.set {
			*d = s
		}
	}
	set(&dst.sync, src.sync)
	set(&dst.health, src.health)
	set(&dst.backoff, src.backoff)
	set(&dst.maxBackoff, src.maxBackoff)
	set(&dst.teardownTimeout, src.teardownTimeout)
	set(&dst.expected, src.expected)
	if src.limit.set {
		dst.limit = src.limit
	}
	if src.factor.set {
		dst.factor = src.factor
	}
	if src.volumes.set {
		dst.volumes = src.volumes
	}
}

// lookupClass resolves a class attribute, reporting unknown names.
func (c *compilation) lookupClass(a *hcl.Attribute) (*class, string) {
	name, ok := c.eval.str(a)
	if !ok {
		return nil, ""
	}
	if cl, ok := c.classes[name]; ok {
		return cl, name
	}
	detail := fmt.Sprintf("No class %q exists. The built-in classes are database-cluster, operator, simple, storage-cluster and vault; declare a class block to add one.", name)
	if c.classSug == nil {
		c.classSug = diag.NewSuggester(c.classNames, suggestBudget)
	}
	if sug := c.classSug.Suggest(name); sug != "" {
		detail = fmt.Sprintf("No class %q exists. Did you mean %q?", name, sug)
	}
	c.diags = append(c.diags, diag.Error(a.Expr.Range(), "Unknown class", detail))
	return nil, ""
}
