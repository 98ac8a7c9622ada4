package detect

import (
	"slices"
	"strconv"
	"strings"

	"github.com/platc/platc/manifest"
)

// Hook annotations Argo CD reads (gitops-engine pkg/sync/hook).
const (
	ArgoHookKey = "argocd.argoproj.io/hook"
	HelmHookKey = "helm.sh/hook"
)

var argoPhases = []string{"PreSync", "Sync", "PostSync", "SyncFail", "PreDelete", "PostDelete"}

// helmPhases maps the Helm hooks Argo CD honours to its own phases; Argo
// CD ignores the others (test, pre-delete, pre-rollback, ...).
var helmPhases = map[string]string{
	"pre-install":  "PreSync",
	"pre-upgrade":  "PreSync",
	"post-install": "PostSync",
	"post-upgrade": "PostSync",
}

// Hook is what an object's hook annotation says.
type Hook struct {
	Ann manifest.Annotation
	// Raw is the annotation's value as written.
	Raw string
	// Phases are the Argo CD phases the hook runs in.
	Phases []string
	// Helm is set when the annotation is helm.sh/hook.
	Helm bool
}

// HookOf reads an object's hook annotation the way Argo CD does: an
// argocd.argoproj.io/hook annotation wins over helm.sh/hook, values are
// comma-separated, and an object marked only Skip is no hook.
func HookOf(o *manifest.Object) (Hook, bool) {
	if ann, ok := o.Annotation(ArgoHookKey); ok {
		h := Hook{Ann: ann, Raw: ann.Value.Value}
		skip := false
		for _, v := range csv(ann.Value.Value) {
			switch {
			case v == "Skip":
				skip = true
			case slices.Contains(argoPhases, v) && !slices.Contains(h.Phases, v):
				h.Phases = append(h.Phases, v)
			}
		}
		if skip && len(csv(ann.Value.Value)) == 1 {
			return Hook{}, false
		}
		return h, true
	}
	if ann, ok := o.Annotation(HelmHookKey); ok {
		h := Hook{Ann: ann, Raw: ann.Value.Value, Helm: true}
		for _, v := range csv(ann.Value.Value) {
			if ph, ok := helmPhases[v]; ok && !slices.Contains(h.Phases, ph) {
				h.Phases = append(h.Phases, ph)
			}
		}
		return h, true
	}
	return Hook{}, false
}

func csv(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// Describe names a hook annotation for messages: "PreSync hook", or
// `helm hook "pre-install" (PreSync)`.
func (h Hook) Describe() string {
	if !h.Helm {
		return h.Raw + " hook"
	}
	if len(h.Phases) == 0 {
		return "helm hook " + strconv.Quote(h.Raw)
	}
	return "helm hook " + strconv.Quote(h.Raw) + " (" + strings.Join(h.Phases, ",") + ")"
}

// ObjectName names an object for messages: Job "harbor-migrate", or
// Job "harbor-migrate-*" for a generateName.
func ObjectName(o *manifest.Object) string {
	name := o.Name
	if name == "" {
		name = manifest.Str(manifest.Lookup(o.Node, "metadata", "generateName")) + "*"
	}
	return o.Kind + " " + strconv.Quote(name)
}
