package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platc/platc/compiler/ir"
)

const shop = "testdata/shop"

// RFC 2.5 #3: with database failing (its operator reports a Degraded
// Database), deploy stops its transitive dependents before they sync,
// converges everything independent of it, and exits 2; validate reports
// the failure; once the operator recovers, a second deploy syncs only
// what is not yet Healthy at the expected revision (database, Healthy
// again by itself, is left alone) and exits 0. Then a
// teardown with PV_POLICY=snapshot, which inspects apps with and without
// claims.
//
// Every action runs as a user with only the permissions Phase 0 lists,
// not as an admin.
func TestFailureThenResume(t *testing.T) {
	s := start(t, shop, "database")
	p := s.pl.Program
	deployer := s.asDeployer()

	r := s.run("deploy", ExitPartial, deployer)
	wantIn(t, "report", string(r.Report), `"app":"database"`, "(after 2 attempts)", "not run: database did not succeed")
	s.settle()
	first := s.pl.Timeline.Events()
	wantNone(t, "INV-1: dependency order", CheckDeployOrder(p, first))
	wantSame(t, "apps synced by the failed deploy", s.started(first), []string{"cache", "database", "metrics", "network"})
	s.wantConverged("network", "cache", "metrics")
	if _, h := status(s.apps()["database"]); h != "Degraded" {
		t.Errorf("database is %s, want Degraded", h)
	}

	t.Run("validate reports the failure", func(t *testing.T) {
		r := s.run("validate", ExitPartial, deployer)
		wantIn(t, "report", string(r.Report), `"app":"database"`, "Degraded")
	})

	t.Run("resume", func(t *testing.T) {
		if err := s.pl.Fix(s.ctx, []string{"database"}); err != nil {
			t.Fatal(err)
		}
		mark := s.pl.Timeline.Mark()
		s.run("deploy", ExitOK, deployer)
		s.settle()
		// database turned Healthy when its operator recovered, at the
		// revision it was synced to: it needs no sync either.
		wantSame(t, "apps synced by the resumed deploy", s.started(s.pl.Timeline.Since(mark)), []string{"api", "web"})
		wantNone(t, "INV-1: dependency order", CheckDeployOrder(p, s.pl.Timeline.Events()))
		s.wantConverged()
	})

	t.Run("teardown with every volume snapshotted", func(t *testing.T) {
		mark := s.pl.Timeline.Mark()
		s.run("teardown", ExitOK, deployer, "TEARDOWN_CONFIRM="+p.Platform.Name, "PV_POLICY=snapshot")
		s.settle()
		wantNone(t, "INV-5: reverse order", CheckTeardownOrder(p, s.pl.Timeline.Since(mark)))
		snapshot := ir.VolumesSnapshot
		s.wantVolumes(&snapshot)
	})
}

// A teardown of a platform that never finished deploying: cache's pods
// never start, so metrics was never synced and its claim, which its
// retain policy would protect, does not exist. The teardown removes
// every platform app anyway; an Application the platform does not
// declare, left in its project, makes it exit 2 (orphans remain). Once
// that is gone, a second teardown finds nothing to do.
func TestTeardownPartlyDeployed(t *testing.T) {
	s := start(t, shop, "cache")
	p := s.pl.Program
	s.run("deploy", ExitPartial)
	s.settle()
	wantSame(t, "apps synced", s.started(s.pl.Timeline.Events()), []string{"api", "cache", "database", "network", "web"})

	orphan := s.orphan("legacy-ui")
	mark := s.pl.Timeline.Mark()
	r := s.run("teardown", ExitPartial, "TEARDOWN_CONFIRM="+p.Platform.Name)
	wantIn(t, "report", string(r.Report), `"name":"legacy-ui","reason":"left in project shop; the platform does not declare it"`)
	s.settle()
	wantNone(t, "INV-5: reverse order", CheckTeardownOrder(p, s.pl.Timeline.Since(mark)))
	if left := s.apps(); len(left) > 0 {
		t.Errorf("%d Applications left after teardown", len(left))
	}
	orphan()
	r = s.run("teardown", ExitOK, "TEARDOWN_CONFIRM="+p.Platform.Name)
	wantIn(t, "report", string(r.Report), "already removed")
}

// TARGET_SCOPE: a stack whose outside dependency is not Healthy is
// refused before anything of it syncs; once the dependency is deployed,
// the stack deploys alone. The platform here declares no snapshot
// policy, so a teardown asking for snapshots is refused before it starts
// instead of failing at its first snapshot.
func TestScopedRuns(t *testing.T) {
	// The shop without its snapshot policy.
	b, err := os.ReadFile(filepath.Join(shop, "platform.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"database-running.yaml", "database-failed.yaml"} {
		data, err := os.ReadFile(filepath.Join(shop, "testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "testdata", f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := strings.Replace(string(b), `volumes = "snapshot"`, `volumes = "delete"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "platform.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s := start(t, dir)
	p := s.pl.Program

	t.Run("dependency not healthy", func(t *testing.T) {
		mark := s.pl.Timeline.Mark()
		r := s.run("deploy", ExitFailure, "TARGET_SCOPE=stack:services")
		wantIn(t, "report", string(r.Report), "A failed check of a dependency outside TARGET_SCOPE means that app is not Healthy")
		s.settle()
		wantNone(t, "apps synced by a refused scope", s.started(s.pl.Timeline.Since(mark)))
	})
	t.Run("dependency first", func(t *testing.T) {
		mark := s.pl.Timeline.Mark()
		s.run("deploy", ExitOK, "TARGET_SCOPE=stack:base")
		s.settle()
		wantSame(t, "apps synced for stack:base", s.started(s.pl.Timeline.Since(mark)), []string{"database", "network"})
	})
	t.Run("then the stack alone", func(t *testing.T) {
		mark := s.pl.Timeline.Mark()
		s.run("deploy", ExitOK, "TARGET_SCOPE=stack:services")
		s.settle()
		wantSame(t, "apps synced for stack:services", s.started(s.pl.Timeline.Since(mark)), []string{"api", "web"})
		s.wantConverged("network", "database", "api", "web")
		wantNone(t, "INV-1: dependency order", CheckDeployOrder(p, s.pl.Timeline.Events()))
	})
	t.Run("snapshot refused without its RBAC", func(t *testing.T) {
		before := s.workflows()
		r := s.run("teardown", ExitInvalid, "TEARDOWN_CONFIRM="+p.Platform.Name, "PV_POLICY=snapshot")
		if !strings.Contains(string(r.Report), "snapshot") {
			t.Errorf("the report does not say why:\n%s", r.Report)
		}
		if s.workflows() != before {
			t.Error("a refused teardown submitted a Workflow")
		}
	})
	t.Run("teardown", func(t *testing.T) {
		mark := s.pl.Timeline.Mark()
		s.run("teardown", ExitOK, "TEARDOWN_CONFIRM="+p.Platform.Name, "PV_POLICY=delete")
		s.settle()
		wantNone(t, "INV-5: reverse order", CheckTeardownOrder(p, s.pl.Timeline.Since(mark)))
		del := ir.VolumesDelete
		s.wantVolumes(&del)
	})
}
