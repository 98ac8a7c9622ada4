package argocd

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit"
)

// HealthFile is where Health writes, under generated/<env>/.
const HealthFile = "argocd/health.yaml"

// Health emits argocd/health.yaml: the argocd-cm entries of every health
// rule platc provides, as a ConfigMap to merge into an existing Argo CD
// (kubectl apply --server-side). The Helm install gets the same entries
// through values.yaml.
type Health struct{}

// Name implements emit.Emitter.
func (Health) Name() string { return "argocd-health" }

// Emit implements emit.Emitter.
func (Health) Emit(p *ir.Program) ([]emit.File, error) {
	data, err := emit.YAML(HealthConfigMap(p))
	if err != nil {
		return nil, err
	}
	return []emit.File{{Path: HealthFile, Data: data}}, nil
}

// HealthConfigMap is argocd-cm holding only platc's health
// customizations. The part-of label is how Argo CD finds its settings.
func HealthConfigMap(p *ir.Program) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{
			Name:      "argocd-cm",
			Namespace: p.Platform.ArgoCD.Namespace,
			Labels: map[string]string{
				"app.kubernetes.io/name":    "argocd-cm",
				"app.kubernetes.io/part-of": "argocd",
			},
		},
		Data: healthData(p),
	}
}

// healthData are the argocd-cm keys of the rules platc provides (user and
// built-in; Argo CD's own checks need none, so kinds it covers emit
// nothing): resource.customizations.health.<group>_<Kind> holds the Lua
// (core kinds: just <Kind>), and resource.customizations.useOpenLibs.<key>
// is "true" when the script needs Lua's standard libraries. It is a
// quoted string: the API server rejects a boolean in a ConfigMap.
func healthData(p *ir.Program) map[string]string {
	m := map[string]string{}
	for _, h := range p.Health {
		if h.Origin == ir.HealthArgoCD || h.Lua == "" {
			continue
		}
		key := h.Kind
		if h.Group != "" {
			key = h.Group + "_" + h.Kind
		}
		m["resource.customizations.health."+key] = h.Lua
		if h.UseOpenLibs {
			m["resource.customizations.useOpenLibs."+key] = "true"
		}
	}
	return m
}
