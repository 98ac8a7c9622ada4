package executor

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/platc/platc/compiler/ir"
)

type workflowStep struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	With map[string]string `yaml:"with"`
}

type workflowJob struct {
	Needs    any `yaml:"needs"`
	Strategy struct {
		Matrix struct {
			Platform []string `yaml:"platform"`
		} `yaml:"matrix"`
	} `yaml:"strategy"`
	Permissions map[string]string `yaml:"permissions"`
	Steps       []workflowStep    `yaml:"steps"`
}

// TestReleaseWorkflow reads .github/workflows/release.yml as GitHub
// would (it cannot run here): a v* tag builds and pushes both
// architectures with platc's version and repository stamped, every
// action is pinned to a version, the tag must be a release by platc's own
// rule, and each platform of the pushed image is checked against
// scripts/image-tools.txt.
func TestReleaseWorkflow(t *testing.T) {
	b, err := os.ReadFile("../.github/workflows/release.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		On struct {
			Push struct {
				Tags []string `yaml:"tags"`
			} `yaml:"push"`
		} `yaml:"on"`
		Jobs map[string]workflowJob `yaml:"jobs"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(false)
	if err := dec.Decode(&wf); err != nil {
		t.Fatal(err)
	}
	if len(wf.On.Push.Tags) != 1 || wf.On.Push.Tags[0] != "v*" {
		t.Errorf("triggered by tags %q, want v*", wf.On.Push.Tags)
	}
	pinned := regexp.MustCompile(`^[a-z0-9-]+/[a-z0-9-]+@v[0-9]+\.[0-9]+\.[0-9]+$`)
	uses := map[string]map[string]workflowStep{}
	runs := map[string]string{}
	for name, job := range wf.Jobs {
		uses[name] = map[string]workflowStep{}
		for _, s := range job.Steps {
			if s.Uses != "" {
				if !pinned.MatchString(s.Uses) {
					t.Errorf("job %s: %s is not pinned to a version", name, s.Uses)
				}
				uses[name][strings.Split(s.Uses, "@")[0]] = s
			}
			runs[name] += s.Run + "\n"
		}
	}
	img, ok := wf.Jobs["image"]
	if !ok {
		t.Fatal("no job image")
	}
	if img.Permissions["packages"] != "write" {
		t.Error("job image cannot write packages")
	}
	for _, a := range []string{"actions/checkout", "docker/setup-qemu-action", "docker/setup-buildx-action", "docker/login-action", "docker/build-push-action"} {
		if _, ok := uses["image"][a]; !ok {
			t.Errorf("job image does not use %s", a)
		}
	}
	if w := uses["image"]["docker/login-action"].With; w["registry"] != "ghcr.io" || w["password"] != "${{ secrets.GITHUB_TOKEN }}" {
		t.Errorf("login-action: %v, want ghcr.io with GITHUB_TOKEN", w)
	}
	bp := uses["image"]["docker/build-push-action"].With
	if bp["platforms"] != "linux/amd64,linux/arm64" || bp["push"] != "true" {
		t.Errorf("build-push-action: platforms %q, push %q", bp["platforms"], bp["push"])
	}
	for _, arg := range []string{"VERSION=${{ github.ref_name }}", "IMAGE_REPOSITORY=${{ steps.name.outputs.image }}"} {
		if !strings.Contains(bp["build-args"], arg) {
			t.Errorf("build-args lack %s (the Dockerfile stamps them into platc)", arg)
		}
	}
	if !strings.Contains(bp["tags"], "${{ steps.name.outputs.image }}:${{ github.ref_name }}") {
		t.Errorf("pushed tags %q", bp["tags"])
	}
	if !strings.Contains(runs["image"], "[[ ! $TAG =~ "+ir.ReleasePattern+" ]]") {
		t.Errorf("job image does not check the tag against ir.ReleasePattern %s", ir.ReleasePattern)
	}
	if !strings.Contains(runs["image"], `"image=ghcr.io/${OWNER,,}/platc"`) {
		t.Error("the image is not ghcr.io/<owner>/platc")
	}

	check, ok := wf.Jobs["check"]
	if !ok {
		t.Fatal("no job check")
	}
	if check.Needs != "image" {
		t.Errorf("job check needs %v, want image", check.Needs)
	}
	if p := check.Strategy.Matrix.Platform; strings.Join(p, ",") != bp["platforms"] {
		t.Errorf("job check runs on %q, the image is built for %s", p, bp["platforms"])
	}
	for _, want := range []string{
		"/check/check-image-tools.sh /check/image-tools.txt",
		`-v "$PWD/scripts:/check:ro" "$REF"`,
		`"$REF" version`,
		"platc build --out /tmp/out /platform",
	} {
		if !strings.Contains(runs["check"], want) {
			t.Errorf("job check does not run %s", want)
		}
	}
}

// TestReleaseWorkflowLint runs actionlint (with shellcheck on the run
// scripts when it is installed) through the Go toolchain, at a pinned
// version; it skips when the module cannot be fetched.
func TestReleaseWorkflowLint(t *testing.T) {
	if testing.Short() {
		t.Skip("builds actionlint")
	}
	cmd := exec.Command("go", "run", "github.com/rhysd/actionlint/cmd/actionlint@v1.7.12", "-no-color", "../.github/workflows/release.yml")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ee.ExitCode() == 1 && bytes.Contains(out, []byte("release.yml:")):
		t.Errorf("actionlint:\n%s", out)
	default:
		t.Skipf("actionlint could not run: %v\n%s", err, out)
	}
}
