package detect

import (
	"strings"

	"github.com/platc/platc/manifest"
)

// SyncWaveKey is the annotation Argo CD orders a sync by.
const SyncWaveKey = "argocd.argoproj.io/sync-wave"

// IsApplication reports whether o is an Argo CD Application.
func IsApplication(o *manifest.Object) bool {
	return o.Kind == "Application" && strings.HasPrefix(o.APIVersion, "argoproj.io/")
}

// IsApplicationSet reports whether o is an Argo CD ApplicationSet.
func IsApplicationSet(o *manifest.Object) bool {
	return o.Kind == "ApplicationSet" && strings.HasPrefix(o.APIVersion, "argoproj.io/")
}

// SyncWave returns the sync-wave annotation of an Application, or of the
// template of an ApplicationSet (every Application it generates carries
// it). Waves on other objects order resources inside one app, which is
// what waves are for, so they are not returned.
func SyncWave(o *manifest.Object) (manifest.Annotation, bool) {
	switch {
	case IsApplication(o):
		return o.Annotation(SyncWaveKey)
	case IsApplicationSet(o):
		return o.Annotation(SyncWaveKey, "spec", "template")
	}
	return manifest.Annotation{}, false
}
