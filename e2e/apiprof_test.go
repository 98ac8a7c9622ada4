package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/platc/platc/internal/testenv"
)

// TestMain stops the shared API server (internal/testenv) the tests of
// this package start.
func TestMain(m *testing.M) {
	code := m.Run()
	testenv.Stop()
	os.Exit(code)
}

// The bench's request table counts what a real kube-apiserver served
// between two samples of its /metrics: exactly the creates made in
// between, and the watch events sent to a watcher.
func TestAPIMetricsCountRequests(t *testing.T) {
	srv := testenv.Require(t)
	kc, _ := srv.Clients(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ns := "apiprof-test"
	if _, err := kc.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e := &Env{URL: srv.URL, apiCA: srv.CA, AdminToken: testenv.AdminToken}
	w, err := kc.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	before, err := e.apiMetrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const n = 7
	for i := 0; i < n; i++ {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}, Data: map[string]string{"k": strings.Repeat("x", 1000)}}
		if _, err := kc.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < n; i++ {
		select {
		case <-w.ResultChan():
		case <-ctx.Done():
			t.Fatal("the watch did not see the creates")
		}
	}
	if _, err := kc.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	after, err := e.apiMetrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rows, watch := apiDelta(before, after)
	find := func(verb, res string) apiRow {
		for _, r := range rows {
			if r.Verb == verb && r.Resource == res {
				return r
			}
		}
		t.Fatalf("no %s %s in the table:\n%s", verb, res, apiTable(rows, watch, 50))
		return apiRow{}
	}
	if c := find("POST", "configmaps"); c.Count != n || c.Seconds <= 0 {
		t.Errorf("POST configmaps: %+v, want %d requests and their latency", c, n)
	}
	if l := find("LIST", "configmaps"); l.Count != 1 || l.ResponseBytes < n*1000 {
		t.Errorf("LIST configmaps: %+v, want 1 request of at least %d bytes", l, n*1000)
	}
	var cm *watchRow
	for i := range watch {
		if watch[i].Resource == "configmaps" {
			cm = &watch[i]
		}
	}
	if cm == nil || cm.Events < n || cm.Bytes < n*1000 {
		t.Errorf("watch events of ConfigMaps: %+v, want at least %d events of at least %d bytes", cm, n, n*1000)
	}
	t.Logf("\n%s", apiTable(rows, watch, 10))
}

func TestClientName(t *testing.T) {
	for _, c := range []struct{ agent, user, want string }{
		{"argocd-application-controller/v3.2.6 (linux/amd64) kubernetes/1234567", "system:serviceaccount:argocd:argocd-application-controller",
			"argocd-application-controller as system:serviceaccount:argocd:argocd-application-controller"},
		{"argo-workflows/v3.7.3 argo-controller", "admin", "argo-workflows"},
		{"kube-controller-manager/v1.34.1 (linux/amd64) kubernetes/abc/system:serviceaccount:kube-system:replicaset-controller", "admin",
			"kube-controller-manager/replicaset-controller"},
		{"", "", "(no user agent)"},
	} {
		if got := clientName(c.agent, c.user); got != c.want {
			t.Errorf("clientName(%q, %q) = %q, want %q", c.agent, c.user, got, c.want)
		}
	}
}

// The audit and debug-log readers count what they are given, from since
// on, and skip what is not theirs (the lines are in the formats
// kube-apiserver's JSON audit backend and Argo CD's JSON logger write).
func TestAuditClientsAndRefreshCauses(t *testing.T) {
	dir := t.TempDir()
	e := &Env{opts: Options{Dir: dir}}
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	ev := func(stage, at, verb, res, sub, agent string) string {
		return fmt.Sprintf(`{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","stage":%q,"verb":%q,"user":{"username":"admin"},"userAgent":%q,"objectRef":{"resource":%q,"subresource":%q},"requestReceivedTimestamp":%q}`,
			stage, verb, agent, res, sub, at)
	}
	audit := strings.Join([]string{
		ev("ResponseComplete", "2026-01-01T10:00:00.000000Z", "update", "workflows", "", "argo-workflows/v3 argo-controller"),
		ev("ResponseComplete", "2026-01-01T10:00:01.000000Z", "update", "workflows", "", "argo-workflows/v3 argo-controller"),
		ev("ResponseComplete", "2026-01-01T10:00:02.000000Z", "patch", "pods", "status", "kwok/v0.7"),
		ev("RequestReceived", "2026-01-01T10:00:02.000000Z", "create", "pods", "exec", "argo-workflows/v3 argo-controller"),
		ev("ResponseComplete", "2026-01-01T09:59:59.000000Z", "update", "workflows", "", "argo-workflows/v3 argo-controller"),
		"not json",
	}, "\n") + "\n"
	if err := os.WriteFile(e.auditLog(), []byte(audit), 0o644); err != nil {
		t.Fatal(err)
	}
	since := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	rows, err := e.auditClients(since)
	if err != nil {
		t.Fatal(err)
	}
	want := []clientRow{{"argo-workflows", "update", "workflows", 2}, {"kwok", "patch", "pods/status", 1}}
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Errorf("auditClients = %v, want %v", rows, want)
	}
	line := func(at, app, kind string, level int, msg string) string {
		return fmt.Sprintf(`{"api-version":"v1","app-namespace":"argocd","application":%q,"comparison-level":%d,"kind":%q,"level":"debug","msg":%q,"name":"x","namespace":"ns","time":%q}`,
			app, level, kind, msg, at)
	}
	const req = "Requesting app refresh caused by object update"
	log := strings.Join([]string{
		line("2026-01-01T10:00:00Z", "app-1", "Pod", 0, req),
		line("2026-01-01T10:00:01Z", "app-2", "Pod", 0, req),
		line("2026-01-01T10:00:01Z", "platc-root", "Application", 1, req),
		line("2026-01-01T09:00:01Z", "platc-root", "Application", 1, req),
		line("2026-01-01T10:00:03Z", "", "ReplicaSet", 0, "Ignoring change of object because none of the watched resource fields have changed"),
		`{"level":"info","msg":"Reconciliation completed","time":"2026-01-01T10:00:03Z"}`,
	}, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "logs", "argocd-application-controller.log"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	causes, ignored, err := e.refreshCauses("platc-root", since)
	if err != nil {
		t.Fatal(err)
	}
	wantCauses := []refreshCause{{"Pod", "app", 0, 2}, {"Application", "root", 1, 1}}
	if fmt.Sprint(causes) != fmt.Sprint(wantCauses) || fmt.Sprint(ignored) != "map[ReplicaSet:1]" {
		t.Errorf("refreshCauses = %v, %v; want %v, map[ReplicaSet:1]", causes, ignored, wantCauses)
	}
}

// TestAPIDelta: what served nothing between the samples is left out, the
// rest is after less before, requests most first (ties by verb and
// resource) and watch events most bytes first (ties by resource).
func TestAPIDelta(t *testing.T) {
	before := apiSample{
		requests: map[apiKey]*apiRow{
			{"GET", "pods"}:  {Verb: "GET", Resource: "pods", Count: 5, Seconds: 1, ResponseBytes: 100},
			{"LIST", "pods"}: {Verb: "LIST", Resource: "pods", Count: 2},
		},
		watch: map[string]*watchRow{"pods": {Resource: "pods", Events: 3, Bytes: 30}},
	}
	after := apiSample{
		requests: map[apiKey]*apiRow{
			{"GET", "pods"}:        {Verb: "GET", Resource: "pods", Count: 8, Seconds: 1.5, ResponseBytes: 400},
			{"LIST", "pods"}:       {Verb: "LIST", Resource: "pods", Count: 2},
			{"POST", "configmaps"}: {Verb: "POST", Resource: "configmaps", Count: 3},
			{"PATCH", "secrets"}:   {Verb: "PATCH", Resource: "secrets", Count: 4},
		},
		watch: map[string]*watchRow{
			"pods":       {Resource: "pods", Events: 5, Bytes: 50},
			"configmaps": {Resource: "configmaps", Events: 1, Bytes: 20},
			"secrets":    {Resource: "secrets", Events: 2, Bytes: 20},
			"nodes":      {Resource: "nodes"},
		},
	}
	rows, watch := apiDelta(before, after)
	want := []apiRow{
		{Verb: "PATCH", Resource: "secrets", Count: 4},
		{Verb: "GET", Resource: "pods", Count: 3, Seconds: 0.5, ResponseBytes: 300},
		{Verb: "POST", Resource: "configmaps", Count: 3},
	}
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Errorf("requests %+v, want %+v", rows, want)
	}
	wantWatch := []watchRow{{Resource: "configmaps", Events: 1, Bytes: 20}, {Resource: "pods", Events: 2, Bytes: 20}, {Resource: "secrets", Events: 2, Bytes: 20}}
	if fmt.Sprint(watch) != fmt.Sprint(wantWatch) {
		t.Errorf("watch events %+v, want %+v", watch, wantWatch)
	}
}
