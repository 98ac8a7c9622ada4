package e2e

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"

	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/health"
	"github.com/platc/platc/health/builtin"
	"github.com/platc/platc/lang"
)

// samples holds, per custom resource kind, the status the simulated
// operator writes: a real sample of that kind that its health check
// calls Healthy, and one it calls Degraded. They come from platc's
// built-in library, then Argo CD's own health check fixtures (its
// module's resource_customizations/*/*/health_test.yaml), and only then
// from the test blocks of the platform's own health rules: a rule judged
// by its author's own sample proves little. A kind none of them covers
// gets a generic status (a Ready condition), named as such in the run's
// notes.
type samples struct {
	healthy, degraded map[string]*sample // kind → sample
	// source says where each kind's samples came from, for the notes.
	source map[string]map[string]string // kind → "Healthy"/"Degraded" → source
	notes  []string
}

// Where samples come from, in the order they are tried.
const (
	sourceBuiltin  = "platc's built-in library"
	sourceArgoCD   = "Argo CD's fixtures"
	sourcePlatform = "the platform's own health tests"
	sourceGeneric  = "generic"
)

// set records sm as kind's sample for want ("Healthy" or "Degraded")
// unless one was found earlier.
func (s *samples) set(kind, want, source string, sm *sample) {
	target := map[string]map[string]*sample{"Healthy": s.healthy, "Degraded": s.degraded}[want]
	if target == nil || target[kind] != nil {
		return
	}
	target[kind] = sm
	if s.source[kind] == nil {
		s.source[kind] = map[string]string{}
	}
	s.source[kind][want] = source
}

// sample is what a sample object contributes: the spec the simulated
// app creates the resource with (health checks often compare status
// with spec), and the status the operator writes.
type sample struct {
	spec, status map[string]any
}

func parseSample(data []byte) (*sample, error) {
	var obj map[string]any
	if err := yaml.Unmarshal(data, &obj); err != nil {
		return nil, err
	}
	st, _ := obj["status"].(map[string]any)
	if st == nil {
		return nil, fmt.Errorf("no status")
	}
	spec, _ := obj["spec"].(map[string]any)
	return &sample{spec: spec, status: st}, nil
}

// statusFor is the sample's status as an operator that has just
// reconciled generation gen reports it: every observedGeneration is gen.
func (s *sample) statusFor(gen int64) map[string]any {
	return withGeneration(s.status, gen).(map[string]any)
}

func withGeneration(v any, gen int64) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			if k == "observedGeneration" {
				out[k] = gen
				continue
			}
			out[k] = withGeneration(x, gen)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = withGeneration(x, gen)
		}
		return out
	}
	return v
}

func loadSamples(p *ir.Program, m *lang.Module, argocdSrc string) *samples {
	s := &samples{healthy: map[string]*sample{}, degraded: map[string]*sample{}, source: map[string]map[string]string{}}
	kinds := map[string]bool{}
	for _, a := range p.Apps {
		for _, cr := range a.CustomResources {
			kinds[cr.String()] = true
		}
	}
	envMatches := func(env map[string]any) bool {
		for k, v := range env {
			got, ok := p.Env.Lookup(k)
			if !ok || !reflect.DeepEqual(fmt.Sprint(got), fmt.Sprint(v)) {
				return false
			}
		}
		return true
	}
	fromRule := func(h *lang.Health, source string, load func(string) ([]byte, error)) {
		tests, diags := health.Tests(h)
		if diags.HasErrors() {
			return
		}
		for _, t := range tests {
			if !envMatches(t.Env) {
				continue
			}
			b, err := load(t.Object)
			if err != nil {
				continue
			}
			if sm, err := parseSample(b); err == nil {
				s.set(h.Kind, t.Want, source, sm)
			}
		}
	}
	sorted := slices.Sorted(maps.Keys(kinds))
	for _, kind := range sorted {
		if r := builtin.Rule(kind); r != nil {
			fromRule(r, sourceBuiltin, builtin.ReadFile)
		}
	}
	for _, kind := range sorted {
		if s.healthy[kind] == nil || s.degraded[kind] == nil {
			s.fromArgoCD(kind, argocdSrc)
		}
	}
	for _, h := range m.Health {
		fromRule(h, sourcePlatform, os.ReadFile)
	}
	for _, kind := range sorted {
		if s.healthy[kind] == nil {
			s.set(kind, "Healthy", sourceGeneric, &sample{status: map[string]any{"phase": "Ready", "conditions": []any{map[string]any{"type": "Ready", "status": "True", "reason": "Ready", "message": "simulated"}}}})
			s.notes = append(s.notes, fmt.Sprintf("%s: no Healthy sample in platc, Argo CD or the platform; the operator writes a generic Ready condition", kind))
		}
		if s.degraded[kind] == nil {
			s.set(kind, "Degraded", sourceGeneric, &sample{status: map[string]any{"phase": "Failed", "conditions": []any{map[string]any{"type": "Ready", "status": "False", "reason": "Failed", "message": "simulated failure"}}}})
			s.notes = append(s.notes, fmt.Sprintf("%s: no Degraded sample in platc, Argo CD or the platform; the operator writes a generic failed Ready condition", kind))
		}
	}
	return s
}

// Sources says, per kind, where its Healthy and Degraded samples came
// from, one line each, sorted.
func (s *samples) Sources() []string {
	var out []string
	for _, kind := range slices.Sorted(maps.Keys(s.source)) {
		out = append(out, fmt.Sprintf("%s: Healthy from %s, Degraded from %s", kind, s.source[kind]["Healthy"], s.source[kind]["Degraded"]))
	}
	return out
}

// fromArgoCD reads Argo CD's own fixtures for kind ("group/Kind").
func (s *samples) fromArgoCD(kind, src string) {
	if src == "" {
		return
	}
	g, k := splitKind(kind)
	dir := filepath.Join(src, "resource_customizations", g, k)
	b, err := os.ReadFile(filepath.Join(dir, "health_test.yaml"))
	if err != nil {
		return
	}
	var tests struct {
		Tests []struct {
			HealthStatus struct {
				Status string `json:"status"`
			} `json:"healthStatus"`
			InputPath string `json:"inputPath"`
		} `json:"tests"`
	}
	if err := yaml.Unmarshal(b, &tests); err != nil {
		return
	}
	for _, t := range tests.Tests {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(t.InputPath)))
		if err != nil {
			continue
		}
		if sm, err := parseSample(data); err == nil {
			s.set(kind, t.HealthStatus.Status, sourceArgoCD, sm)
		}
	}
}

// splitKind splits "group/Kind"; a core kind has no group.
func splitKind(kind string) (group, k string) {
	for i := len(kind) - 1; i >= 0; i-- {
		if kind[i] == '/' {
			return kind[:i], kind[i+1:]
		}
	}
	return "", kind
}
