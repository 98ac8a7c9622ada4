package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"go.yaml.in/yaml/v3"

	"github.com/platc/platc/diag"
	"github.com/platc/platc/internal/safefile"
	"github.com/platc/platc/internal/safeyaml"
	"github.com/platc/platc/lang"
)

// EnvFile is /config/environment.yaml (RFC 7.4). Its values override the
// platform's own: domain and clusterName the environment block's domain and
// cluster_name, gitRepository and gitRevision platform.git, the two
// namespaces platform.argocd.namespace and platform.workflows.namespace,
// and timeouts and retries the defaults block (so an app, class or stack
// that sets its own value keeps it).
type EnvFile struct {
	Name               string
	Domain             string
	GitRepository      string
	GitRevision        string
	ClusterName        string
	ArgoCDNamespace    string
	WorkflowsNamespace string
	Timeouts           *EnvTimeouts
	Retries            *EnvRetries
	Path               string
	// Sum is the first 12 hex digits of the file's SHA-256: a run whose
	// workflow the file's timeouts or retries change is labelled and
	// reported with it.
	Sum string
	// Ranges says where each value that overrides the platform is
	// written, by the attribute it replaces (lang's Attr names, which
	// lang.Override.Ranges uses), so that a compiler diagnostic about
	// its value points there.
	Ranges map[string]hcl.Range
}

// EnvTimeouts is the timeouts section of environment.yaml.
type EnvTimeouts struct {
	Sync, Health string
}

// EnvRetries is the retries section of environment.yaml. MaxAttempts
// counts every attempt, the first included.
type EnvRetries struct {
	MaxAttempts *int
	Backoff     string
}

// override is what the file changes in the platform, for lang to write
// into the module: the merging is lang's, the meaning of the file's fields
// (RFC 7.4) is this package's.
func (ef *EnvFile) override(env string) lang.Override {
	o := lang.Override{
		Source:             ef.Path,
		Environment:        env,
		Domain:             ef.Domain,
		ClusterName:        ef.ClusterName,
		GitRepository:      ef.GitRepository,
		GitRevision:        ef.GitRevision,
		ArgoCDNamespace:    ef.ArgoCDNamespace,
		WorkflowsNamespace: ef.WorkflowsNamespace,
		// Each value's diagnostic points at the line of the file that
		// wrote it.
		Ranges: ef.Ranges,
	}
	if t := ef.Timeouts; t != nil {
		o.SyncTimeout, o.HealthTimeout = t.Sync, t.Health
	}
	if r := ef.Retries; r != nil {
		if r.MaxAttempts != nil {
			// RFC 7.4 counts attempts; the language counts retries.
			limit := *r.MaxAttempts - 1
			o.RetryLimit = &limit
		}
		o.Backoff = r.Backoff
	}
	return o
}

// ChangesWorkflow says whether the file sets anything the deploy workflow
// embeds (per-step timeouts and retries), which the committed
// WorkflowTemplate cannot know: such a run is compiled on the spot.
func (ef *EnvFile) ChangesWorkflow() bool {
	return ef != nil && (ef.Timeouts != nil || ef.Retries != nil)
}

// Settings lists the timeouts and retries the file sets, as written, for
// the report: "timeouts.sync=7m".
func (ef *EnvFile) Settings() []string {
	var out []string
	if t := ef.Timeouts; t != nil {
		if t.Sync != "" {
			out = append(out, "timeouts.sync="+t.Sync)
		}
		if t.Health != "" {
			out = append(out, "timeouts.health="+t.Health)
		}
	}
	if r := ef.Retries; r != nil {
		if r.MaxAttempts != nil {
			out = append(out, "retries.maxAttempts="+strconv.Itoa(*r.MaxAttempts))
		}
		if r.Backoff != "" {
			out = append(out, "retries.backoff="+r.Backoff)
		}
	}
	return out
}

// envKeys are environment.yaml's fields (RFC 7.4), in the RFC's order.
var envKeys = []string{"name", "domain", "gitRepository", "gitRevision", "clusterName", "argocdNamespace", "workflowsNamespace", "timeouts", "retries"}

// readEnvFile reads and checks the environment file at path. A missing
// file is not a problem when the path is the default one (the mount is
// optional); it is when the operator named the file. Every problem with
// its content is a diagnostic at its line and column; the strings are
// problems reading it at all.
func readEnvFile(path string, explicit bool, environment string) (*EnvFile, hcl.Diagnostics, []string) {
	data, err := safefile.Read(path, MaxEnvFileSize)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, []string{fmt.Sprintf("environment config %s: %v", path, safefile.Unwrap(err))}
	}
	sum := sha256.Sum256(data)
	p := &envParser{ef: &EnvFile{Path: path, Sum: hex.EncodeToString(sum[:])[:12], Ranges: map[string]hcl.Range{}}}
	// Documents bounds alias expansion before anything is decoded.
	docs, err := safeyaml.Documents(data)
	if err != nil {
		line, col := safeyaml.Pos(err)
		p.failAt(line, col, "Environment config is not valid YAML", "%s.", err)
		return nil, p.diags, nil
	}
	if len(docs) != 1 {
		p.failAt(1, 1, "Environment config must be one YAML document", "Write one mapping with the fields of RFC 7.4: %s.", strings.Join(envKeys, ", "))
		return nil, p.diags, nil
	}
	p.root(docs[0], environment)
	if p.diags.HasErrors() {
		return nil, p.diags, nil
	}
	return p.ef, nil, nil
}

type envParser struct {
	ef    *EnvFile
	diags hcl.Diagnostics
}

func (p *envParser) rng(n *yaml.Node) hcl.Range {
	pos := hcl.Pos{Line: n.Line, Column: n.Column, Byte: -1}
	end := pos
	end.Column++
	return hcl.Range{Filename: p.ef.Path, Start: pos, End: end}
}

func (p *envParser) fail(n *yaml.Node, summary, format string, args ...any) {
	r := p.rng(n)
	p.diags = append(p.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: r.Ptr()})
}

func (p *envParser) failAt(line, col int, summary, format string, args ...any) {
	p.fail(&yaml.Node{Line: line, Column: col}, summary, format, args...)
}

// deref follows an alias to what it names (safeyaml bounded them).
func deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// mapping walks a mapping's keys, refusing any not in keys (with a
// suggestion) and any given twice.
func (p *envParser) mapping(n *yaml.Node, where string, keys []string, each func(key string, v *yaml.Node)) {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		p.fail(n, "Wrong type in the environment config", "%s must be a mapping of %s.", where, strings.Join(keys, ", "))
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], deref(n.Content[i+1])
		switch {
		case seen[k.Value]:
			p.fail(k, "Duplicate key in the environment config", "%s sets %q twice; keep one.", where, k.Value)
		case !containsStr(keys, k.Value):
			msg := fmt.Sprintf("unknown field %q in %s; RFC 7.4 defines %s.", k.Value, strings.ToLower(where[:1])+where[1:], strings.Join(keys, ", "))
			if s := diag.Suggest(k.Value, keys); s != "" {
				msg += fmt.Sprintf(" Did you mean %q?", s)
			}
			p.fail(k, "Unknown field in the environment config", "%s", msg)
		default:
			seen[k.Value] = true
			each(k.Value, v)
		}
	}
}

func containsStr(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func (p *envParser) str(n *yaml.Node, field string) string {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" || n.Tag == "!!map" || n.Tag == "!!seq" {
		p.fail(n, "Wrong type in the environment config", "%s must be a string.", field)
		return ""
	}
	return n.Value
}

func (p *envParser) duration(n *yaml.Node, field string) string {
	d, err := time.ParseDuration(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || d <= 0 {
		p.fail(n, "Invalid duration in the environment config", "%s %q is not a positive duration such as \"90s\" or \"10m\".", field, n.Value)
		return ""
	}
	return n.Value
}

func (p *envParser) root(n *yaml.Node, environment string) {
	ef := p.ef
	strs := map[string]*string{
		"name": &ef.Name, "domain": &ef.Domain, "gitRepository": &ef.GitRepository, "gitRevision": &ef.GitRevision,
		"clusterName": &ef.ClusterName, "argocdNamespace": &ef.ArgoCDNamespace, "workflowsNamespace": &ef.WorkflowsNamespace,
	}
	// attrs: the platform attribute each string field replaces (RFC 7.4),
	// the name its range is kept under. name replaces none.
	attrs := map[string]string{
		"domain": lang.AttrDomain, "gitRepository": lang.AttrGitRepoURL, "gitRevision": lang.AttrGitRevision,
		"clusterName": lang.AttrClusterName, "argocdNamespace": lang.AttrArgoCDNamespace, "workflowsNamespace": lang.AttrWorkflowsNamespace,
	}
	var nameNode *yaml.Node
	p.mapping(n, "The environment config", envKeys, func(key string, v *yaml.Node) {
		switch key {
		case "timeouts":
			t := &EnvTimeouts{}
			p.mapping(v, "timeouts", []string{"sync", "health"}, func(key string, v *yaml.Node) {
				if key == "sync" {
					t.Sync, ef.Ranges[lang.AttrSyncTimeout] = p.duration(v, "timeouts.sync"), p.rng(v)
				} else {
					t.Health, ef.Ranges[lang.AttrHealthTimeout] = p.duration(v, "timeouts.health"), p.rng(v)
				}
			})
			ef.Timeouts = t
		case "retries":
			r := &EnvRetries{}
			p.mapping(v, "retries", []string{"maxAttempts", "backoff"}, func(key string, v *yaml.Node) {
				if key == "backoff" {
					r.Backoff, ef.Ranges[lang.AttrRetryBackoff] = p.duration(v, "retries.backoff"), p.rng(v)
					return
				}
				n, err := strconv.Atoi(v.Value)
				if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || err != nil || n < 1 || n > 100 {
					p.fail(v, "Invalid retries in the environment config", "retries.maxAttempts is %s; it counts every attempt, the first included, so it must be a whole number from 1 to 100.", v.Value)
					return
				}
				r.MaxAttempts, ef.Ranges[lang.AttrRetryLimit] = &n, p.rng(v)
			})
			ef.Retries = r
		default:
			*strs[key] = p.str(v, key)
			if attr, ok := attrs[key]; ok {
				ef.Ranges[attr] = p.rng(v)
			}
			if key == "name" {
				nameNode = v
			}
		}
	})
	if p.diags.HasErrors() {
		return
	}
	for _, f := range []string{"name", "domain", "gitRepository", "gitRevision"} {
		if strings.TrimSpace(*strs[f]) == "" {
			p.failAt(1, 1, "Missing field in the environment config", "The required field %q is missing or empty (RFC 7.4); set it.", f)
		}
	}
	if ef.Name != "" && environment != "" && ef.Name != environment {
		p.fail(nameNode, "Environment config for another environment",
			"It describes environment %q but ENVIRONMENT is %q; mount the file for %q or fix ENVIRONMENT.", ef.Name, environment, environment)
	}
}
