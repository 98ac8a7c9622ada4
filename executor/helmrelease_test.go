package executor

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	chart "helm.sh/helm/v4/pkg/chart/v2"
	rcommon "helm.sh/helm/v4/pkg/release/common"
	rspb "helm.sh/helm/v4/pkg/release/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/ansible"
	"github.com/platc/platc/emit/argocd"
	"github.com/platc/platc/executor/cluster"
)

// helmSecret is the Secret Helm's Secrets driver writes for rel, built
// the way helm.sh/helm/v4 pkg/storage/driver does (secrets.go
// newSecretsObject, util.go encodeRelease): Helm's own Release type as
// JSON, gzipped at best compression, base64-encoded into data "release";
// named sh.helm.release.v1.<name>.v<version>, labelled name, owner,
// status and version, of type helm.sh/release.v1.
func helmSecret(t testing.TB, rel *rspb.Release) *corev1.Secret {
	t.Helper()
	b, err := json.Marshal(rel)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name:      fmt.Sprintf("sh.helm.release.v1.%s.v%d", rel.Name, rel.Version),
			Namespace: rel.Namespace,
			Labels:    map[string]string{"name": rel.Name, "owner": "helm", "status": rel.Info.Status.String(), "version": strconv.Itoa(rel.Version)},
		},
		Type: "helm.sh/release.v1",
		Data: map[string][]byte{"release": []byte(base64.StdEncoding.EncodeToString(buf.Bytes()))},
	}
}

// helmRelease builds Helm's record of revision version of a release.
func helmRecord(name, ns, chartName, chartVersion string, version int, status rcommon.Status, config map[string]any) *rspb.Release {
	return &rspb.Release{
		Name: name, Namespace: ns, Version: version,
		Info:     &rspb.Info{Status: status, Description: "Install complete"},
		Chart:    &chart.Chart{Metadata: &chart.Metadata{APIVersion: "v2", Name: chartName, Version: chartVersion, AppVersion: "v9.9.9"}},
		Config:   config,
		Manifest: "---\n# Source: " + chartName + "/templates/x.yaml\napiVersion: v1\nkind: ConfigMap\n",
	}
}

// bootstrapReleases are the release Secrets the bootstrap of p leaves,
// each at revision 1, deployed, with the values the roles pass.
func bootstrapReleases(t testing.TB, p *ir.Program) []*corev1.Secret {
	t.Helper()
	rels, err := ansible.Releases(p)
	if err != nil {
		t.Fatal(err)
	}
	files, err := argocd.Values{}.Emit(p)
	if err != nil {
		t.Fatal(err)
	}
	var out []*corev1.Secret
	for _, r := range rels {
		v, err := wantValues(r, files)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, helmSecret(t, helmRecord(r.Name, r.Namespace, r.Chart, r.Version, 1, rcommon.StatusDeployed, v)))
	}
	return out
}

func TestDecodeHelmRelease(t *testing.T) {
	cfg := map[string]any{"configs": map[string]any{"cm": map[string]any{"accounts.platc": "apiKey"}}, "replicas": 2}
	s := helmSecret(t, helmRecord("argocd", "argocd", "argo-cd", "7.7.0", 3, rcommon.StatusSuperseded, cfg))
	got, err := decodeHelmRelease(s.Data["release"])
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "argocd" || got.Namespace != "argocd" || got.Version != 3 || got.Info.Status != "superseded" ||
		got.Chart.Metadata.Name != "argo-cd" || got.Chart.Metadata.Version != "7.7.0" || got.Chart.Metadata.AppVersion != "v9.9.9" {
		t.Errorf("decoded %+v", got)
	}
	if d := valueDiffs("", normalize(cfg), normalize(got.Config)); len(d) != 0 {
		t.Errorf("config changed on the way: %v", d)
	}

	// Releases stored before Helm compressed them are base64 JSON.
	plain, _ := json.Marshal(helmRecord("old", "ns", "c", "1.0.0", 1, rcommon.StatusDeployed, nil))
	if got, err := decodeHelmRelease([]byte(base64.StdEncoding.EncodeToString(plain))); err != nil || got.Name != "old" {
		t.Errorf("uncompressed record: %+v %v", got, err)
	}
	for _, bad := range []string{"%%%", base64.StdEncoding.EncodeToString([]byte{0x1f, 0x8b, 0x08, 0, 1}), base64.StdEncoding.EncodeToString([]byte("not json"))} {
		if _, err := decodeHelmRelease([]byte(bad)); err == nil {
			t.Errorf("decoded %q", bad)
		}
	}
}

// TestReadHelmRelease: the latest revision is the one compared, whatever
// its status; Secrets of other releases or types are not.
func TestReadHelmRelease(t *testing.T) {
	v1 := helmSecret(t, helmRecord("argocd", "argocd", "argo-cd", "7.6.0", 1, rcommon.StatusSuperseded, nil))
	v2 := helmSecret(t, helmRecord("argocd", "argocd", "argo-cd", "7.7.0", 2, rcommon.StatusFailed, nil))
	other := helmSecret(t, helmRecord("argocd-x", "argocd", "argo-cd", "1.0.0", 9, rcommon.StatusDeployed, nil))
	c := &cluster.Client{Kube: kubefake.NewSimpleClientset(v1, v2, other), CallTimeout: 5 * time.Second}
	got, err := readHelmRelease(context.Background(), c, "argocd", "argocd")
	if err != nil || got == nil || got.Version != 2 || got.Chart.Metadata.Version != "7.7.0" {
		t.Fatalf("read %+v, %v", got, err)
	}
	if d := compareRelease(ansible.Release{Name: "argocd", Chart: "argo-cd", Version: "7.7.0"}, nil, got); strings.Join(d, "; ") != "revision 2 is failed, not deployed" {
		t.Errorf("compare: %v", d)
	}
	if got, err := readHelmRelease(context.Background(), c, "argocd", "absent"); got != nil || err != nil {
		t.Errorf("absent release: %+v, %v", got, err)
	}
}

func TestCompareRelease(t *testing.T) {
	want := ansible.Release{Name: "argo-workflows", Chart: "argo-workflows", Version: "0.45.0"}
	values := map[string]any{"crds": map[string]any{"install": true, "keep": true}, "controller": map[string]any{"extraEnv": []any{map[string]any{"name": "A", "value": "2s"}}}}
	have := &helmRelease{Version: 4}
	have.Info.Status = "deployed"
	have.Chart.Metadata.Name, have.Chart.Metadata.Version = "argo-workflows", "0.44.0"
	have.Config = map[string]any{"crds": map[string]any{"install": true}, "controller": map[string]any{"extraEnv": []any{map[string]any{"name": "A", "value": "10s"}}}, "extra": 1.0}
	got := strings.Join(compareRelease(want, values, have), "; ")
	if w := "chart version 0.44.0, the platform says 0.45.0; values differ at controller.extraEnv, crds.keep (missing), extra (not in the platform)"; got != w {
		t.Errorf("got  %s\nwant %s", got, w)
	}
	// An empty values map is what Helm records for no values at all.
	have.Config, have.Chart.Metadata.Version = nil, "0.45.0"
	if d := compareRelease(want, map[string]any{}, have); len(d) != 0 {
		t.Errorf("empty values differ: %v", d)
	}
}

// TestForeignArgoCDRelease: an argo-cd release named like platc's but
// installed by someone else (no platc account in its values) is not
// platc's to reconcile, so nothing is compared or run against it.
func TestForeignArgoCDRelease(t *testing.T) {
	p := compileEnv(t, driftDay0, "staging")
	objs := bootstrapKube(t, p, false)
	for _, sec := range bootstrapReleases(t, p) {
		if sec.Labels["name"] != "argocd" {
			objs = append(objs, sec)
		}
	}
	objs = append(objs, helmSecret(t, helmRecord("argocd", "argocd", "argo-cd", "7.7.0", 1, rcommon.StatusDeployed,
		map[string]any{"configs": map[string]any{"cm": map[string]any{"url": "https://argocd.example.com"}}})))
	_, dc := bootstrapped(t, driftDay0)
	res := bootstrapDrift(context.Background(), &cluster.Client{Kube: kubefake.NewSimpleClientset(objs...), Dynamic: dc, CallTimeout: 5 * time.Second}, &built{p: p}, p.Apps)
	if res.Owned || res.OwnedUnknown {
		t.Errorf("owned %v, unknown %v: a foreign argo-cd release counted as platc's", res.Owned, res.OwnedUnknown)
	}
	for _, d := range res.Drift {
		if d.What == DriftRelease {
			t.Errorf("a foreign release compared: %+v", d)
		}
	}
	// platc's own release is recognised by its account.
	kc2, dc2 := bootstrapped(t, driftDay0)
	if res := bootstrapDrift(context.Background(), &cluster.Client{Kube: kc2, Dynamic: dc2, CallTimeout: 5 * time.Second}, &built{p: p}, p.Apps); !res.Owned {
		t.Error("platc's own argo-cd release not recognised")
	}
}
