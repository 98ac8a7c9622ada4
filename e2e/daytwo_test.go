package e2e

import (
	"encoding/json"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Issue 20, on a running platform: a day-2 version of the shop removes
// cache together with metrics, which depends on it, and changes api's
// values. Deploy without consent syncs only api (INV-6: nothing else
// changed), reports the two removed apps with their recorded
// dependencies, deletes nothing and exits 2. With PRUNE=true deploy
// deletes them dependents first (metrics before cache), each under the
// volume policy it recorded (metrics delete: its claim goes; cache
// retain: its claim stays), syncs nothing, and exits 0; a third deploy
// finds nothing to do.
func TestDayTwoRemovalAndChange(t *testing.T) {
	v1 := shopWith(t, `  teardown {
    volumes = "retain"
  }
}

health`, `  teardown {
    volumes = "delete"
  }
}

health`)
	s := start(t, v1)
	s.run("deploy", ExitOK)
	s.settle()
	s.wantConverged()
	metrics, cache := *s.pl.Program.App("metrics"), *s.pl.Program.App("cache")

	// v2: cache and metrics removed, api's host changed.
	v2 := shopWith(t,
		`host = "api.${env.domain}"`, `host = "api-v2.${env.domain}"`,
		`app "cache" {
  namespace         = "cache"
  expected_duration = "30s"
  source {
    chart    = "cache"
    repo_url = "https://charts.shop.test/stable"
    version  = "0.3.0"
  }
  teardown {
    volumes = "retain"
  }
}`, ``,
		`app "metrics" {
  namespace         = "metrics"
  depends_on        = [app.cache]
  expected_duration = "30s"
  source {
    chart    = "metrics"
    repo_url = "https://charts.shop.test/stable"
    version  = "4.2.0"
  }
  teardown {
    volumes = "retain"
  }
}`, ``)
	if err := s.pl.Change(s.ctx, v2); err != nil {
		t.Fatal(err)
	}

	t.Run("reported without consent, changed app synced", func(t *testing.T) {
		mark := s.pl.Timeline.Mark()
		r := s.run("deploy", ExitPartial)
		s.settle()
		wantSame(t, "apps synced by the day-2 deploy", s.started(s.pl.Timeline.Since(mark)), []string{"api"})
		got := removedApps(t, r.Report)
		if len(got) != 2 || got[0].Application != "metrics" || got[1].Application != "cache" {
			t.Fatalf("removed apps %+v, want metrics then cache", got)
		}
		if got[0].Status != "left" || len(got[0].DependsOn) != 1 || got[0].DependsOn[0] != "cache" {
			t.Errorf("metrics reported as %+v, want left, depending on cache", got[0])
		}
		wantIn(t, "report", string(r.Report), "PRUNE=true")
		for _, name := range []string{metrics.Application, cache.Application} {
			if _, err := s.env.Dynamic.Resource(applicationGVR).Namespace(s.pl.Program.Platform.ArgoCD.Namespace).Get(s.ctx, name, metav1.GetOptions{}); err != nil {
				t.Errorf("a deploy without PRUNE=true: Application %s: %v", name, err)
			}
		}
	})

	t.Run("pruned in reverse order under their volume policies", func(t *testing.T) {
		mark := s.pl.Timeline.Mark()
		s.run("deploy", ExitOK, "PRUNE=true")
		s.settle()
		evs := s.pl.Timeline.Since(mark)
		wantNone(t, "sync operations of a prune-only deploy", s.started(evs))
		gone, ok1 := First(evs, "metrics", Deleted)
		dep, ok2 := First(evs, "cache", Deleted)
		switch {
		case !ok1 || !ok2:
			t.Fatalf("metrics deleted %v, cache deleted %v", ok1, ok2)
		case dep.Before(gone):
			t.Errorf("cache was deleted at %s, before metrics, which depended on it, at %s", dep.Format(timeFormat), gone.Format(timeFormat))
		}
		if _, err := s.env.Kube.CoreV1().PersistentVolumeClaims(metrics.Namespace).Get(s.ctx, claimName(&metrics), metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("metrics recorded volumes delete, but its claim is still there (%v)", err)
		}
		if _, err := s.env.Kube.CoreV1().PersistentVolumeClaims(cache.Namespace).Get(s.ctx, claimName(&cache), metav1.GetOptions{}); err != nil {
			t.Errorf("cache recorded volumes retain, but its claim is gone: %v", err)
		}
		s.wantConverged()
	})

	t.Run("nothing left to do", func(t *testing.T) {
		before := s.workflows()
		r := s.run("deploy", ExitOK, "PRUNE=true")
		if len(removedApps(t, r.Report)) != 0 || s.workflows() != before {
			t.Errorf("a converged day-2 platform still had work:\n%s", r.Report)
		}
	})
}

type removedEntry struct {
	Application string   `json:"application"`
	DependsOn   []string `json:"depends_on"`
	Status      string   `json:"status"`
}

func removedApps(t *testing.T, report []byte) []removedEntry {
	t.Helper()
	var r struct {
		RemovedApps []removedEntry `json:"removed_apps"`
	}
	if err := json.Unmarshal(report, &r); err != nil {
		t.Fatalf("report: %v\n%s", err, report)
	}
	return r.RemovedApps
}
