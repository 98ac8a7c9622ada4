package rules_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platc/platc/lint"
	"github.com/platc/platc/lint/linttest"
	"github.com/platc/platc/lint/rules"
)

func TestUnpinnedChartVersion(t *testing.T) {
	linttest.Run(t, "testdata/unpinned-chart-version", rules.UnpinnedChartVersion)
}

func TestFloatingTargetRevision(t *testing.T) {
	linttest.Run(t, "testdata/floating-target-revision", rules.FloatingTargetRevision)
}

func TestShortTimeoutSlowClass(t *testing.T) {
	linttest.Run(t, "testdata/short-timeout-slow-class", rules.ShortTimeoutSlowClass)
}

func TestSlowResourceWithoutClass(t *testing.T) {
	linttest.Run(t, "testdata/slow-resource-without-class", rules.SlowResourceWithoutClass)
}

func TestRedundantDependency(t *testing.T) {
	linttest.Run(t, "testdata/redundant-dependency", rules.RedundantDependency)
}

func TestAdoptedApplication(t *testing.T) {
	linttest.Run(t, "testdata/adopted-application", rules.AdoptedApplication)
}

func TestAppOutsideStack(t *testing.T) {
	linttest.Run(t, "testdata/app-outside-stack", rules.AppOutsideStack)
}

func TestEmptyStack(t *testing.T) {
	linttest.Run(t, "testdata/empty-stack", rules.EmptyStack)
}

func TestUnusedHealthRule(t *testing.T) {
	linttest.Run(t, "testdata/unused-health-rule", rules.UnusedHealthRule)
}

func TestHealthRuleShadowsBuiltin(t *testing.T) {
	linttest.Run(t, "testdata/health-rule-shadows-builtin", rules.HealthRuleShadowsBuiltin)
}

func TestHardcodedSecret(t *testing.T) {
	linttest.Run(t, "testdata/hardcoded-secret", rules.HardcodedSecret)
}

func TestUnpinnedStepImage(t *testing.T) {
	linttest.Run(t, "testdata/unpinned-step-image", rules.UnpinnedStepImage)
}

func TestPrivilegedWorkflowAccount(t *testing.T) {
	linttest.Run(t, "testdata/privileged-workflow-account", rules.PrivilegedWorkflowAccount)
}

func TestCustomBootstrapRepository(t *testing.T) {
	linttest.Run(t, "testdata/custom-bootstrap-repository", rules.CustomBootstrapRepository)
}

func TestOpenEventsTrigger(t *testing.T) {
	linttest.Run(t, "testdata/open-events-trigger", rules.OpenEventsTrigger)
}

func TestPruneOnStatefulApp(t *testing.T) {
	linttest.Run(t, "testdata/prune-on-stateful-app", rules.PruneOnStatefulApp)
}

func TestSnapshotWithoutController(t *testing.T) {
	linttest.Run(t, "testdata/snapshot-without-controller", rules.SnapshotWithoutController)
}

func TestDeleteVolumesOnStatefulApp(t *testing.T) {
	linttest.Run(t, "testdata/delete-volumes-on-stateful-app", rules.DeleteVolumesOnStatefulApp)
}

func TestHookManifestMismatch(t *testing.T) {
	linttest.Run(t, "testdata/hook-manifest-mismatch", rules.HookManifestMismatch)
}

func TestUndeclaredHook(t *testing.T) {
	linttest.Run(t, "testdata/undeclared-hook", rules.UndeclaredHook)
}

func TestDependencyWaitJob(t *testing.T) {
	linttest.Run(t, "testdata/dependency-wait-job", rules.DependencyWaitJob)
}

func TestApplicationSyncWave(t *testing.T) {
	linttest.Run(t, "testdata/application-sync-wave", rules.ApplicationSyncWave)
}

// The suppression fixtures run invalid-suppression together with the
// rules their comments name, since "matched nothing" depends on them.
func TestInvalidSuppression(t *testing.T) {
	linttest.RunWith(t, "testdata/invalid-suppression", linttest.Options{
		Rules: []*lint.Rule{lint.InvalidSuppression, rules.UnpinnedChartVersion, rules.RedundantDependency, rules.UndeclaredHook},
		Known: rules.Names(),
	})
}

// TestAllRulesOnAllFixtures runs every rule, enabled or not, on every
// rule's fixtures: a rule must not break on inputs written for another.
func TestAllRulesOnAllFixtures(t *testing.T) {
	dirs, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	opts := linttest.Options{Rules: rules.All(), Known: rules.Names()}
	for _, d := range dirs {
		cases, err := os.ReadDir(filepath.Join("testdata", d.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			if !c.IsDir() && !strings.HasSuffix(c.Name(), ".hcl") {
				continue
			}
			path := filepath.Join("testdata", d.Name(), c.Name())
			t.Run(path, func(t *testing.T) {
				found := linttest.Result(t, path, c.IsDir(), opts)
				for _, f := range found {
					if f.Subject == nil || f.Subject.Filename == "" {
						t.Errorf("finding %q has no location", f.Summary)
					}
				}
			})
		}
	}
}
