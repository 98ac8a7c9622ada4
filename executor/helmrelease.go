package executor

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/platc/platc/emit"
	"github.com/platc/platc/emit/ansible"
	"github.com/platc/platc/executor/cluster"
)

// helmRelease is the part of a Helm release record that platc compares.
// Helm 3 and 4 store each revision of a release in a Secret of type
// helm.sh/release.v1 named sh.helm.release.v1.<name>.v<revision>,
// labelled owner=helm, name, status and version; its data "release" is
// the JSON of pkg/release/v1's Release, gzipped and base64-encoded (on
// top of the base64 of every Secret's data): helm.sh/helm
// pkg/storage/driver, secrets.go newSecretsObject and util.go
// encodeRelease. Reading those Secrets needs neither the helm binary
// nor Helm's storage package, whose SQL driver platc would pull in.
type helmRelease struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	Version   int    `json:"version"`
	Info      struct {
		Status string `json:"status"`
	} `json:"info"`
	Chart struct {
		Metadata struct {
			Name       string `json:"name"`
			Version    string `json:"version"`
			AppVersion string `json:"appVersion"`
		} `json:"metadata"`
	} `json:"chart"`
	// Config are the values the release was installed with (-f files and
	// --set merged), not the chart's defaults.
	Config map[string]any `json:"config"`
}

// maxRelease bounds a decompressed release record: the chart's
// templates, manifest and values of a large chart stay far below it,
// and a Secret that inflates beyond it is not Helm's.
const maxRelease = 64 << 20

var gzipMagic = []byte{0x1f, 0x8b, 0x08}

// decodeHelmRelease decodes a release Secret's data "release" as Helm's
// decodeRelease does: base64, then gunzip when the gzip magic is there
// (releases stored before Helm compressed them are plain JSON), then JSON.
func decodeHelmRelease(data []byte) (*helmRelease, error) {
	b, err := base64.StdEncoding.DecodeString(string(data))
	if err != nil {
		return nil, fmt.Errorf("not base64: %w", err)
	}
	if bytes.HasPrefix(b, gzipMagic) {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("not gzip: %w", err)
		}
		b, err = io.ReadAll(io.LimitReader(zr, maxRelease+1))
		if err != nil {
			return nil, fmt.Errorf("not gzip: %w", err)
		}
		if len(b) > maxRelease {
			return nil, fmt.Errorf("larger than %d MiB once decompressed", maxRelease>>20)
		}
	}
	var rel helmRelease
	if err := json.Unmarshal(b, &rel); err != nil {
		return nil, fmt.Errorf("not a release record: %w", err)
	}
	return &rel, nil
}

// errReleaseForbidden: the kubeconfig's user may not list the Secrets
// Helm keeps a release in.
var errReleaseForbidden = errors.New("may not list Secrets")

// readHelmRelease reads the latest revision of release name in ns (what
// helm status shows); nil when the release does not exist.
func readHelmRelease(ctx context.Context, c *cluster.Client, ns, name string) (*helmRelease, error) {
	cctx, cancel := c.Call(ctx)
	list, err := c.Kube.CoreV1().Secrets(ns).List(cctx, metav1.ListOptions{LabelSelector: "owner=helm,name=" + name})
	cancel()
	if err != nil {
		if apierrors.IsForbidden(err) {
			return nil, errReleaseForbidden
		}
		return nil, fmt.Errorf("listing the Secrets of Helm release %s/%s: %s", ns, name, c.Explain(err))
	}
	latest, key := -1, ""
	var data []byte
	for _, s := range list.Items {
		if s.Type != "helm.sh/release.v1" {
			continue
		}
		v, err := strconv.Atoi(s.Labels["version"])
		if err != nil {
			continue
		}
		if v > latest {
			latest, key, data = v, s.Name, s.Data["release"]
		}
	}
	if latest < 0 {
		return nil, nil
	}
	rel, err := decodeHelmRelease(data)
	if err != nil {
		return nil, fmt.Errorf("Secret %s/%s: %v", ns, key, err)
	}
	return rel, nil
}

// wantValues are the values the bootstrap installs rel with, as Helm
// records them: the role's values, or the values file platc generates,
// read the way Helm reads a -f file (YAML to JSON).
func wantValues(rel ansible.Release, files []emit.File) (map[string]any, error) {
	if rel.ValuesFile == "" {
		return rel.Values, nil
	}
	for _, f := range files {
		if f.Path != rel.ValuesFile {
			continue
		}
		j, err := yaml.YAMLToJSON(f.Data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w (this is a platc bug)", rel.ValuesFile, err)
		}
		var m map[string]any
		if err := json.Unmarshal(j, &m); err != nil {
			return nil, fmt.Errorf("%s: %w (this is a platc bug)", rel.ValuesFile, err)
		}
		return m, nil
	}
	return nil, fmt.Errorf("platc generates no %s for release %s (this is a platc bug)", rel.ValuesFile, rel.Name)
}

// compareRelease lists how have differs from what the bootstrap installs
// (want, with values): chart, chart version, status, values.
func compareRelease(want ansible.Release, values map[string]any, have *helmRelease) []string {
	var diffs []string
	md := have.Chart.Metadata
	if md.Name != want.Chart {
		diffs = append(diffs, fmt.Sprintf("chart %s, the platform says %s", md.Name, want.Chart))
	}
	if md.Version != want.Version {
		diffs = append(diffs, fmt.Sprintf("chart version %s, the platform says %s", md.Version, want.Version))
	}
	if st := strings.ToLower(have.Info.Status); st != "deployed" {
		diffs = append(diffs, fmt.Sprintf("revision %d is %s, not deployed", have.Version, orText(st, "of no status")))
	}
	if paths := valueDiffs("", normalize(values), normalize(have.Config)); len(paths) > 0 {
		const most = 5
		more := ""
		if len(paths) > most {
			more = fmt.Sprintf(" and %d more", len(paths)-most)
			paths = paths[:most]
		}
		diffs = append(diffs, "values differ at "+strings.Join(paths, ", ")+more)
	}
	return diffs
}

// normalize gives v JSON's types, so that values built in Go and values
// decoded from Helm's record compare equal when Helm would render them
// the same.
func normalize(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return v
	}
	return out
}

// valueDiffs lists the paths (a.b.c, list[2]) where have differs from
// want, saying which side lacks a key. An absent map and an empty one
// are the same to Helm.
func valueDiffs(at string, want, have any) []string {
	wm, wok := want.(map[string]any)
	hm, hok := have.(map[string]any)
	if (wok || want == nil) && (hok || have == nil) && (wok || hok) {
		var out []string
		keys := slices.Sorted(maps.Keys(wm))
		for k := range hm {
			if _, ok := wm[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range slices.Compact(keys) {
			p := k
			if at != "" {
				p = at + "." + k
			}
			w, inW := wm[k]
			h, inH := hm[k]
			switch {
			case !inH:
				out = append(out, p+" (missing)")
			case !inW:
				out = append(out, p+" (not in the platform)")
			default:
				out = append(out, valueDiffs(p, w, h)...)
			}
		}
		return out
	}
	if reflect.DeepEqual(want, have) {
		return nil
	}
	return []string{orText(at, "(all values)")}
}
