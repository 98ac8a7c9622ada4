package detect

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/platc/platc/manifest"
)

// job wraps containers in a Job, optionally a PreSync hook, in namespace
// "app".
func job(presync bool, containers string) string {
	ann := ""
	if presync {
		ann = "  annotations:\n    argocd.argoproj.io/hook: PreSync\n"
	}
	return "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  namespace: app\n" + ann +
		"spec:\n  template:\n    spec:\n      containers:\n" + containers
}

// What each kind of wait names, so platc import can find the app that
// provides it.
func TestWaitTargets(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []Target
	}{
		{"kubectl wait on a custom resource in another namespace", job(false, `        - name: w
          image: bitnami/kubectl:1.31
          args: ["kubectl wait --for=condition=Ready postgresql/platform-db -n databases --timeout=600s"]
`), []Target{{Kind: TargetObject, Namespace: "databases", Resource: "postgresql", Name: "platform-db"}}},
		{"rollout status, type and name apart, exec form", job(false, `        - name: w
          image: bitnami/kubectl:1.31
          command: ["kubectl", "rollout", "status", "statefulset", "vault", "--namespace", "vault"]
`), []Target{{Kind: TargetObject, Namespace: "vault", Resource: "statefulset", Name: "vault"}}},
		{"CRD existence loop in a PreSync hook", job(true, `        - name: w
          image: bitnami/kubectl:1.31
          command: ["/bin/sh", "-c"]
          args:
            - |
              until kubectl get crd cephclusters.ceph.rook.io >/dev/null 2>&1; do sleep 5; done
              kubectl wait --for condition=established crd/postgresqls.acid.zalan.do
`), []Target{
			{Kind: TargetCRD, Resource: "crd", Name: "cephclusters.ceph.rook.io"},
			{Kind: TargetCRD, Resource: "crd", Name: "postgresqls.acid.zalan.do"},
		}},
		{"selector in another namespace", job(false, `        - name: w
          image: bitnami/kubectl:1.31
          args: ["kubectl wait --for=condition=Ready pod -l app.kubernetes.io/name=vault -n vault"]
`), []Target{{Kind: TargetObject, Namespace: "vault", Resource: "pod", Selector: "app.kubernetes.io/name=vault"}}},
		{"probe loops: service hosts, env, URL with credentials", job(true, `        - name: w
          image: postgres:16
          env:
            - name: VAULT_ADDR
              value: http://vault.vault.svc:8200
            - name: DB
              value: platform-db.databases.svc.cluster.local
          command: ["sh", "-c"]
          args:
            - |
              until pg_isready -h $DB -p 5432; do sleep 2; done
              until curl -fsS $VAULT_ADDR/v1/sys/health; do sleep 2; done
              while ! psql postgres://app:secret@keycloak-db.identity:5432/app -c 'select 1'; do sleep 2; done
`), []Target{
			{Kind: TargetHost, Namespace: "databases", Name: "platform-db", Host: "platform-db.databases.svc.cluster.local"},
			{Kind: TargetHost, Namespace: "vault", Name: "vault", Host: "vault.vault.svc"},
			{Kind: TargetHost, Namespace: "identity", Name: "keycloak-db", Host: "keycloak-db.identity"},
		}},
		{"wait helpers: k8s-wait-for image, wait-for-it host:port", job(false, `        - name: db
          image: groundnuty/k8s-wait-for:v2.0
          args: ["service", "postgres", "-n", "databases"]
        - name: wait-for-redis
          image: busybox
          command: ["sh", "-c", "wait-for-it redis-master.redis.svc:6379 -t 300"]
`), []Target{
			{Kind: TargetObject, Namespace: "app", Resource: "service", Name: "postgres"},
			{Kind: TargetHost, Namespace: "redis", Name: "redis-master", Host: "redis-master.redis.svc"},
		}},
		{"a loop ends at done: the line after it is no wait", job(false, `        - name: seed
          image: postgres:16
          command: ["sh", "-c"]
          args:
            - |
              until psql "postgres://app@platform-db.databases:5432/app" -c 'select 1'; do
                sleep 2
              done
              psql "postgres://app@platform-db.databases:5432/app" -f /seed/schema.sql
`), []Target{{Kind: TargetHost, Namespace: "databases", Name: "platform-db", Host: "platform-db.databases"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, objs, d := manifest.Parse("job.yaml", []byte(tc.src))
			if d != nil || len(objs) != 1 {
				t.Fatalf("parse: %v, %d objects", d, len(objs))
			}
			var got []Target
			for _, w := range Waits(objs[0], objs[0].Namespace) {
				got = append(got, w.Targets...)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("targets (-want +got):\n%s", diff)
			}
		})
	}
}
