package executor

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// staleness: Synced describes the spec only when Argo CD compared the
// source the spec has now, its values included (a day-2 values change
// keeps the chart, repository and version).
func TestStaleness(t *testing.T) {
	source := func(host string) map[string]any {
		return map[string]any{
			"repoURL": "https://charts.shop.test/stable", "chart": "api", "targetRevision": "2.1.0",
			"helm": map[string]any{"releaseName": "api", "valuesObject": map[string]any{"host": host}},
		}
	}
	app := func(spec, compared map[string]any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"source": spec}}}
		if compared != nil {
			u.Object["status"] = map[string]any{"sync": map[string]any{"comparedTo": map[string]any{"source": compared}}}
		}
		return u
	}
	for _, c := range []struct {
		name          string
		spec, compare map[string]any
		want          string
	}{
		{"current", source("api.shop.test"), source("api.shop.test"), ""},
		{"values changed", source("api-v2.shop.test"), source("api.shop.test"), "helm options"},
		{"never compared", source("api.shop.test"), nil, "not compared"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := staleness(app(c.spec, c.compare))
			if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
				t.Errorf("staleness = %q, want %q", got, c.want)
			}
		})
	}
	moved := source("api.shop.test")
	moved["targetRevision"] = "2.2.0"
	if got := staleness(app(moved, source("api.shop.test"))); !strings.Contains(got, "targetRevision") {
		t.Errorf("a new chart version reads as current: %q", got)
	}
}
