package gitops_test

import (
	"maps"
	"testing"

	"github.com/platc/platc/emit/internal/emittest"
	"github.com/platc/platc/emit/internal/gitops"
)

// An Application records what deleting it needs once its app has left
// the HCL: its dependencies by Application name (not app name), sorted
// whatever order depends_on lists them in, and its teardown settings;
// and it carries the labels AppSelector selects on. The root and platc's
// own Applications do not, so they are never taken for removed apps.
func TestApplicationRecord(t *testing.T) {
	p := emittest.Compile(t, "record", []byte(`
platform "shop" {
  git {
    repo_url = "https://git.example.com/shop.git"
  }
}
environment "prod" {}
app "zeta" {
  namespace = "z"
  source { path = "z" }
}
app "alpha" {
  namespace   = "a"
  application = "alpha-app"
  source { path = "a" }
}
app "web" {
  namespace  = "w"
  depends_on = [app.zeta, app.alpha, app.zeta]
  source { path = "w" }
  teardown {
    volumes = "delete"
    timeout = "1h30m"
  }
}
`), "prod")
	web := gitops.App(p, p.App("web"))
	want := map[string]string{
		gitops.AnnotationDependsOn: "alpha-app,zeta",
		gitops.AnnotationVolumes:   "delete",
		gitops.AnnotationTimeout:   "1h30m",
	}
	if !maps.Equal(web.Metadata.Annotations, want) {
		t.Errorf("annotations of web = %v, want %v", web.Metadata.Annotations, want)
	}
	wantLabels := map[string]string{
		gitops.LabelManagedBy: "platc", gitops.LabelPartOf: "shop",
		gitops.LabelEnvironment: "prod", gitops.LabelApp: "web",
	}
	if !maps.Equal(web.Metadata.Labels, wantLabels) {
		t.Errorf("labels of web = %v, want %v", web.Metadata.Labels, wantLabels)
	}
	if sel := gitops.AppSelector(p); sel != "app.kubernetes.io/managed-by=platc,app.kubernetes.io/part-of=shop,platc.io/environment=prod,platc.io/app" {
		t.Errorf("AppSelector = %q", sel)
	}
	if got := gitops.App(p, p.App("zeta")).Metadata.Annotations[gitops.AnnotationDependsOn]; got != "" {
		t.Errorf("zeta has no dependencies, but records %q", got)
	}
	for _, own := range []*gitops.Application{gitops.Root(p), gitops.Workflows(p)} {
		if _, ok := own.Metadata.Labels[gitops.LabelApp]; ok {
			t.Errorf("%s carries %s, so it would be taken for a removed app", own.Metadata.Name, gitops.LabelApp)
		}
	}
}
