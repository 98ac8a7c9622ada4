package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"go.yaml.in/yaml/v3"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/internal/safefile"
	"github.com/platc/platc/internal/safeyaml"
	"github.com/platc/platc/lang"
)

// DefaultDagFile is where the executor looks for the DAG customization
// (RFC 7.4) when DAG_CONFIG does not name a file.
const DefaultDagFile = "/config/dag.yaml"

// MaxDagFileSize is the largest DAG customization file.
const MaxDagFileSize = 1 << 20

// DagFile is the DAG customization of one run (RFC 7.4): a subset of the
// platform to act on, dependencies added or removed, and per-app timeouts
// and retries. It applies to that run only: the executor compiles the
// run's workflow with it on the spot, as it compiles a scoped run, and
// the committed templates stay as Git has them.
//
//	subset:
//	  stacks: [data]
//	  apps: [api]
//	  includeDependencies: true   # deploy: their dependencies; teardown: their dependents
//	dependencies:
//	  add:
//	    - {app: api, dependsOn: cache}
//	  remove:
//	    - {app: metrics, dependsOn: cache}
//	timeouts:
//	  api: {sync: 5m, health: 10m}
//	retries:
//	  api: {maxAttempts: 3, backoff: 30s}
type DagFile struct {
	Path string
	// Sum is the first 12 hex digits of the file's SHA-256: the run's
	// scope label and the report name the customization by it.
	Sum string

	Stacks, Apps        []DagName
	IncludeDependencies bool
	Add, Remove         []DagEdge
	Timeouts            []DagTimeouts
	Retries             []DagRetries
}

// DagName is a stack or app name as written, with where.
type DagName struct {
	Name  string
	Range hcl.Range
}

// DagEdge is one dependency to add or remove: App depends on DependsOn.
type DagEdge struct {
	App, DependsOn DagName
	Range          hcl.Range
}

// DagTimeouts are one app's timeouts for this run.
type DagTimeouts struct {
	App          DagName
	Sync, Health string
	SyncRange    hcl.Range
	HealthRange  hcl.Range
}

// DagRetries are one app's retries for this run. MaxAttempts counts every
// attempt, the first included (as environment.yaml's does); 0 is unset.
type DagRetries struct {
	App          DagName
	MaxAttempts  int
	Backoff      string
	AttemptsRng  hcl.Range
	BackoffRange hcl.Range
}

// HasSubset says whether the file chooses part of the platform.
func (d *DagFile) HasSubset() bool { return len(d.Stacks)+len(d.Apps) > 0 }

// readDagFile reads the DAG customization at path. A missing file is not
// a problem at the default path (the mount is optional); it is when
// DAG_CONFIG named it. Every problem is a diagnostic at its line and
// column.
func readDagFile(path string, explicit bool) (*DagFile, hcl.Diagnostics, []string) {
	data, err := safefile.Read(path, MaxDagFileSize)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, []string{fmt.Sprintf("DAG customization %s: %v", path, safefile.Unwrap(err))}
	}
	sum := sha256.Sum256(data)
	d := &DagFile{Path: path, Sum: hex.EncodeToString(sum[:])[:12]}
	docs, err := safeyaml.Documents(data)
	if err != nil {
		return nil, hcl.Diagnostics{d.diag(d.at(safeyaml.Pos(err)), "DAG customization is not valid YAML", err.Error()+".")}, nil
	}
	if len(docs) != 1 {
		return nil, hcl.Diagnostics{d.diag(d.at(1, 1), "DAG customization must be one YAML document", "Write one mapping with any of subset, dependencies, timeouts and retries.")}, nil
	}
	p := &dagParser{d: d}
	p.root(docs[0])
	if len(p.diags) > 0 {
		return nil, p.diags, nil
	}
	return d, nil, nil
}

func (d *DagFile) at(line, col int) hcl.Range {
	pos := hcl.Pos{Line: line, Column: col, Byte: -1}
	end := pos
	end.Column++
	return hcl.Range{Filename: d.Path, Start: pos, End: end}
}

func (d *DagFile) diag(r hcl.Range, summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: r.Ptr()}
}

type dagParser struct {
	d     *DagFile
	diags hcl.Diagnostics
}

func (p *dagParser) rng(n *yaml.Node) hcl.Range { return p.d.at(n.Line, n.Column) }

func (p *dagParser) fail(n *yaml.Node, summary, format string, args ...any) {
	p.diags = append(p.diags, p.d.diag(p.rng(n), summary, fmt.Sprintf(format, args...)))
}

// mapping walks a mapping's keys, refusing any not in keys (with a
// suggestion) and any given twice.
func (p *dagParser) mapping(n *yaml.Node, where string, keys []string, each func(key string, k, v *yaml.Node)) {
	if n.Kind != yaml.MappingNode {
		p.fail(n, "Wrong type in the DAG customization", "%s must be a mapping of %s.", where, strings.Join(keys, ", "))
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case seen[k.Value]:
			p.fail(k, "Duplicate key in the DAG customization", "%s sets %q twice; keep one.", where, k.Value)
		case keys != nil && !slices.Contains(keys, k.Value):
			msg := fmt.Sprintf("%s has no setting %q; it takes %s.", where, k.Value, strings.Join(keys, ", "))
			if s := diag.Suggest(k.Value, keys); s != "" {
				msg += fmt.Sprintf(" Did you mean %q?", s)
			}
			p.fail(k, "Unknown key in the DAG customization", "%s", msg)
		default:
			seen[k.Value] = true
			each(k.Value, k, v)
		}
	}
}

func (p *dagParser) str(n *yaml.Node, where string) (DagName, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" || strings.TrimSpace(n.Value) == "" {
		p.fail(n, "Wrong type in the DAG customization", "%s must be a name (a non-empty string).", where)
		return DagName{}, false
	}
	return DagName{Name: n.Value, Range: p.rng(n)}, true
}

func (p *dagParser) names(n *yaml.Node, where string) []DagName {
	if n.Kind != yaml.SequenceNode {
		p.fail(n, "Wrong type in the DAG customization", "%s must be a list of names, such as [data, security].", where)
		return nil
	}
	var out []DagName
	for _, e := range n.Content {
		if name, ok := p.str(e, where+"'s items"); ok {
			out = append(out, name)
		}
	}
	return out
}

func (p *dagParser) root(n *yaml.Node) {
	p.mapping(n, "The DAG customization", []string{"subset", "dependencies", "timeouts", "retries"}, func(key string, _, v *yaml.Node) {
		switch key {
		case "subset":
			p.mapping(v, "subset", []string{"stacks", "apps", "includeDependencies"}, func(key string, _, v *yaml.Node) {
				switch key {
				case "stacks":
					p.d.Stacks = p.names(v, "subset.stacks")
				case "apps":
					p.d.Apps = p.names(v, "subset.apps")
				case "includeDependencies":
					b, err := strconv.ParseBool(v.Value)
					if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" || err != nil {
						p.fail(v, "Wrong type in the DAG customization", "subset.includeDependencies must be true or false.")
					}
					p.d.IncludeDependencies = b
				}
			})
		case "dependencies":
			p.mapping(v, "dependencies", []string{"add", "remove"}, func(key string, _, v *yaml.Node) {
				edges := p.edges(v, "dependencies."+key)
				if key == "add" {
					p.d.Add = edges
				} else {
					p.d.Remove = edges
				}
			})
		case "timeouts":
			p.mapping(v, "timeouts", nil, func(app string, k, v *yaml.Node) {
				t := DagTimeouts{App: DagName{Name: app, Range: p.rng(k)}}
				p.mapping(v, "timeouts."+app, []string{"sync", "health"}, func(key string, _, v *yaml.Node) {
					s := p.duration(v, "timeouts."+app+"."+key)
					if key == "sync" {
						t.Sync, t.SyncRange = s, p.rng(v)
					} else {
						t.Health, t.HealthRange = s, p.rng(v)
					}
				})
				p.d.Timeouts = append(p.d.Timeouts, t)
			})
		case "retries":
			p.mapping(v, "retries", nil, func(app string, k, v *yaml.Node) {
				r := DagRetries{App: DagName{Name: app, Range: p.rng(k)}}
				p.mapping(v, "retries."+app, []string{"maxAttempts", "backoff"}, func(key string, _, v *yaml.Node) {
					if key == "backoff" {
						r.Backoff, r.BackoffRange = p.duration(v, "retries."+app+".backoff"), p.rng(v)
						return
					}
					n, err := strconv.Atoi(v.Value)
					if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || err != nil || n < 1 || n > 100 {
						p.fail(v, "Invalid retries in the DAG customization", "retries.%s.maxAttempts counts every attempt, the first included: a whole number from 1 to 100.", app)
						return
					}
					r.MaxAttempts, r.AttemptsRng = n, p.rng(v)
				})
				p.d.Retries = append(p.d.Retries, r)
			})
		}
	})
}

func (p *dagParser) edges(n *yaml.Node, where string) []DagEdge {
	if n.Kind != yaml.SequenceNode {
		p.fail(n, "Wrong type in the DAG customization", "%s must be a list of {app: NAME, dependsOn: NAME}.", where)
		return nil
	}
	var out []DagEdge
	for _, e := range n.Content {
		edge := DagEdge{Range: p.rng(e)}
		p.mapping(e, where+"'s items", []string{"app", "dependsOn"}, func(key string, _, v *yaml.Node) {
			name, _ := p.str(v, where+"."+key)
			if key == "app" {
				edge.App = name
			} else {
				edge.DependsOn = name
			}
		})
		if e.Kind == yaml.MappingNode && (edge.App.Name == "" || edge.DependsOn.Name == "") {
			p.fail(e, "Incomplete dependency in the DAG customization", "Each item of %s names both the app and what it depends on: {app: api, dependsOn: cache}.", where)
			continue
		}
		out = append(out, edge)
	}
	return out
}

func (p *dagParser) duration(n *yaml.Node, where string) string {
	d, err := time.ParseDuration(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || d <= 0 {
		p.fail(n, "Invalid duration in the DAG customization", "%s must be a positive duration such as \"90s\" or \"10m\".", where)
		return ""
	}
	return n.Value
}

// edits is what the customization changes in the platform's apps, for
// lang to write into the module before it is compiled (as override is
// for environment.yaml): the editing is lang's, the meaning of the
// file's fields (RFC 7.4) is this package's.
func (d *DagFile) edits() lang.Edits {
	e := lang.Edits{What: "DAG customization"}
	named := func(n DagName) lang.Named { return lang.Named{Name: n.Name, Range: n.Range} }
	for _, a := range d.Add {
		e.Add = append(e.Add, lang.DepEdit{App: named(a.App), DependsOn: named(a.DependsOn), Range: a.Range, Where: "dependencies.add"})
	}
	for _, r := range d.Remove {
		e.Remove = append(e.Remove, lang.DepEdit{App: named(r.App), DependsOn: named(r.DependsOn), Range: r.Range, Where: "dependencies.remove"})
	}
	for _, t := range d.Timeouts {
		e.Settings = append(e.Settings, lang.AppSettings{App: named(t.App), Sync: t.Sync, Health: t.Health,
			SyncRange: t.SyncRange, HealthRange: t.HealthRange, Where: "timeouts"})
	}
	for _, r := range d.Retries {
		s := lang.AppSettings{App: named(r.App), Backoff: r.Backoff, LimitRange: r.AttemptsRng, BackoffRange: r.BackoffRange, Where: "retries"}
		if r.MaxAttempts > 0 {
			// Attempts here, as in environment.yaml; the language counts retries.
			limit := r.MaxAttempts - 1
			s.Limit = &limit
		}
		e.Settings = append(e.Settings, s)
	}
	return e
}

// dagApps are the apps a customization's subset chooses, in p's
// topological order: the named apps and the apps of the named stacks,
// with, when asked, every app they need first (deploy: their transitive
// dependencies; teardown: their transitive dependents).
func dagApps(p *ir.Program, d *DagFile, action Action) ([]*ir.App, hcl.Diagnostics) {
	if !d.HasSubset() {
		return slices.Clone(p.Apps), nil
	}
	var diags hcl.Diagnostics
	in := map[*ir.App]bool{}
	var stackNames, appNames []string
	for _, s := range p.Stacks {
		stackNames = append(stackNames, s.Name)
	}
	for _, a := range p.Apps {
		appNames = append(appNames, a.Name)
	}
	slices.Sort(appNames)
	unknown := func(kind string, n DagName, names []string) {
		msg := fmt.Sprintf("subset.%ss names %s %q, but the platform has no such %s.", kind, kind, n.Name, kind)
		if s := diag.Suggest(n.Name, names); s != "" {
			msg += fmt.Sprintf(" Did you mean %q?", s)
		}
		diags = append(diags, d.diag(n.Range, "Unknown "+kind+" in the DAG customization", msg))
	}
	for _, n := range d.Stacks {
		s := p.Stack(n.Name)
		if s == nil {
			unknown("stack", n, stackNames)
			continue
		}
		for _, a := range s.Apps {
			in[a] = true
		}
	}
	for _, n := range d.Apps {
		a := p.App(n.Name)
		if a == nil {
			unknown("app", n, appNames)
			continue
		}
		in[a] = true
	}
	if d.IncludeDependencies {
		// p.Apps is in topological order, so one pass closes the set:
		// forward, an app joins when one of its dependencies is in
		// (teardown brings the dependents); backward, when one of its
		// dependents is (deploy brings the dependencies).
		if action == Teardown {
			for _, a := range p.Apps {
				in[a] = in[a] || slices.ContainsFunc(a.Deps, func(d ir.Dep) bool { return in[d.App] })
			}
		} else {
			for _, a := range slices.Backward(p.Apps) {
				in[a] = in[a] || slices.ContainsFunc(a.Dependents, func(b *ir.App) bool { return in[b] })
			}
		}
	}
	var out []*ir.App
	for _, a := range p.Apps {
		if in[a] {
			out = append(out, a)
		}
	}
	return out, diags
}
