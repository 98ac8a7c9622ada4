package preflight

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestConnectivityHTTP(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/charts/index.yaml", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("apiVersion: v1\nentries: {}\n")) })
	mux.HandleFunc("/private/index.yaml", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "no", http.StatusUnauthorized) })
	mux.HandleFunc("/v2/", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "token", http.StatusUnauthorized) })
	srv := httptest.NewTLSServer(mux)
	defer srv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	host := strings.TrimPrefix(srv.URL, "https://")

	got := CheckConnectivity(context.Background(), []Endpoint{
		{Kind: HelmRepo, URL: srv.URL + "/charts/", Purpose: "for app a"},
		{Kind: HelmRepo, URL: srv.URL + "/private", Purpose: "for app b"},
		{Kind: HelmRepo, URL: srv.URL + "/nothing", Purpose: "for app c"},
		{Kind: OCIRepo, URL: "oci://" + host + "/org/charts", Purpose: "for app d"},
		{Kind: HelmRepo, URL: closed.URL, Purpose: "for app e"},
	}, ConnectivityOptions{Client: srv.Client(), Timeout: 5 * time.Second})
	want := []struct {
		st  Status
		msg string
	}{
		{Pass, "reachable (HTTP 200)"},
		{Warn, "asks for credentials (HTTP 401)"},
		{Warn, "no index.yaml (HTTP 404)"},
		{Pass, "reachable (HTTP 401)"},
		{Warn, "unreachable: connection refused"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d checks: %v", len(got), got)
	}
	for i, w := range want {
		if got[i].Status != w.st || !strings.Contains(got[i].Message, w.msg) || !strings.Contains(got[i].Message, "for app ") {
			t.Errorf("check %d: %s %q, want %s with %q", i, got[i].Status, got[i].Message, w.st, w.msg)
		}
	}
}

// TestConnectivityGit runs the real git: ls-remote of a repository served
// over dumb HTTP passes; the transports a repository URL may not name
// (file, ext) are refused by git itself, so no URL runs a command.
func TestConnectivityGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	repo := filepath.Join(dir, "platform.git")
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
	}
	work := filepath.Join(dir, "work")
	run("init", "-q", "-b", "main", work)
	run("-C", work, "commit", "-q", "--allow-empty", "-m", "x")
	run("clone", "-q", "--bare", work, repo)
	run("-C", repo, "update-server-info")
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	marker := filepath.Join(dir, "ran")
	got := CheckConnectivity(context.Background(), []Endpoint{
		{Kind: GitRepo, URL: srv.URL + "/platform.git", Purpose: "for the platform repository"},
		{Kind: GitRepo, URL: srv.URL + "/missing.git", Purpose: "for app x"},
		{Kind: GitRepo, URL: "file://" + repo, Purpose: "for app y"},
		{Kind: GitRepo, URL: "ext::sh -c touch% " + marker, Purpose: "for app z"},
	}, ConnectivityOptions{ToolPath: filepath.Dir(git), Timeout: 10 * time.Second})
	if got[0].Status != Pass {
		t.Errorf("served repository: %v", got[0])
	}
	for _, c := range got[1:] {
		if c.Status != Warn || !strings.Contains(c.Message, "git ls-remote failed") {
			t.Errorf("want a warning: %v", c)
		}
	}
	if !strings.Contains(got[2].Message, "not allowed") || !strings.Contains(got[3].Message, "not allowed") {
		t.Errorf("file and ext transports: %v, %v", got[2], got[3])
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("an ext:: URL ran a command")
	}
}

// At most MaxEndpoints are checked; the rest are counted in one line.
func TestConnectivityBounded(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	eps := make([]Endpoint, MaxEndpoints+5)
	for i := range eps {
		eps[i] = Endpoint{Kind: HelmRepo, URL: srv.URL, Purpose: "x"}
	}
	got := CheckConnectivity(context.Background(), eps, ConnectivityOptions{})
	if len(got) != MaxEndpoints+1 || got[MaxEndpoints].Message != "5 more endpoints not checked (at most 64 are)" {
		t.Errorf("%d checks, last %v", len(got), got[len(got)-1])
	}
}

// The platform repository must have the revision the root is to follow:
// a tag never pushed is named, with the fix; a branch whose name merely
// ends in the tag's does not count; a commit SHA, which no ref lists, is
// checked as HEAD.
func TestConnectivityGitRef(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	repo := filepath.Join(dir, "platform.git")
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
	}
	work := filepath.Join(dir, "work")
	run("init", "-q", "-b", "main", work)
	run("-C", work, "commit", "-q", "--allow-empty", "-m", "x")
	run("-C", work, "tag", "v1.0.0")
	run("-C", work, "branch", "release/v1.1.0")
	run("clone", "-q", "--bare", work, repo)
	run("-C", repo, "update-server-info")
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	u := srv.URL + "/platform.git"
	got := CheckConnectivity(context.Background(), []Endpoint{
		{Kind: GitRepo, URL: u, Ref: "v1.0.0", Purpose: "for the platform repository"},
		{Kind: GitRepo, URL: u, Ref: "main", Purpose: "for the platform repository"},
		{Kind: GitRepo, URL: u, Ref: "v1.1.0", Purpose: "for the platform repository"},
		{Kind: GitRepo, URL: u, Ref: "0123456789abcdef0123456789abcdef01234567", Purpose: "for the platform repository"},
	}, ConnectivityOptions{ToolPath: filepath.Dir(git), Timeout: 10 * time.Second})
	for _, i := range []int{0, 1, 3} {
		if got[i].Status != Pass {
			t.Errorf("check %d: %v", i, got[i])
		}
	}
	if got[2].Status != Warn || !strings.Contains(got[2].Message, `no branch or tag "v1.1.0"`) || !strings.Contains(got[2].Message, "git push origin v1.1.0") {
		t.Errorf("a tag never pushed: %v", got[2])
	}
}

// A private repository is checked with the login of the platform's
// credential for it, as Argo CD will log in: the real git (the login in
// its environment, never on its command line) and a chart repository's
// index pass with the right login and warn, naming the credential, with
// a wrong one. The messages hold no part of the login.
func TestConnectivityLogin(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
	}
	work := filepath.Join(dir, "work")
	run("init", "-q", "-b", "main", work)
	run("-C", work, "commit", "-q", "--allow-empty", "-m", "x")
	run("clone", "-q", "--bare", work, filepath.Join(dir, "platform.git"))
	run("-C", filepath.Join(dir, "platform.git"), "update-server-info")
	if err := os.WriteFile(filepath.Join(dir, "index.yaml"), []byte("apiVersion: v1\nentries: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "bot" || p != "right-password-value" {
			w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()
	right := &Login{Credential: "platform-git", User: "bot", Password: "right-password-value"}
	wrong := &Login{Credential: "platform-git", User: "bot", Password: "wrong-password-value"}
	got := CheckConnectivity(context.Background(), []Endpoint{
		{Kind: GitRepo, URL: srv.URL + "/platform.git", Purpose: "for the platform repository", Login: right},
		{Kind: GitRepo, URL: srv.URL + "/platform.git", Purpose: "for the platform repository", Login: wrong},
		{Kind: HelmRepo, URL: srv.URL, Purpose: "for app a", Login: right},
		{Kind: HelmRepo, URL: srv.URL, Purpose: "for app a", Login: wrong},
		{Kind: HelmRepo, URL: srv.URL, Purpose: "for app a"},
	}, ConnectivityOptions{ToolPath: filepath.Dir(git), Timeout: 10 * time.Second})
	want := []struct {
		st  Status
		msg string
	}{
		{Pass, `reachable with the login of credential "platform-git" (git ls-remote)`},
		{Warn, `refuses the login of credential "platform-git"`},
		{Pass, `reachable with the login of credential "platform-git" (HTTP 200)`},
		{Warn, `refuses the login of credential "platform-git" (HTTP 401)`},
		{Warn, "asks for credentials (HTTP 401)"},
	}
	for i, w := range want {
		if got[i].Status != w.st || !strings.Contains(got[i].Message, w.msg) {
			t.Errorf("check %d: %s %q, want %s with %q", i, got[i].Status, got[i].Message, w.st, w.msg)
		}
		if strings.Contains(got[i].Message, "password-value") || strings.Contains(got[i].Message, "Ym90Oi") {
			t.Errorf("check %d shows the login: %s", i, got[i].Message)
		}
	}
}

// What git says when a server wants a login, and what it says otherwise
// from a URL whose port holds 401 or 403 (TestConnectivityGit failed so
// when its server's port was 40347).
func TestGitAsksForLogin(t *testing.T) {
	for msg, want := range map[string]bool{
		"fatal: unable to access 'https://git.example.com/x.git/': The requested URL returned error: 403":    true,
		"fatal: unable to access 'https://git.example.com/x.git/': The requested URL returned error: 401":    true,
		"fatal: could not read Username for 'https://git.example.com': terminal prompts disabled":            true,
		"git@git.example.com: Permission denied (publickey).":                                                true,
		"fatal: repository 'http://127.0.0.1:40347/missing.git/' not found":                                  false,
		"fatal: unable to access 'http://127.0.0.1:44010/x.git/': Failed to connect to 127.0.0.1 port 44010": false,
	} {
		if got := gitAsksForLogin(msg); got != want {
			t.Errorf("gitAsksForLogin(%q) = %v, want %v", msg, got, want)
		}
	}
}
