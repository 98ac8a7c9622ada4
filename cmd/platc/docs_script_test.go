package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/platc/platc/internal/golden"
)

// TestDocScripts follows the README and docs/language.md as a newcomer
// does: testdata/docs/*.txtar run commands on the pages' own examples,
// which Setup writes, verbatim, under $WORK/readme and $WORK/language
// (each named code block to its path). $REPO is the repository's root,
// for the example platform. The scripts need the tools the pages use
// (git, graphviz, pre-commit, bash-completion): without one a script
// skips, saying which, unless PLATC_REQUIRE_CLI_TOOLS is set.
func TestDocScripts(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	gocache, gomodcache := goEnv(t, "GOCACHE"), goEnv(t, "GOMODCACHE")
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/docs",
		UpdateScripts:       golden.Update(),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Condition:           toolCondition,
		Setup: func(e *testscript.Env) error {
			e.Setenv("NO_COLOR", "1")
			e.Setenv("REPO", repo)
			// pre-commit's golang hooks run go; HOME is /no-home here.
			e.Setenv("GOCACHE", gocache)
			e.Setenv("GOMODCACHE", gomodcache)
			e.Setenv("PRE_COMMIT_HOME", filepath.Join(e.WorkDir, ".pre-commit-home"))
			for _, p := range []struct{ dir, page string }{{"readme", "README.md"}, {"language", "docs/language.md"}} {
				if _, err := writeDocBlocks(filepath.Join(repo, p.page), filepath.Join(e.WorkDir, p.dir)); err != nil {
					return err
				}
			}
			return nil
		},
	})
}

func goEnv(t *testing.T, name string) string {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// toolCondition answers [have:NAME] (a program on PATH) and
// [bash-completion] (Debian's bash-completion package) in scripts. A
// missing tool is an error, not a skip, when PLATC_REQUIRE_CLI_TOOLS is
// set, so CI cannot pass without running what needs it.
func toolCondition(cond string) (bool, error) {
	var ok bool
	var what string
	switch {
	case strings.HasPrefix(cond, "have:"):
		name := strings.TrimPrefix(cond, "have:")
		_, err := exec.LookPath(name)
		ok, what = err == nil, name
	case cond == "bash-completion":
		_, err := os.Stat("/usr/share/bash-completion/bash_completion")
		ok, what = err == nil, "bash-completion"
	default:
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	if !ok && os.Getenv("PLATC_REQUIRE_CLI_TOOLS") != "" {
		return false, fmt.Errorf("%s is not installed and PLATC_REQUIRE_CLI_TOOLS is set", what)
	}
	return ok, nil
}
