package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
)

// Private repositories (issue 24, RFC 3.2.6): the shop's platform
// repository (the root Application, and database and web, whose sources
// are paths in it) and cache's chart repository answer only with a
// basic-auth login, made up by the box and put under the secrets
// directory. The generated bootstrap writes Argo CD's repository Secrets
// from those files; Argo CD's real repo-server logs in with them, and
// the deploy converges; Phase 0 reaches both with those logins. Without
// the Secret, a hard refresh of database
// is refused by the server: the authentication is enforced.
func TestPrivateRepositories(t *testing.T) {
	dir := shopWith(t, `  git {
    repo_url = "https://git.shop.test/platform.git"
    revision = "v1.0.0"
  }
}`, `  git {
    repo_url = "https://git.shop.test/platform.git"
    revision = "v1.0.0"
  }
  credential "platform-git" {
    type     = "basic_auth"
    repo_url = "https://git.shop.test/platform.git"
  }
  credential "private-charts" {
    type     = "basic_auth"
    path     = "charts/private"
    repo_url = "https://charts.shop.test/private"
  }
}`, `    chart    = "cache"
    repo_url = "https://charts.shop.test/stable"`, `    chart    = "cache"
    repo_url = "https://charts.shop.test/private"`)
	s := start(t, dir)
	const gitURL, chartURL = "https://git.shop.test/platform.git", "https://charts.shop.test/private"
	ns := s.pl.Program.Platform.ArgoCD.Namespace

	// The server refuses a request without the login.
	rec := httptest.NewRecorder()
	s.env.src.handler("", "charts.shop.test").ServeHTTP(rec, httptest.NewRequest(http.MethodGet, chartURL+"/index.yaml", nil))
	if rec.Code != http.StatusUnauthorized {
		t.Fatalf("%s/index.yaml without a login: HTTP %d, want 401", chartURL, rec.Code)
	}

	for name, label := range map[string]string{"platc-repo-platform-git": "repository", "platc-repo-private-charts": "repository"} {
		sec, err := s.env.Kube.CoreV1().Secrets(ns).Get(s.ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("the bootstrap did not write %s: %v", name, err)
		}
		if sec.Labels["argocd.argoproj.io/secret-type"] != label {
			t.Errorf("%s is labelled %v", name, sec.Labels)
		}
	}

	r := s.run("deploy", ExitOK)
	// Phase 0: each credential's files, and each private repository
	// reached with its login, as the repo-server will log in.
	wantIn(t, "report", string(r.Report), `platform-git`, `private-charts`, "username and password present",
		`https://git.shop.test/platform.git (for the platform repository, app database and app web): reachable with the login of credential \"platform-git\" (git ls-remote)`,
		`https://charts.shop.test/private (for app cache): reachable with the login of credential \"private-charts\" (HTTP 200)`)
	password, err := os.ReadFile(filepath.Join(s.pl.secretsDir, "charts", "private", "password"))
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range [][]byte{r.Report, r.Logs} {
		if strings.Contains(string(out), string(password)) {
			t.Errorf("the deploy's output holds the chart repository's password")
		}
	}
	s.settle()
	s.wantConverged()
	for _, u := range []string{gitURL, chartURL} {
		admitted, refused := s.env.src.requests(u)
		t.Logf("%s: %d requests with the login, %d refused", u, admitted, refused)
		if admitted == 0 {
			t.Errorf("%s: no request came with the login, yet the apps converged", u)
		}
	}

	t.Run("without the Secret the repo-server is refused", func(t *testing.T) {
		if err := s.env.Kube.CoreV1().Secrets(ns).Delete(s.ctx, "platc-repo-platform-git", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		_, before := s.env.src.requests(gitURL)
		app := s.pl.Program.App("database").Application
		ri := s.env.Dynamic.Resource(applicationGVR).Namespace(ns)
		patch := []byte(`{"metadata":{"annotations":{"argocd.argoproj.io/refresh":"hard"}}}`)
		if _, err := ri.Patch(s.ctx, app, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
		// Until the refresh reports a ComparisonError; past the limit, the
		// check below says what was missing.
		var msg string
		err := wait.PollUntilContextTimeout(s.ctx, 2*time.Second, 2*time.Minute, false, func(ctx context.Context) (bool, error) {
			u, err := ri.Get(ctx, app, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
			for _, c := range conds {
				m, _ := c.(map[string]any)
				if m["type"] == "ComparisonError" {
					msg, _ = m["message"].(string)
				}
			}
			return msg != "", nil
		})
		if err != nil && !wait.Interrupted(err) {
			t.Fatal(err)
		}
		_, after := s.env.src.requests(gitURL)
		t.Logf("ComparisonError: %s; refused requests %d → %d", msg, before, after)
		if msg == "" || after == before {
			t.Fatalf("after the Secret was deleted, a hard refresh of %s was not refused by the server (ComparisonError %q, refused %d → %d)", app, msg, before, after)
		}
		low := strings.ToLower(msg)
		if !strings.Contains(low, "auth") && !strings.Contains(low, "401") {
			t.Errorf("the ComparisonError does not say the repository asked for credentials: %s", msg)
		}
	})
}
