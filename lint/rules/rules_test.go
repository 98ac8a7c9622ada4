package rules_test

import (
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

func TestPruneOnStatefulApp(t *testing.T) {
	linttest.Run(t, "testdata/prune-on-stateful-app", rules.PruneOnStatefulApp)
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
