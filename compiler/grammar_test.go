package compiler

import (
	"slices"
	"strings"
	"testing"

	"github.com/platc/platc/lang"
)

// platformWith is a platform whose blocks take the given lines.
func platformWith(argocd, workflows, git, bootstrap, rest string) string {
	return `platform "acme" {
  argocd {
    ` + argocd + `
  }
  workflows {
    ` + workflows + `
  }
  git {
    repo_url = "https://git.example.com/platform.git"
    ` + git + `
  }
  bootstrap {
    ` + bootstrap + `
  }
}
environment "production" {
  domain = "example.com"
}
` + rest
}

// chartApp is an app with a chart source; body replaces or adds lines.
func chartApp(app, source string) string {
	return `app "web" {
  namespace = "web"
  ` + app + `
  source {
    chart    = "web"
    repo_url = "https://charts.example.com"
    version  = "1.0.0"
    ` + source + `
  }
}
`
}

func summaries(t *testing.T, src string) []string {
	t.Helper()
	m, diags := lang.ParseSources([]lang.SourceFile{{Name: "platform.hcl", Bytes: []byte(src)}})
	if !diags.HasErrors() {
		_, diags = Compile(m, Options{})
	}
	var out []string
	for _, d := range diags {
		if d.Subject == nil || d.Subject.Start.Line == 0 {
			t.Errorf("%q has no location", d.Summary)
		}
		out = append(out, d.Summary)
	}
	return out
}

// TestGrammars: every string bound for generated output is checked for
// where it goes; hostile values are refused at their range.
func TestGrammars(t *testing.T) {
	p := func(argocd, workflows, git, bootstrap string) string {
		return platformWith(argocd, workflows, git, bootstrap, chartApp("", ""))
	}
	for _, c := range []struct {
		name, src, want string
	}{
		{"RBAC CSV injection", p(`project = "team-a/*, allow\ng, platc, role:admin"`, "", "", ""), "Invalid Argo CD project"},
		{"project with a space", p(`project = "Team A"`, "", "", ""), "Invalid Argo CD project"},
		{"Argo expression in the project", platformWith("", "", "", "", chartApp(`project = "{{=workflow.name}}"`, "")), "Invalid Argo CD project"},
		{"Argo parameter in the server", p(`server = "{{workflow.parameters.confirm}}"`, "", "", ""), "Invalid server"},
		{"server port out of range", p(`server = "argocd:70000"`, "", "", ""), "Invalid server"},
		{"Jinja in the Argo CD version", p(`version = "v3.5.1{{ lookup('pipe', 'id') }}"`, "", "", ""), "Invalid version"},
		{"Argo template in the image", p("", `image = "alpine:{{workflow.name}}"`, "", ""), "Invalid image"},
		{"service account with a slash", p("", `service_account = "a/b"`, "", ""), "Invalid service account name"},
		{"Jinja in the git repo_url", strings.Replace(p("", "", "", ""), `repo_url = "https://git.example.com/platform.git"`, `repo_url = "https://git.example.com/p.git{{ lookup('pipe', 'id > /tmp/x') }}"`, 1), "Invalid Git repository URL"},
		{"Jinja in a chart repo_url", strings.Replace(p("", "", "", ""), `repo_url = "https://charts.example.com"`, `repo_url = "https://charts.example.com/{{ x }}"`, 1), "Invalid chart repository URL"},
		{"absolute git path", p("", "", `path = "/etc"`, ""), "Invalid path"},
		{"git path climbing out", p("", "", `path = "gen/../../escape"`, ""), "Invalid path"},
		{"git path not clean", p("", "", `path = "gen/./x"`, ""), "Invalid path"},
		{"shell in the revision", p("", "", `revision = "main; rm -rf /"`, ""), "Invalid Git revision"},
		{"ref with ..", p("", "", `revision = "a..b"`, ""), "Invalid Git revision"},
		{"Jinja in a bootstrap chart", p("", "", "", `argocd_chart = "7.7.0{{ x }}"`), "Invalid chart version"},
		{"Jinja in a bootstrap repo", p("", "", "", `argo_repo = "https://x.example.com/{% raw %}"`), "Invalid chart repository URL"},
		{"bootstrap repo with another scheme", p("", "", "", `argo_repo = "file:///etc"`), "Invalid chart repository URL"},
		{"parallelism out of range", p("", `parallelism = 1000000`, "", ""), "Invalid number"},
		{"chart version template", strings.Replace(p("", "", "", ""), `version  = "1.0.0"`, `version  = "1.0.0{{=workflow.name}}"`, 1), "Invalid chart version"},
		{"chart name", strings.Replace(p("", "", "", ""), `chart    = "web"`, `chart    = "../web"`, 1), "Invalid chart name"},
		{"release name", platformWith("", "", "", "", chartApp("", `helm { release_name = "Bad Name" }`)), "Invalid Helm release name"},
		{"values file outside", platformWith("", "", "", "", chartApp("", `helm { value_files = ["../../x.yaml"] }`)), "Invalid values file"},
		// "/x" is from the chart's root, as Argo CD reads it; never above it.
		{"values file above the root", platformWith("", "", "", "", chartApp("", `helm { value_files = ["/../etc/passwd"] }`)), "Invalid values file"},
		{"sync option with a newline", platformWith("", "", "", "", chartApp(`sync { options = ["CreateNamespace=true\nPrune=false"] }`, "")), "Invalid sync option"},
		{"hook manifest outside", platformWith("", "", "", "", chartApp(`hook "m" {
    phase    = "PreSync"
    purpose  = "migration"
    manifest = "../../etc/passwd"
  }`, "")), "Invalid path"},
		{"absolute hook manifest", platformWith("", "", "", "", chartApp(`hook "m" {
    phase    = "PreSync"
    purpose  = "migration"
    manifest = "/dev/zero"
  }`, "")), "Invalid path"},
		{"test object outside", platformWith("", "", "", "", `health "example.com/W" {
  healthy = true
  test "t" {
    object = "../../dev/zero"
    want   = "Healthy"
  }
}
`), "Invalid path"},
		{"events port", platformWith("", "", "", "", "events {\n  port = 70000\n}\n"), "Invalid number"},
		{"events endpoint", platformWith("", "", "", "", "events {\n  endpoint = \"/push?{{x}}\"\n}\n"), "Invalid endpoint"},
		{"events branch", platformWith("", "", "", "", "events {\n  branch = \"main$(id)\"\n}\n"), "Invalid Git revision"},
		{"events repository", platformWith("", "", "", "", "events {\n  type = \"github\"\n  repository = \"a/b c\"\n}\n"), "Invalid repository"},
		{"retry limit", platformWith("", "", "", "", chartApp(`retry { limit = 2147483647 }`, "")), "Invalid number"},
		{"retry factor", platformWith("", "", "", "", chartApp(`retry { factor = 0 }`, "")), "Invalid number"},
		{"a nanosecond", platformWith("", "", "", "", chartApp(`timeouts { sync = "1ns" }`, "")), "Invalid duration"},
		{"a million hours", platformWith("", "", "", "", chartApp(`timeouts { sync = "1000000h" }`, "")), "Invalid duration"},
		{"fractions of seconds", platformWith("", "", "", "", chartApp(`timeouts { health = "1500ms" }`, "")), "Invalid duration"},
		{"1e400", platformWith("", "", "", "", chartApp("", `helm { values = { v = 1e400 } }`)), "Number out of range"},
		{"2^53+1", platformWith("", "", "", "", chartApp("", `helm { values = { v = [9007199254740993] } }`)), "Number out of range"},
		{"2^53+1 in env", strings.Replace(platformWith("", "", "", "", ""), `domain = "example.com"`, `domain = "example.com"
  big = 9007199254740993`, 1), "Number out of range"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := summaries(t, c.src)
			if c.want == "" {
				if len(got) > 0 {
					t.Errorf("refused: %v", got)
				}
				return
			}
			if !slices.Contains(got, c.want) {
				t.Errorf("diagnostics %v, want %q", got, c.want)
			}
		})
	}
}

// TestGrammarsAccept: the values real platforms use pass.
func TestGrammarsAccept(t *testing.T) {
	src := platformWith(
		`project = "platform"
    server = "argocd-server.argocd.svc:443"
    version = "v3.5.1"`,
		`image = "quay.io/argoproj/argocd:v3.5.1"
    service_account = "platform-orchestrator"`,
		`revision = "release/1.4"
    path = "generated"`,
		`argocd_chart = "7.7.0"
    argo_repo = "oci://ghcr.io/argoproj/argo-helm"`,
		chartApp(`project = "team-a.apps"
  sync {
    options = ["CreateNamespace=true", "PrunePropagationPolicy=foreground"]
  }`, `helm {
      release_name = "web"
      value_files  = ["values-prod.yaml", "https://example.com/values.yaml"]
      values       = { big = 9007199254740992, small = -0.5, text = "{{ .Release.Name }}-db" }
    }`)+`
app "git" {
  namespace = "git"
  source {
    path            = "apps/git"
    repo_url        = "git@github.com:acme/apps.git"
    target_revision = "0123456789abcdef0123456789abcdef01234567"
  }
}
events {
  type       = "github"
  repository = "acme/platform"
  url        = "https://events.example.com"
  branch     = "main"
  port       = 65535
}
`)
	if got := summaries(t, src); len(got) > 0 {
		t.Errorf("refused: %v", got)
	}
}

// TestNullIsMissing: null for a required or invariant-bearing attribute
// is the same error as leaving it out.
func TestNullIsMissing(t *testing.T) {
	withSource := func(lines string) string {
		return platformWith("", "", "", "", `app "web" {
  namespace = "web"
  source {
    `+lines+`
  }
}
`)
	}
	for _, c := range []struct {
		name, src, want string
	}{
		{"namespace", platformWith("", "", "", "", chartApp("", "")+"\n"), ""},
		{"version", withSource(`chart = "web"
    repo_url = "https://charts.example.com"
    version = null`), "Missing chart version"},
		{"repo_url", withSource(`chart = "web"
    repo_url = null
    version = "1.0.0"`), "Missing chart repository"},
		{"chart", withSource(`chart = null
    repo_url = "https://charts.example.com"
    version = "1.0.0"`), "Empty source"},
		{"target_revision", withSource(`path = "apps/web"
    repo_url = "https://git.example.com/other.git"
    target_revision = null`), "Missing target revision"},
		{"git repo_url", strings.Replace(platformWith("", "", "", "", ""), `repo_url = "https://git.example.com/platform.git"`, `repo_url = null`, 1), "Missing required argument"},
		{"hook purpose", platformWith("", "", "", "", chartApp(`hook "m" {
    phase    = "PreSync"
    purpose  = null
    manifest = "m.yaml"
  }`, "")), "Missing required argument"},
		{"test want", platformWith("", "", "", "", `health "example.com/W" {
  healthy = true
  test "t" {
    object = "t.yaml"
    want   = null
  }
}
`), "Missing required argument"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := summaries(t, c.src)
			if c.want == "" {
				if len(got) > 0 {
					t.Errorf("refused: %v", got)
				}
				return
			}
			if !slices.Contains(got, c.want) {
				t.Errorf("diagnostics %v, want %q", got, c.want)
			}
		})
	}
	src := strings.Replace(platformWith("", "", "", "", chartApp("", "")), `namespace = "web"`, `namespace = null`, 1)
	if got := summaries(t, src); !slices.Contains(got, "Missing namespace") {
		t.Errorf("namespace = null: %v", got)
	}
}

// TestHookErrorsCollected: a hook without a manifest and with a
// forbidden purpose gets both errors in one run.
func TestHookErrorsCollected(t *testing.T) {
	got := summaries(t, platformWith("", "", "", "", chartApp(`hook "wait" {
    phase   = "PreSync"
    purpose = "dependency"
  }`, "")))
	slices.Sort(got)
	if want := []string{"Forbidden hook purpose", "Missing required argument"}; !slices.Equal(got, want) {
		t.Errorf("diagnostics %v, want %v", got, want)
	}
}
