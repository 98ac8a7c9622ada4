package rules

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/platc/platc/lint/manifest"
)

// Hook annotations Argo CD reads (gitops-engine pkg/sync/hook).
const (
	argoHookKey = "argocd.argoproj.io/hook"
	helmHookKey = "helm.sh/hook"
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

// hookInfo is what an object's hook annotation says.
type hookInfo struct {
	ann    manifest.Annotation
	raw    string   // the annotation's value
	phases []string // the Argo CD phases it runs in
	helm   bool     // it comes from helm.sh/hook
}

// hookOf reads an object's hook annotation the way Argo CD does: an
// argocd.argoproj.io/hook annotation wins over helm.sh/hook, values are
// comma-separated, and an object marked only Skip is no hook.
func hookOf(o *manifest.Object) (hookInfo, bool) {
	if ann, ok := o.Annotation(argoHookKey); ok {
		h := hookInfo{ann: ann, raw: ann.Value.Value}
		skip := false
		for _, v := range csv(ann.Value.Value) {
			switch {
			case v == "Skip":
				skip = true
			case slices.Contains(argoPhases, v) && !slices.Contains(h.phases, v):
				h.phases = append(h.phases, v)
			}
		}
		if skip && len(csv(ann.Value.Value)) == 1 {
			return hookInfo{}, false
		}
		return h, true
	}
	if ann, ok := o.Annotation(helmHookKey); ok {
		h := hookInfo{ann: ann, raw: ann.Value.Value, helm: true}
		for _, v := range csv(ann.Value.Value) {
			if ph, ok := helmPhases[v]; ok && !slices.Contains(h.phases, ph) {
				h.phases = append(h.phases, ph)
			}
		}
		return h, true
	}
	return hookInfo{}, false
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

// describe names a hook annotation for messages: "PreSync hook", or
// `helm hook "pre-install" (PreSync)`.
func (h hookInfo) describe() string {
	if !h.helm {
		return h.raw + " hook"
	}
	if len(h.phases) == 0 {
		return "helm hook " + quote(h.raw)
	}
	return "helm hook " + quote(h.raw) + " (" + strings.Join(h.phases, ",") + ")"
}

// objectName names an object for messages: Job "harbor-migrate".
func objectName(o *manifest.Object) string {
	name := o.Name
	if name == "" {
		name = Str(o, "metadata", "generateName") + "*"
	}
	return o.Kind + " " + quote(name)
}

// Str reads a scalar field of an object.
func Str(o *manifest.Object, path ...string) string {
	return manifest.Str(manifest.Lookup(o.Node, path...))
}

// hookPath resolves a declared hook's manifest path the way the compiler
// documents it: relative to the file that declares the hook.
func hookPath(dir, manifestPath string) string {
	if filepath.IsAbs(manifestPath) {
		return manifestPath
	}
	return filepath.Join(dir, manifestPath)
}

// sameFile reports whether two paths name the same file, however they
// were written.
func sameFile(a, b string) bool {
	ia, err := os.Stat(a)
	if err != nil {
		return false
	}
	ib, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(ia, ib)
}
