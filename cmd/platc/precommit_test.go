package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestPreCommitHooks keeps .pre-commit-hooks.yaml working: every hook
// runs platc with arguments platc accepts, succeeds on the example
// platform the way pre-commit would call it, and is shown in the
// README's snippet.
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
			if h.ID == "" || h.Name == "" || h.Language != "golang" {
				t.Errorf("hook %+v: id, name and language golang are required", h)
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
			if code := run(args, &stdout, &stderr); code != exitOK {
				t.Errorf("%s on the example: exit %d\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
			}
			if !bytes.Contains(readme, []byte("id: "+h.ID)) {
				t.Errorf("the README's pre-commit snippet does not show hook %s", h.ID)
			}
		})
	}
}
