package main

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/platc/platc/internal/exitcode"
)

// TestPreCommitHooks keeps .pre-commit-hooks.yaml working: every hook
// runs platc with arguments platc accepts, succeeds on the example
// platform the way pre-commit would call it, and is named in the README.
// Each hook comes as a language: system variant (the platc on PATH) and
// a golang one (built by pre-commit), with the same entry and files.
// testdata/docs/readme_precommit.txtar runs them through pre-commit.
func TestPreCommitHooks(t *testing.T) {
	b, err := os.ReadFile("../../.pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var hooks []struct {
		ID            string `yaml:"id"`
		Name          string `yaml:"name"`
		Entry         string `yaml:"entry"`
		Language      string `yaml:"language"`
		Files         string `yaml:"files"`
		PassFilenames *bool  `yaml:"pass_filenames"`
	}
	if err := yaml.Unmarshal(b, &hooks); err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(hooks) < 2 {
		t.Fatalf("want the fmt and lint hooks, got %d hooks", len(hooks))
	}
	for _, h := range hooks {
		t.Run(h.ID, func(t *testing.T) {
			if h.ID == "" || h.Name == "" || (h.Language != "golang" && h.Language != "system") {
				t.Errorf("hook %+v: id, name and language golang or system are required", h)
			}
			if (h.Language == "system") != strings.HasSuffix(h.ID, "-system") {
				t.Errorf("hook %s: the id says which variant it is; language %s", h.ID, h.Language)
			}
			files, err := regexp.Compile(h.Files)
			if err != nil || !files.MatchString("platform/platform.hcl") {
				t.Errorf("files %q does not select .hcl files: %v", h.Files, err)
			}
			args := strings.Fields(h.Entry)
			if len(args) < 2 || args[0] != "platc" {
				t.Fatalf("entry %q does not run platc", h.Entry)
			}
			// pre-commit appends the staged files unless pass_filenames is
			// false; lint then reads the current directory.
			if h.PassFilenames == nil || *h.PassFilenames {
				args = append(args, "../../examples/platform.hcl")
			} else {
				t.Chdir("../../examples")
			}
			var stdout, stderr bytes.Buffer
			if code := run(args, &stdout, &stderr); code != exitcode.OK {
				t.Errorf("%s on the example: exit %d\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
			}
			if !bytes.Contains(readme, []byte(h.ID)) {
				t.Errorf("the README does not name hook %s", h.ID)
			}
		})
	}
}

// The README's golang snippet pins a revision that exists: a full commit
// SHA (platc has no release tags), in this repository's history, whose
// .pre-commit-hooks.yaml defines the hooks the snippet uses.
func TestReadmePreCommitRevision(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("SKIP: git is not installed")
	}
	blocks, err := docBlocks("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var snippet string
	for _, b := range blocks {
		if b.name == "precommit-golang/.pre-commit-config.yaml" {
			snippet = b.body
		}
	}
	var cfg struct {
		Repos []struct {
			Repo  string `yaml:"repo"`
			Rev   string `yaml:"rev"`
			Hooks []struct {
				ID string `yaml:"id"`
			} `yaml:"hooks"`
		} `yaml:"repos"`
	}
	if err := yaml.Unmarshal([]byte(snippet), &cfg); err != nil || len(cfg.Repos) != 1 {
		t.Fatalf("the README's precommit-golang snippet does not hold one repo: %v\n%s", err, snippet)
	}
	r := cfg.Repos[0]
	if r.Repo != repoURL || !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(r.Rev) {
		t.Fatalf("the snippet must pin %s at a full commit SHA; got repo %q rev %q", repoURL, r.Repo, r.Rev)
	}
	hooks, err := exec.Command("git", "-C", "../..", "show", r.Rev+":.pre-commit-hooks.yaml").Output()
	if err != nil {
		if out, _ := exec.Command("git", "-C", "../..", "rev-parse", "--is-shallow-repository").Output(); strings.TrimSpace(string(out)) == "true" {
			t.Skipf("SKIP: this clone is shallow, so revision %s may be missing: %v", r.Rev, err)
		}
		t.Fatalf("revision %s is not in this repository's history: %v", r.Rev, err)
	}
	for _, h := range r.Hooks {
		if !bytes.Contains(hooks, []byte("- id: "+h.ID+"\n")) {
			t.Errorf("at %s, .pre-commit-hooks.yaml has no hook %s", r.Rev, h.ID)
		}
	}
}
