package compiler

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

const checkoutSrc = `
app "a" {
  namespace = "a"
  source { path = "apps/paymnets/overlays/prod" }
}
app "b" {
  namespace = "b"
  source { path = "apps/payments/overlays/prod" }
  source {
    chart    = "b"
    repo_url = "https://charts.example.com"
    version  = "1.0.0"
    helm { value_files = ["$values/values/b.yml", "$values/apps"] }
  }
  source { ref = "values" }
}
app "c" {
  namespace = "c"
  source { path = "nowhere/at/all" }
}
app "pinned" {
  namespace = "d"
  source {
    path            = "removed-since"
    target_revision = "v0.1.0"
  }
}
app "other" {
  namespace = "e"
  source {
    repo_url        = "https://git.example.com/other.git"
    path            = "not/here"
    target_revision = "v1"
  }
}`

var checkoutFS = fstest.MapFS{
	"apps/payments/overlays/prod/kustomization.yaml": {Data: []byte("resources: []\n")},
	"values/b.yaml": {Data: []byte("x: 1\n")},
}

// In a checkout of the platform's repository, a Git path of that
// repository at the platform's revision must exist, as Argo CD resolves
// it from the root; the error names the nearest existing path. Paths of
// other repositories and of other revisions are not checked.
func TestGitPathsInCheckout(t *testing.T) {
	co := &Checkout{Dir: "/repo", FS: checkoutFS, Remotes: []string{"git@git.example.com:platform.git"}}
	_, diags := Compile(parse(t, checkoutSrc), Options{Checkout: co})
	offset := strings.Count(header, "\n")
	var got []string
	for _, d := range diags {
		got = append(got, fmt.Sprintf("%d:%d %s", d.Subject.Start.Line-offset, d.Subject.Start.Column, d.Summary))
	}
	want := []string{"4:19 Git path not found", "13:27 Git path not found", "13:51 Git path of the wrong kind", "19:19 Git path not found"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("diagnostics:\n%s\nwant:\n%s\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), diags.Error())
	}
	for i, phrase := range []string{
		`Did you mean "apps/payments/overlays/prod"?`,
		`Did you mean "values/b.yaml"?`,
		`"apps" is a directory in the platform repository at /repo, not a file`,
		"Not even its first directory exists.",
	} {
		if !strings.Contains(diags[i].Detail, phrase) {
			t.Errorf("diagnostic %d: %q does not say %q", i, diags[i].Detail, phrase)
		}
	}

	// A checkout of another repository checks nothing.
	co.Remotes = []string{"https://git.example.com/someone-else.git"}
	if _, diags := Compile(parse(t, checkoutSrc), Options{Checkout: co}); diags.HasErrors() {
		t.Errorf("a checkout of another repository was checked: %s", diags.Error())
	}
}

// FindCheckout finds the work tree of a real Git repository and its
// remotes, from a directory below its root, and nothing outside one.
func TestFindCheckout(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q", dir}, {"-C", dir, "remote", "add", "origin", "https://git.example.com/platform.git"}} {
		if out, err := exec.Command(git, args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	sub := filepath.Join(dir, "platform", "hcl")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	// A link out of the work tree is not followed.
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "apps")); err != nil {
		t.Fatal(err)
	}
	co := FindCheckout(sub)
	if co == nil {
		t.Fatal("no checkout found")
	}
	if real, _ := filepath.EvalSymlinks(dir); co.Dir != dir && co.Dir != real {
		t.Errorf("Dir = %s, want %s", co.Dir, dir)
	}
	if len(co.Remotes) != 1 || !sameRepo(co.Remotes[0], "https://GIT.example.com/platform/") {
		t.Errorf("Remotes = %v", co.Remotes)
	}
	p, diags := Compile(parse(t, `
app "a" {
  namespace = "a"
  source { path = "apps/a" }
}`), Options{Checkout: co})
	if p != nil || !strings.Contains(diags.Error(), "Unreadable Git path") {
		t.Errorf("a path through a link out of the work tree: %v", diags)
	}
}

// Every other path Argo CD resolves in the platform's repository is
// checked as Argo CD resolves it: values files, Helm file_parameters,
// kustomize components and patches relative to the source's path (and
// suggested that way; one starting with "/" from the root, as Argo CD
// reads it), Jsonnet libraries from the root. A values file
// Argo CD is told may be missing, and URLs, are not checked; a path that
// climbs out of the repository is refused wherever the repository is.
func TestGitPathsRelativeToSource(t *testing.T) {
	fsys := fstest.MapFS{
		"apps/web/overlays/prod/kustomization.yaml":      {Data: []byte("resources: []\n")},
		"apps/web/overlays/prod/values-prod.yaml":        {Data: []byte("x: 1\n")},
		"apps/web/overlays/prod/patches/hpa.yaml":        {Data: []byte("[]\n")},
		"apps/web/base/values.yaml":                      {Data: []byte("x: 1\n")},
		"apps/web/components/tracing/kustomization.yaml": {Data: []byte("kind: Component\n")},
		"vendor/lib.libsonnet":                           {Data: []byte("{}\n")},
	}
	src := `
app "helm" {
  namespace = "a"
  source {
    path = "apps/web/overlays/prod"
    helm {
      value_files = ["../../base/values.yaml", "values-prd.yaml", "https://example.com/v.yaml", "../../../../../up.yaml", "/apps/web/base/values.yaml", "/apps/web/base/valus.yaml"]
      file_parameter {
        name = "cert"
        path = "patches/hpa.yml"
      }
    }
  }
}
app "tolerant" {
  namespace = "b"
  source {
    path = "apps/web/overlays/prod"
    helm {
      value_files                = ["absent.yaml"]
      ignore_missing_value_files = true
    }
  }
}
app "kust" {
  namespace = "c"
  source {
    path = "apps/web/overlays/prod"
    kustomize {
      components = ["../../components/tracing", "../../components/tracng"]
      patch {
        path = "patches/hpa.yaml"
      }
      patch {
        path = "patches/pdb.yaml"
      }
    }
  }
}
app "jsonnet" {
  namespace = "d"
  source {
    path = "apps/web/overlays/prod"
    directory {
      jsonnet {
        libs = ["vendor", "vendr"]
      }
    }
  }
}`
	co := &Checkout{Dir: "/repo", FS: fsys, Remotes: []string{"https://git.example.com/platform.git"}}
	_, diags := Compile(parse(t, src), Options{Checkout: co})
	offset := strings.Count(header, "\n")
	var got []string
	for _, d := range diags {
		got = append(got, fmt.Sprintf("%d:%d %s", d.Subject.Start.Line-offset, d.Subject.Start.Column, d.Summary))
	}
	want := []string{
		"7:48 Git path not found",
		"7:97 Invalid values file",
		"7:153 Git path not found",
		"10:16 Git path not found",
		"30:49 Git path not found",
		"35:16 Git path not found",
		"46:27 Git path not found",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("diagnostics:\n%s\nwant:\n%s\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), diags.Error())
	}
	for i, phrase := range []string{
		`relative to the source's path "apps/web/overlays/prod", so from the root it is "apps/web/overlays/prod/values-prd.yaml"`,
		`leads outside the repository from the source's path "apps/web/overlays/prod"`,
		`values file "/apps/web/base/valus.yaml" does not exist in the platform repository at /repo; Argo CD resolves it from the repository's root, at the platform's revision, which this checkout stands for. Did you mean "/apps/web/base/values.yaml"?`,
		`Did you mean "patches/hpa.yaml"?`,
		`Did you mean "../../components/tracing"?`,
		`The nearest existing directory is "patches".`,
		`Did you mean "vendor"?`,
	} {
		if !strings.Contains(diags[i].Detail, phrase) {
			t.Errorf("diagnostic %d: %q does not say %q", i, diags[i].Detail, phrase)
		}
	}
	if !strings.Contains(diags[0].Detail, `Did you mean "values-prod.yaml"?`) {
		t.Errorf("no suggestion relative to the source's path: %s", diags[1].Detail)
	}

	// Outside a checkout nothing is looked up, but leaving the
	// repository is still refused.
	_, diags = Compile(parse(t, src), Options{})
	if len(diags) != 1 || diags[0].Summary != "Invalid values file" {
		t.Errorf("without a checkout: %v", diags)
	}
}
