package step

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeTree is a simulated argocd-server answering GET
// /api/v1/applications/NAME/resource-tree for one Application, serving
// one tree per call from a script (the last one from then on). It is
// simulated so the cases can be driven into states on demand (a resource
// that appears late, one that is Degraded, two that match); the real
// server runs the step in the e2e (e2e/shop_test.go). Like the real one
// it checks the bearer token, speaks HTTP/1.1 only, and answers 403
// "permission denied" for an Application it does not have, which is what
// argocd-server says for one that does not exist.
type fakeTree struct {
	mu     sync.Mutex
	app    string
	trees  [][]ResourceNode
	calls  int
	failAt int // answer 500 on this call (1-based); 0: never
}

func (f *fakeTree) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.ProtoMajor != 1 {
		http.Error(w, "argocd-server routes HTTP/2 to gRPC only", http.StatusBadRequest)
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+token {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"error":"invalid session","code":16,"message":"invalid session: token is invalid"}`)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Method != http.MethodGet || r.URL.Path != "/api/v1/applications/"+f.app+"/resource-tree" {
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `{"error":"permission denied","code":7,"message":"permission denied"}`)
		return
	}
	f.calls++
	if f.calls == f.failAt {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, `{"error":"redis down","code":13,"message":"error getting cached app resource tree: redis down"}`)
		return
	}
	tree := f.trees[min(f.calls, len(f.trees))-1]
	_ = json.NewEncoder(w).Encode(map[string]any{"nodes": tree})
}

func node(group, kind, ns, name, health string) ResourceNode {
	n := ResourceNode{Group: group, Version: "v1", Kind: kind, Namespace: ns, Name: name}
	if health != "" {
		n.Health = &struct {
			Status  string `json:"status"`
			Message string `json:"message"`
		}{Status: health, Message: "from the fake: " + health}
	}
	return n
}

func runWait(t *testing.T, f *fakeTree, in ResourceInput) (int, string, int) {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c := NewClient(Config{Server: strings.TrimPrefix(srv.URL, "http://"), Token: token, PlainText: true})
	if in.App == "" {
		in.App = "ceph-cluster"
	}
	if in.Poll == 0 {
		in.Poll = 10 * time.Millisecond
	}
	if in.Timeout == 0 {
		in.Timeout = 2 * time.Second
	}
	var out bytes.Buffer
	code := WaitResource(context.Background(), c, in, &out)
	return code, out.String(), f.calls
}

func TestWaitResource(t *testing.T) {
	sc := func(h string) ResourceNode { return node("storage.k8s.io", "StorageClass", "", "ceph-block", h) }
	dep := func(ns, h string) ResourceNode { return node("apps", "Deployment", ns, "webhook", h) }
	storage := ResourceInput{Group: "storage.k8s.io", Kind: "StorageClass", Name: "ceph-block", Exists: true}
	webhook := ResourceInput{Group: "apps", Kind: "Deployment", Name: "webhook", Namespace: "cert-manager"}
	for _, tc := range []struct {
		name  string
		trees [][]ResourceNode
		in    ResourceInput
		app   string
		fail  int
		code  int
		calls int
		out   string
	}{
		{name: "exists at once", trees: [][]ResourceNode{{sc("")}}, in: storage, code: ExitOK, calls: 1, out: "exists"},
		{name: "appears later", trees: [][]ResourceNode{{}, {dep("cert-manager", "Healthy")}, {sc("")}}, in: storage, code: ExitOK, calls: 3, out: "exists"},
		{name: "healthy after progressing", trees: [][]ResourceNode{{dep("cert-manager", "Progressing")}, {dep("cert-manager", "Healthy")}}, in: webhook, code: ExitOK, calls: 2, out: "Healthy"},
		{name: "degraded is final", trees: [][]ResourceNode{{dep("cert-manager", "Degraded")}}, in: webhook, code: ExitNotRetried, calls: 1, out: "Degraded (from the fake: Degraded); not retried"},
		{name: "other namespace does not count", trees: [][]ResourceNode{{dep("other", "Healthy")}}, in: withTimeout(webhook, 100*time.Millisecond), code: ExitNotRetried, out: "still not Healthy after 100ms; not retried: the Application's live apps/Deployment resources: other/webhook (Healthy)"},
		{name: "missing with other names", trees: [][]ResourceNode{{node("storage.k8s.io", "StorageClass", "", "ceph-blok", "")}}, in: withTimeout(storage, 100*time.Millisecond), code: ExitNotRetried, out: "still does not exist after 100ms; not retried: the Application's live storage.k8s.io/StorageClass resources: ceph-blok"},
		{name: "nothing of the kind", trees: [][]ResourceNode{{}}, in: withTimeout(storage, 100*time.Millisecond), code: ExitNotRetried, out: "the Application has no live storage.k8s.io/StorageClass at all"},
		{name: "ambiguous without namespace", trees: [][]ResourceNode{{dep("b", "Healthy"), dep("a", "Healthy")}}, in: ResourceInput{Group: "apps", Kind: "Deployment", Name: "webhook"}, code: ExitNotRetried, calls: 1, out: "2 resources match (a/webhook, b/webhook); not retried: set namespace"},
		{name: "call fails", trees: [][]ResourceNode{{sc("")}}, in: storage, fail: 1, code: ExitRetry, calls: 1, out: "cannot read the resource tree: error getting cached app resource tree: redis down (HTTP 500)"},
		{name: "unknown application", trees: [][]ResourceNode{{sc("")}}, in: storage, app: "ceph-clustr", code: ExitRetry, out: "permission denied (HTTP 403)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeTree{app: "ceph-cluster", trees: tc.trees, failAt: tc.fail}
			in := tc.in
			in.App = tc.app
			code, out, calls := runWait(t, f, in)
			if code != tc.code {
				t.Errorf("exit %d, want %d; output:\n%s", code, tc.code, out)
			}
			if !strings.Contains(out, tc.out) {
				t.Errorf("output lacks %q:\n%s", tc.out, out)
			}
			if tc.calls > 0 && calls != tc.calls {
				t.Errorf("%d calls, want %d", calls, tc.calls)
			}
		})
	}
}

func withTimeout(in ResourceInput, d time.Duration) ResourceInput {
	in.Timeout = d
	return in
}

func TestResourceInputFromEnv(t *testing.T) {
	good := map[string]string{"APP": "ceph-cluster", "GROUP": "storage.k8s.io", "KIND": "StorageClass", "NAME": "ceph-block", "WAIT": "exists", "TIMEOUT": "300"}
	in, err := ResourceInputFromEnv(func(k string) string { return good[k] })
	if err != nil {
		t.Fatal(err)
	}
	if !in.Exists || in.Timeout != 300*time.Second || in.kindKey() != "storage.k8s.io/StorageClass" || in.Namespace != "" {
		t.Errorf("read %+v", in)
	}
	for key, bad := range map[string]string{
		"APP": "../sessions", "GROUP": "Storage/x", "KIND": "Storage Class", "NAME": "a/b",
		"NAMESPACE": "Kube_System", "WAIT": "ready", "TIMEOUT": "5m",
	} {
		env := map[string]string{}
		for k, v := range good {
			env[k] = v
		}
		env[key] = bad
		if _, err := ResourceInputFromEnv(func(k string) string { return env[k] }); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s=%q: error %v, want one naming %s", key, bad, err, key)
		}
	}
}
