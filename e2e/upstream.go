package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"sigs.k8s.io/yaml"
)

// The upstream charts. With PlatformOptions.Charts (make e2e-run
// CHARTS=<dir>) the environment serves the real argo-cd, argo-workflows,
// argo-events, sealed-secrets and argocd-apps archives of <dir> in place of
// the stand-ins (charts.go), under the same repository URLs, byte for
// byte as given: nothing of them is rewritten. The process kubelet
// (kubelet.go) recognises their pods by the upstream labels, as it does
// the stand-ins' pods, and every other pod of theirs (Dex, notifications,
// the ApplicationSet controller, the Argo Server, the Argo Events and
// Sealed Secrets controllers) runs under kwok with no process.
// scripts/e2e-charts.sh builds <dir> from local checkouts of the charts'
// repositories.

// upstreamChart is one archive of the CHARTS directory.
type upstreamChart struct {
	prefix, name, repoURL, version, appVersion string
	archive                                    []byte
}

// upstreamCharts reads, for every chart the generated group_vars name,
// <dir>/<chart>-<version>.tgz, and checks that it is that chart at that
// version.
func upstreamCharts(groupVars []byte, dir string) ([]upstreamChart, error) {
	var v bootstrapVars
	if err := yaml.Unmarshal(unsafeTags(groupVars), &v); err != nil {
		return nil, fmt.Errorf("group_vars: %w", err)
	}
	var out []upstreamChart
	for _, prefix := range []string{"argocd", "argo_workflows", "argo_events", "sealed_secrets", "gitops_handoff"} {
		c := upstreamChart{prefix: prefix, name: v.str(prefix + "_chart"), repoURL: v.str(prefix + "_chart_repo_url"), version: v.str(prefix + "_chart_version")}
		if c.name == "" || c.repoURL == "" || c.version == "" {
			return nil, fmt.Errorf("group_vars: %s_chart, %s_chart_repo_url and %s_chart_version must be set (a chart from a local path is not served here)", prefix, prefix, prefix)
		}
		file := filepath.Join(dir, c.name+"-"+c.version+".tgz")
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("CHARTS: the bootstrap installs %s %s: %w (scripts/e2e-charts.sh builds the directory from the charts' repositories)", c.name, c.version, err)
		}
		meta, err := archiveChartYAML(b)
		if err != nil {
			return nil, fmt.Errorf("CHARTS: %s: %w", file, err)
		}
		if meta.Name != c.name || meta.Version != c.version {
			return nil, fmt.Errorf("CHARTS: %s holds chart %s %s, not %s %s", file, meta.Name, meta.Version, c.name, c.version)
		}
		c.appVersion, c.archive = meta.AppVersion, b
		out = append(out, c)
	}
	return out, nil
}

// archiveChartYAML reads the Chart.yaml of a chart archive with Helm's
// loader (which checks the whole archive as helm pull would).
func archiveChartYAML(b []byte) (*chart.Metadata, error) {
	c, err := loader.LoadArchive(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("not a chart archive: %w", err)
	}
	return c.Metadata, nil
}

// publishUpstream serves the upstream charts where the roles fetch them.
func (pl *Platform) publishUpstream(groupVars []byte) error {
	e := pl.Env
	charts, err := upstreamCharts(groupVars, pl.Opts.Charts)
	if err != nil {
		return err
	}
	for _, c := range charts {
		if _, ok := e.src.chartFilesAt(c.repoURL, c.name, c.version); ok {
			// An app of the platform deploys this very chart (the
			// example's sealed-secrets): it gets the real one too, so
			// its Application renders what a cluster would.
			e.logf("the upstream chart %s %s replaces the simulated content of the app that deploys it", c.name, c.version)
		}
		if err := e.src.publishChartArchive(c.repoURL, c.name, c.version, c.appVersion, c.archive); err != nil {
			return fmt.Errorf("upstream chart %s: %w", c.name, err)
		}
		e.logf("serving the upstream chart %s %s (appVersion %s) at %s", c.name, c.version, c.appVersion, c.repoURL)
		// The chart's appVersion may be older than the release platc
		// validates with: the generated values set images.tag, and the
		// argo-workflows role fails unless the controller runs it.
	}
	return nil
}
