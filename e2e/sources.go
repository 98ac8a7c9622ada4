package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"net/http/cgi"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/Masterminds/semver/v3"
	"helm.sh/helm/v4/pkg/chart/loader/archive"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	"sigs.k8s.io/yaml"
)

// sources serves, on the simulated network, what the platform's
// Applications fetch: Git repositories over Git's smart HTTP protocol
// (Debian's git-http-backend) and Helm chart repositories (index.yaml and
// chart archives), each under the very URL the Application names.
type sources struct {
	root string // one directory per host
	mu   sync.Mutex
	// repos maps a repository URL (scheme://host/path, no trailing
	// slash) to its bare repository on disk.
	repos map[string]*gitRepo
	// charts maps a chart repository URL to its charts.
	charts map[string]map[string][]chartVersion
	hosts  map[string]bool
	// auth are the private repositories: a request for one without its
	// basic-auth username and password is answered 401, as a real Git
	// or chart server answers it. admitted and refused count, per
	// repository URL, the requests that were let through or not.
	auth     []repoAuth
	admitted map[string]int
	refused  map[string]int
}

// repoAuth is one private repository, or with prefix every repository
// whose URL starts with url, and its login.
type repoAuth struct {
	url        string
	prefix     bool
	user, pass string
}

type gitRepo struct {
	url  string
	host string
	rel  string // the URL's path, e.g. "platform/platform.git"
	dir  string // bare repository
}

type chartVersion struct {
	name, version, appVersion string
	files                     map[string][]byte
	archive                   []byte
	// meta is the archive's Chart.yaml as Helm reads it, for the index.
	meta *chart.Metadata
}

func newSources(root string) *sources {
	return &sources{root: root, repos: map[string]*gitRepo{}, charts: map[string]map[string][]chartVersion{}, hosts: map[string]bool{},
		admitted: map[string]int{}, refused: map[string]int{}}
}

// normalURL trims what Git and Helm ignore at the end of a URL.
func normalURL(u string) string { return strings.TrimRight(u, "/") }

// gitBackend is Debian's git-http-backend.
func gitBackend() (string, error) {
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		return "", fmt.Errorf("git --exec-path: %w (install Debian's git)", err)
	}
	p := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("git-http-backend: %w", err)
	}
	return p, nil
}

// publishGit commits the tree files (path → content) to the repository
// at repoURL as a new commit on branch main, and points each of refs
// (branches or tags, as Argo CD's targetRevision names them) at it. It
// returns the commit SHA.
func (s *sources) publishGit(ctx context.Context, repoURL string, files map[string][]byte, refs []string, message string) (string, error) {
	u, err := url.Parse(normalURL(repoURL))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", fmt.Errorf("repository %q: only http(s) Git URLs can be served here", repoURL)
	}
	s.mu.Lock()
	r, ok := s.repos[normalURL(repoURL)]
	if !ok {
		rel := strings.TrimPrefix(u.Path, "/")
		r = &gitRepo{url: normalURL(repoURL), host: u.Hostname(), rel: rel, dir: filepath.Join(s.root, "git", u.Hostname(), filepath.FromSlash(rel))}
		s.repos[r.url] = r
		s.hosts[u.Hostname()] = true
	}
	s.mu.Unlock()
	if _, err := os.Stat(filepath.Join(r.dir, "HEAD")); err != nil {
		if err := os.MkdirAll(r.dir, 0o755); err != nil {
			return "", err
		}
		if err := git(ctx, r.dir, "init", "--quiet", "--bare", "--initial-branch=main"); err != nil {
			return "", err
		}
	}
	// Build the commit in a scratch work tree.
	work, err := os.MkdirTemp(s.root, "worktree-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	if err := writeTree(work, files); err != nil {
		return "", err
	}
	env := []string{"GIT_DIR=" + r.dir, "GIT_WORK_TREE=" + work,
		"GIT_AUTHOR_NAME=platc e2e", "GIT_AUTHOR_EMAIL=e2e@platc.invalid",
		"GIT_COMMITTER_NAME=platc e2e", "GIT_COMMITTER_EMAIL=e2e@platc.invalid"}
	steps := [][]string{
		{"read-tree", "--empty"},
		{"add", "--all", "--force", "."},
	}
	for _, st := range steps {
		if err := gitEnv(ctx, work, env, st...); err != nil {
			return "", err
		}
	}
	tree, err := gitOut(ctx, work, env, "write-tree")
	if err != nil {
		return "", err
	}
	args := []string{"commit-tree", tree, "-m", message}
	if parent, err := gitOut(ctx, work, env, "rev-parse", "--verify", "--quiet", "refs/heads/main"); err == nil && parent != "" {
		args = append(args, "-p", parent)
	}
	commit, err := gitOut(ctx, work, env, args...)
	if err != nil {
		return "", err
	}
	if err := gitEnv(ctx, work, env, "update-ref", "refs/heads/main", commit); err != nil {
		return "", err
	}
	for _, ref := range refs {
		if ref == "" || ref == "HEAD" || ref == "main" {
			continue
		}
		if isSHA(ref) {
			return "", fmt.Errorf("repository %s: revision %s is a commit SHA, which cannot be reproduced here; pin a tag or branch", repoURL, ref)
		}
		// A tag and a branch of the same name would be ambiguous; Argo CD
		// resolves either, so a tag it is, moved to the new commit.
		if err := gitEnv(ctx, work, env, "tag", "--force", strings.TrimPrefix(ref, "refs/tags/"), commit); err != nil {
			return "", err
		}
	}
	return commit, nil
}

// writeTree writes files (slash-separated path → content) under dir.
func writeTree(dir string, files map[string][]byte) error {
	for _, name := range slices.Sorted(maps.Keys(files)) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

func isSHA(s string) bool {
	if len(s) != 40 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

func git(ctx context.Context, dir string, args ...string) error {
	return gitEnv(ctx, dir, nil, args...)
}

func gitEnv(ctx context.Context, dir string, env []string, args ...string) error {
	_, err := gitOut(ctx, dir, env, args...)
	return err
}

func gitOut(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1"}, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// publishChart adds a chart archive to the chart repository at repoURL.
func (s *sources) publishChart(repoURL, name, version string, templates map[string][]byte) error {
	u, err := url.Parse(normalURL(repoURL))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("chart repository %q: only http(s) repositories can be served here", repoURL)
	}
	return s.publishChartFiles(repoURL, name, version, version, chartFiles(name, version, templates))
}

// publishChartFiles adds a chart, given as its files (Chart.yaml,
// values.yaml, templates/, crds/), to the chart repository at repoURL.
func (s *sources) publishChartFiles(repoURL, name, version, appVersion string, files map[string][]byte) error {
	u, err := url.Parse(normalURL(repoURL))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("chart repository %q: only http(s) repositories can be served here", repoURL)
	}
	archive, err := chartArchive(name, files)
	if err != nil {
		return err
	}
	return s.addChart(u.Hostname(), repoURL, chartVersion{name: name, version: version, appVersion: appVersion, files: files, archive: archive})
}

// publishChartArchive adds a chart archive as it is (an upstream chart,
// packaged by Helm) to the chart repository at repoURL.
func (s *sources) publishChartArchive(repoURL, name, version, appVersion string, archive []byte) error {
	u, err := url.Parse(normalURL(repoURL))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return fmt.Errorf("chart repository %q: only http(s) repositories can be served here", repoURL)
	}
	return s.addChart(u.Hostname(), repoURL, chartVersion{name: name, version: version, appVersion: appVersion, archive: archive})
}

func (s *sources) addChart(host, repoURL string, c chartVersion) error {
	// Helm's own loader reads the archive back, as helm pull would: an
	// archive it refuses is refused here, not by the repo-server later.
	ch, err := loader.LoadArchive(bytes.NewReader(c.archive))
	if err != nil {
		return fmt.Errorf("chart %s %s: %w", c.name, c.version, err)
	}
	if ch.Metadata.Name != c.name || ch.Metadata.Version != c.version {
		return fmt.Errorf("chart %s %s: the archive holds %s %s", c.name, c.version, ch.Metadata.Name, ch.Metadata.Version)
	}
	c.meta = ch.Metadata
	name, version := c.name, c.version
	s.mu.Lock()
	defer s.mu.Unlock()
	key := normalURL(repoURL)
	if s.charts[key] == nil {
		s.charts[key] = map[string][]chartVersion{}
	}
	vs := s.charts[key][name]
	vs = slices.DeleteFunc(vs, func(c chartVersion) bool { return c.version == version })
	s.charts[key][name] = append(vs, c)
	s.hosts[host] = true
	return nil
}

// chartFilesAt returns the files of a chart already published, if any.
func (s *sources) chartFilesAt(repoURL, name, version string) (map[string][]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range s.charts[normalURL(repoURL)][name] {
		if v.version == version {
			return v.files, true
		}
	}
	return nil, false
}

// chartFiles is the Chart.yaml and templates of a chart, as Helm lays
// them out under the chart's directory.
func chartFiles(name, version string, templates map[string][]byte) map[string][]byte {
	meta, _ := yaml.Marshal(map[string]any{
		"apiVersion":  "v2",
		"name":        name,
		"version":     version,
		"appVersion":  version,
		"description": "Simulated by platc's e2e environment: a Deployment, one instance of each custom resource kind the app declares, and a ConfigMap of its values",
		"type":        "application",
	})
	files := map[string][]byte{"Chart.yaml": meta, "templates/e2e-values.yaml": valuesTemplate}
	for n, b := range templates {
		files["templates/"+n] = b
	}
	return files
}

// valuesTemplate renders the values Helm was given into a ConfigMap, as
// a real chart renders them into its manifests: a values change then
// changes what Argo CD compares, and so needs a sync, as it would on a
// cluster. (The simulated Deployment and custom resources use no values.)
var valuesTemplate = []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-values
data:
  values.json: {{ toJson .Values | quote }}
`)

// chartEpoch is every time a served chart carries: its files' times in
// the archive, the index's generated and created. Fixed, so that an
// archive (and so its digest) and the index are the same on every run.
var chartEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// chartArchive packages a chart's files (Chart.yaml, values.yaml,
// templates/, crds/) as helm package does: Helm's loader reads them and
// its chartutil.Save writes the archive.
func chartArchive(name string, files map[string][]byte) ([]byte, error) {
	names := slices.Sorted(maps.Keys(files))
	buffered := make([]*archive.BufferedFile, 0, len(names))
	for _, n := range names {
		buffered = append(buffered, &archive.BufferedFile{Name: n, ModTime: chartEpoch, Data: files[n]})
	}
	c, err := loader.LoadFiles(buffered)
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", name, err)
	}
	if c.Name() != name {
		return nil, fmt.Errorf("chart %s: its Chart.yaml names %s", name, c.Name())
	}
	// Save writes only to a directory.
	dir, err := os.MkdirTemp("", "platc-e2e-chart-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	file, err := chartutil.Save(c, dir)
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", name, err)
	}
	return os.ReadFile(file)
}

// chartIndex is the repository's index.yaml, in the form helm repo
// index writes (TestChartIndexAsHelmWrites compares the two): each
// version's Chart.yaml as Helm's loader read it, its URL and digest,
// newest version first. (Helm's repo package would write it, but it
// links Helm's plugin runtime, WebAssembly included, into the tests.)
func (s *sources) chartIndex(repoURL string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	charts, ok := s.charts[repoURL]
	if !ok {
		return nil, false
	}
	type entry struct {
		*chart.Metadata
		URLs    []string  `json:"urls"`
		Created time.Time `json:"created"`
		Digest  string    `json:"digest"`
	}
	entries := map[string][]entry{}
	for name, vs := range charts {
		list := make([]entry, 0, len(vs))
		for _, v := range vs {
			// The archive's SHA-256, as helm repo index writes it.
			sum := sha256.Sum256(v.archive)
			list = append(list, entry{Metadata: v.meta, URLs: []string{repoURL + "/charts/" + name + "-" + v.version + ".tgz"}, Created: chartEpoch, Digest: hex.EncodeToString(sum[:])})
		}
		slices.SortStableFunc(list, func(a, b entry) int { return compareVersions(b.Version, a.Version) })
		entries[name] = list
	}
	b, err := yaml.Marshal(map[string]any{"apiVersion": "v1", "entries": entries, "generated": chartEpoch})
	if err != nil {
		return nil, false
	}
	return b, true
}

// compareVersions orders chart versions by SemVer, as Helm sorts an
// index (addChart has checked they parse: Helm's loader refuses others).
func compareVersions(a, b string) int {
	va, errA := semver.NewVersion(a)
	vb, errB := semver.NewVersion(b)
	if errA != nil || errB != nil {
		return strings.Compare(a, b)
	}
	return va.Compare(vb)
}

func (s *sources) chartArchiveAt(repoURL, file string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, vs := range s.charts[repoURL] {
		for _, v := range vs {
			if file == name+"-"+v.version+".tgz" {
				return v.archive, true
			}
		}
	}
	return nil, false
}

// Hosts lists every host the sources serve.
func (s *sources) Hosts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for h := range s.hosts {
		out = append(out, h)
	}
	slices.Sort(out)
	return out
}

// handler answers for one host: Git repositories through
// git-http-backend, chart repositories from memory.
func (s *sources) handler(backend, host string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme := "https"
		if r.TLS == nil {
			scheme = "http"
		}
		p := r.URL.Path
		s.mu.Lock()
		var repo *gitRepo
		for _, g := range s.repos {
			prefix := "/" + g.rel
			if g.host == host && (p == prefix || strings.HasPrefix(p, prefix+"/")) {
				repo = g
			}
		}
		s.mu.Unlock()
		if repo != nil {
			if !s.allow(w, r, repo.url) {
				return
			}
			h := &cgi.Handler{
				Path: backend,
				Env: []string{
					"GIT_PROJECT_ROOT=" + filepath.Join(s.root, "git", host),
					"GIT_HTTP_EXPORT_ALL=1",
				},
			}
			h.ServeHTTP(w, r)
			return
		}
		// Chart repositories: <repo>/index.yaml and <repo>/charts/<file>.
		base := scheme + "://" + host
		if strings.HasSuffix(p, "/index.yaml") {
			repoURL := normalURL(base + strings.TrimSuffix(p, "/index.yaml"))
			if b, ok := s.chartIndex(repoURL); ok {
				if !s.allow(w, r, repoURL) {
					return
				}
				w.Header().Set("Content-Type", "application/x-yaml")
				_, _ = w.Write(b)
				return
			}
		}
		if dir, file := path.Split(p); strings.HasSuffix(dir, "/charts/") {
			repoURL := normalURL(base + strings.TrimSuffix(dir, "/charts/"))
			if b, ok := s.chartArchiveAt(repoURL, file); ok {
				if !s.allow(w, r, repoURL) {
					return
				}
				w.Header().Set("Content-Type", "application/gzip")
				_, _ = w.Write(b)
				return
			}
		}
		http.Error(w, "not served by platc's e2e environment: "+base+p, http.StatusNotFound)
	})
}

// serveSources makes every host the sources serve a site of the
// simulated network.
func (e *Env) serveSources() error {
	backend, err := gitBackend()
	if err != nil {
		return err
	}
	for _, h := range e.src.Hosts() {
		e.net.site(h, e.src.handler(backend, h))
	}
	return nil
}

// protect makes the repository at url (every repository under it, with
// prefix) private: served only to requests with this basic-auth login.
func (s *sources) protect(url string, prefix bool, user, pass string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !prefix {
		url = normalURL(url)
	}
	s.auth = append(s.auth, repoAuth{url: url, prefix: prefix, user: user, pass: pass})
}

// allow answers 401 to a request for a private repository without its
// login, as Git's and Helm's servers do, and counts the request.
func (s *sources) allow(w http.ResponseWriter, r *http.Request, repoURL string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	var need *repoAuth
	for i, a := range s.auth {
		if a.url == repoURL || a.prefix && strings.HasPrefix(repoURL, a.url) {
			need = &s.auth[i]
		}
	}
	if need == nil {
		return true
	}
	if user, pass, ok := r.BasicAuth(); ok && user == need.user && pass == need.pass {
		s.admitted[repoURL]++
		return true
	}
	s.refused[repoURL]++
	w.Header().Set("WWW-Authenticate", `Basic realm="platc e2e"`)
	http.Error(w, "authentication required", http.StatusUnauthorized)
	return false
}

// requests returns how many requests for the private repository at url
// were let through and how many were refused.
func (s *sources) requests(url string) (admitted, refused int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.admitted[normalURL(url)], s.refused[normalURL(url)]
}
