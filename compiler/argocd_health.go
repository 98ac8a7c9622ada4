package compiler

import (
	_ "embed"
	"slices"
	"strings"
	"sync"

	healthlib "github.com/platc/platc/health/builtin"
)

// ArgoCDHealthVersion is the Argo CD release platc is built and tested
// against (.ci/e2e/argocd/go.mod, the image's argocd CLI), whose own
// health checks argocd-health.txt lists.
const ArgoCDHealthVersion = "v3.2.6"

// argocd-health.txt lists every kind Argo CD ArgoCDHealthVersion has a
// health check for: the Lua checks under its module's
// resource_customizations/GROUP/KIND/health.lua (generated from the
// module source by TestArgoCDHealthList -update, which also fails when
// the file and the source disagree) and the Go checks of the
// gitops-engine it pins (pkg/health's GetHealthCheckFunc, listed by hand
// with the commit cited in the file). "_" in a directory name is Argo
// CD's wildcard.
//
//go:embed argocd-health.txt
var argoCDHealthData string

// NativeCheck is one health check Argo CD ships.
type NativeCheck struct {
	// Kind is "group/Kind" ("Kind" alone for the core group); a "*"
	// group prefix or kind is Argo CD's wildcard ("*.crossplane.io/*").
	Kind string
	// Go is set for a check written in Go (gitops-engine) rather than a
	// Lua resource customization.
	Go bool
}

// ArgoCDHealthChecks lists Argo CD ArgoCDHealthVersion's own health
// checks, sorted by kind.
var ArgoCDHealthChecks = sync.OnceValue(func() []NativeCheck {
	var out []NativeCheck
	for line := range strings.SplitSeq(argoCDHealthData, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		lang, kind, _ := strings.Cut(line, " ")
		out = append(out, NativeCheck{Kind: kind, Go: lang == "go"})
	}
	return out
})

// pinnedArgoCDCovers reports whether Argo CD ArgoCDHealthVersion has a
// check for kind, wildcards included.
func pinnedArgoCDCovers(kind string) bool {
	group, k := splitKind(kind)
	for _, c := range ArgoCDHealthChecks() {
		cg, ck := splitKind(c.Kind)
		if (ck == "*" || ck == k) && (cg == group || strings.HasPrefix(cg, "*.") && strings.HasSuffix(group, cg[1:])) {
			return true
		}
	}
	return false
}

// splitKind splits "group/Kind"; "Kind" alone is the core group's.
func splitKind(s string) (group, kind string) {
	if g, k, ok := strings.Cut(s, "/"); ok {
		return g, k
	}
	return "", s
}

// KnownCheck is a kind that has a health check without a health block:
// platc's built-in library's, Argo CD's own (at ArgoCDHealthVersion), or
// both, in which case platc's is the one in force (coverHealth).
type KnownCheck struct {
	Kind   string `json:"kind"`
	Platc  bool   `json:"platc"`
	ArgoCD bool   `json:"argocd"`
	// Go says Argo CD's check is written in Go rather than Lua.
	Go bool `json:"argocd_go,omitempty"`
}

// KnownHealthChecks lists every kind with a health check a platform need
// not write, sorted by kind: what platc kinds prints, and what
// health-rule-shadows-builtin warns about replacing.
func KnownHealthChecks() ([]KnownCheck, error) {
	lib, err := healthlib.Library()
	if err != nil {
		return nil, err
	}
	byKind := map[string]*KnownCheck{}
	for _, c := range ArgoCDHealthChecks() {
		byKind[c.Kind] = &KnownCheck{Kind: c.Kind, ArgoCD: true, Go: c.Go}
	}
	for _, h := range lib.Health {
		k := byKind[h.Kind]
		if k == nil {
			k = &KnownCheck{Kind: h.Kind, ArgoCD: pinnedArgoCDCovers(h.Kind)}
			byKind[h.Kind] = k
		}
		k.Platc = true
	}
	out := make([]KnownCheck, 0, len(byKind))
	for _, k := range byKind {
		out = append(out, *k)
	}
	slices.SortFunc(out, func(a, b KnownCheck) int { return strings.Compare(a.Kind, b.Kind) })
	return out, nil
}
