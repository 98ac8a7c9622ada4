package step

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeArgoCD is a simulated argocd-server REST API for one Application.
// It is simulated because a real Argo CD cannot be driven on demand into
// the states these cases need (an operation still running when the step
// starts, a failed last operation on a healthy app, Unknown health, a
// stream that breaks); the real server runs the same step in
// e2e/steps_test.go. It is never kinder than the real one: it checks the
// bearer token, answers 403 "permission denied" to an update it does not
// allow, refuses a sync while an operation is in progress, and its watch
// applies argocd-server's rule of skipping versions older than the
// resourceVersion asked for.
type fakeArgoCD struct {
	t  *testing.T
	mu sync.Mutex
	// cur is the Application as stored; rv its resourceVersion.
	cur Application
	rv  int
	// queue holds the changes to come, applied one by one while a watch
	// is open, as the application controller would make them.
	queue []Application
	// onSync is queued when a sync is accepted: the operation's course.
	onSync []Application
	// allowPatch is the RBAC update right on this app.
	allowPatch bool
	// endStreamAfter ends each watch stream after that many changes (0:
	// never), as a proxy or a restarting server would.
	endStreamAfter int
	calls          []string
	patches        []string
}

const token = "automation-token"

func newFake(t *testing.T, initial Application) (*fakeArgoCD, *Client) {
	f := &fakeArgoCD{t: t, cur: initial, rv: 100}
	f.cur.Metadata.ResourceVersion = "100"
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c := NewClient(Config{Server: strings.TrimPrefix(srv.URL, "http://"), Token: token, PlainText: true})
	return f, c
}

// apply makes a the stored Application, at a new resourceVersion.
func (f *fakeArgoCD) apply(a Application) {
	f.rv++
	a.Metadata.Name = "web"
	a.Metadata.ResourceVersion = strconv.Itoa(f.rv)
	if a.Spec.SyncPolicy == nil {
		a.Spec = f.cur.Spec
	}
	f.cur = a
}

func (f *fakeArgoCD) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
	call := r.Method + " " + r.URL.Path
	if q := r.URL.Query().Get("refresh"); q != "" {
		call += " refresh=" + q
	}
	f.calls = append(f.calls, call)
	f.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/v1/applications/web":
		f.mu.Lock()
		defer f.mu.Unlock()
		_ = json.NewEncoder(w).Encode(f.cur)
	case r.Method == http.MethodPost && r.URL.Path == "/api/v1/applications/web/sync":
		f.mu.Lock()
		defer f.mu.Unlock()
		if f.cur.operating() {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"code":9,"message":"another operation is already in progress"}`)
			return
		}
		next := f.cur
		next.Operation = json.RawMessage(`{"sync":{}}`)
		f.apply(next)
		f.queue = append(f.queue, f.onSync...)
		_ = json.NewEncoder(w).Encode(f.cur)
	case r.Method == http.MethodPatch && r.URL.Path == "/api/v1/applications/web":
		f.mu.Lock()
		defer f.mu.Unlock()
		if !f.allowPatch {
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"error":"permission denied: applications, update, platform/web, sub: platc-automation","code":7,"message":"permission denied: applications, update, platform/web, sub: platc-automation"}`)
			return
		}
		var req struct{ Name, Patch, PatchType string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.PatchType != "merge" || req.Name != "web" {
			http.Error(w, `{"message":"bad patch request"}`, http.StatusBadRequest)
			return
		}
		f.patches = append(f.patches, req.Patch)
		var p struct {
			Spec struct {
				SyncPolicy struct {
					Automated *Automated `json:"automated"`
				} `json:"syncPolicy"`
			} `json:"spec"`
		}
		if err := json.Unmarshal([]byte(req.Patch), &p); err != nil {
			http.Error(w, `{"message":"bad patch"}`, http.StatusBadRequest)
			return
		}
		next := f.cur
		next.Spec.SyncPolicy = &struct {
			Automated *Automated `json:"automated,omitempty"`
		}{p.Spec.SyncPolicy.Automated}
		f.apply(next)
		_ = json.NewEncoder(w).Encode(f.cur)
	case r.Method == http.MethodGet && r.URL.Path == "/api/v1/stream/applications":
		f.stream(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (f *fakeArgoCD) stream(w http.ResponseWriter, r *http.Request) {
	if r.URL.Query().Get("name") != "web" {
		http.Error(w, "want name=web", http.StatusBadRequest)
		return
	}
	min, _ := strconv.Atoi(r.URL.Query().Get("resourceVersion"))
	fl := w.(http.Flusher)
	changes := 0
	send := func(typ string, a Application) {
		if rv, _ := strconv.Atoi(a.Metadata.ResourceVersion); rv < min {
			return // argocd-server's rule: older versions are not sent
		}
		b, _ := json.Marshal(map[string]any{"result": map[string]any{"type": typ, "application": a}})
		w.Write(append(b, '\n'))
		fl.Flush()
	}
	f.mu.Lock()
	send("ADDED", f.cur)
	f.mu.Unlock()
	for {
		if f.endStreamAfter > 0 && changes >= f.endStreamAfter {
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-time.After(5 * time.Millisecond):
		}
		f.mu.Lock()
		if len(f.queue) > 0 {
			f.apply(f.queue[0])
			f.queue = f.queue[1:]
			send("MODIFIED", f.cur)
			changes++
		}
		f.mu.Unlock()
	}
}

// state is an Application with the given status; phase "" has no
// operation state; operating sets a requested operation.
func state(sync, health, revision, phase string, operating bool) Application {
	var a Application
	a.Metadata.Name = "web"
	a.Status.Sync.Status, a.Status.Sync.Revision = sync, revision
	a.Status.Health.Status = health
	if phase != "" {
		a.Status.OperationState = &struct {
			Phase   string `json:"phase"`
			Message string `json:"message"`
		}{Phase: phase}
	}
	if operating {
		a.Operation = json.RawMessage(`{"sync":{}}`)
	}
	return a
}

func withAutomated(a Application, selfHeal, prune bool) Application {
	a.Spec.SyncPolicy = &struct {
		Automated *Automated `json:"automated,omitempty"`
	}{&Automated{SelfHeal: selfHeal, Prune: prune}}
	return a
}

var input = SyncInput{App: "web", ExpectRevision: "1.2.3", SyncTimeout: 5 * time.Second, HealthTimeout: 5 * time.Second}

const (
	get     = "GET /api/v1/applications/web refresh=normal"
	syncReq = "POST /api/v1/applications/web/sync"
	watch   = "GET /api/v1/stream/applications"
	patch   = "PATCH /api/v1/applications/web"
)

// The operation's course after an accepted sync: running, then done.
func ran(final Application) []Application {
	running := state("OutOfSync", "Missing", "1.2.2", "Running", true)
	return []Application{running, final}
}

func TestSyncAndWait(t *testing.T) {
	synced := state("Synced", "Healthy", "1.2.3", "Succeeded", false)
	for _, c := range []struct {
		name    string
		initial Application
		onSync  []Application
		queue   []Application
		in      func(*SyncInput)
		setup   func(*fakeArgoCD)
		code    int
		calls   []string
		says    []string
	}{
		// INV-6: a converged app costs one read and starts nothing.
		{name: "converged: nothing to do", initial: synced, code: ExitOK,
			calls: []string{get}, says: []string{"already Synced and Healthy at revision 1.2.3; nothing to do"}},
		// A chart at another version than the one generated: sync.
		{name: "other revision", initial: state("Synced", "Healthy", "1.2.2", "Succeeded", false),
			onSync: ran(state("Synced", "Progressing", "1.2.3", "Succeeded", false)),
			queue:  []Application{synced},
			code:   ExitOK, says: []string{"syncing", "Synced and Healthy"}},
		// No expected revision (a branch): Synced is enough.
		{name: "no expected revision", initial: state("Synced", "Healthy", "abc", "Succeeded", false),
			in: func(in *SyncInput) { in.ExpectRevision = "" }, code: ExitOK, calls: []string{get}},
		// A failed last operation (a hook) with the resources Synced and
		// Healthy: sync again.
		{name: "last operation failed", initial: state("Synced", "Healthy", "1.2.3", "Failed", false),
			onSync: ran(synced), code: ExitOK, calls: []string{get, syncReq, watch, get}},
		// An operation someone else started: wait for it, then decide.
		{name: "operation running, then converged", initial: state("OutOfSync", "Progressing", "1.2.3", "Running", true),
			queue: []Application{synced}, code: ExitOK, calls: []string{get, watch, get},
			says: []string{"an operation is in progress", "nothing to do"}},
		// Progressing is waited for through the watch, without forcing
		// more refreshes.
		{name: "progressing, then healthy", initial: state("OutOfSync", "Missing", "1.2.2", "Succeeded", false),
			onSync: ran(state("Synced", "Progressing", "1.2.3", "Succeeded", false)),
			queue:  []Application{state("Synced", "Progressing", "1.2.3", "Succeeded", false), synced},
			code:   ExitOK, says: []string{"Synced and Healthy"}},
		// Degraded after the sync: at once, not retried (RFC 5.3).
		{name: "degraded after the sync", initial: state("OutOfSync", "Missing", "1.2.2", "Succeeded", false),
			onSync: ran(state("Synced", "Degraded", "1.2.3", "Succeeded", false)),
			code:   ExitNotRetried, calls: []string{get, syncReq, watch, get}, says: []string{"health is Degraded", "not retried"}},
		// A retry that finds the app Degraded already ends at once too,
		// not after its health timeout (issue 19, finding 4).
		{name: "degraded already", initial: state("Synced", "Degraded", "1.2.3", "Succeeded", false),
			onSync: ran(state("Synced", "Degraded", "1.2.3", "Succeeded", false)),
			code:   ExitNotRetried, calls: []string{get, syncReq, watch, get}},
		// Unknown is a failure (RFC 5.3), also when it comes later.
		{name: "unknown", initial: state("OutOfSync", "Missing", "1.2.2", "Succeeded", false),
			onSync: ran(state("Synced", "Progressing", "1.2.3", "Succeeded", false)),
			queue:  []Application{state("Synced", "Unknown", "1.2.3", "Succeeded", false)},
			code:   ExitNotRetried, says: []string{"health is Unknown"}},
		// Still Progressing when the health timeout ends: final.
		{name: "health timeout", initial: state("OutOfSync", "Missing", "1.2.2", "Succeeded", false),
			onSync: ran(state("Synced", "Progressing", "1.2.3", "Succeeded", false)),
			in:     func(in *SyncInput) { in.HealthTimeout = 200 * time.Millisecond },
			code:   ExitNotRetried, calls: []string{get, syncReq, watch, get, watch}, says: []string{"still Synced/Progressing after 200ms", "Raise its health timeout"}},
		{name: "health timeout zero", initial: state("OutOfSync", "Missing", "1.2.2", "Succeeded", false),
			onSync: ran(state("Synced", "Progressing", "1.2.3", "Succeeded", false)),
			in:     func(in *SyncInput) { in.HealthTimeout = 0 },
			code:   ExitNotRetried, calls: []string{get, syncReq, watch, get}},
		// A failed sync operation is what a retry can fix.
		{name: "sync operation fails", initial: state("OutOfSync", "Missing", "1.2.2", "Succeeded", false),
			onSync: ran(state("OutOfSync", "Missing", "1.2.2", "Failed", false)),
			code:   ExitRetry, calls: []string{get, syncReq, watch}, says: []string{"the sync operation ended Failed"}},
		// An operation that outlives the sync timeout: retried (the
		// task's deadline allows waiting for it once more).
		{name: "operation outlives the sync timeout", initial: state("OutOfSync", "Missing", "1.2.2", "Succeeded", false),
			onSync: []Application{state("OutOfSync", "Missing", "1.2.2", "Running", true)},
			in:     func(in *SyncInput) { in.SyncTimeout = 200 * time.Millisecond },
			code:   ExitRetry, calls: []string{get, syncReq, watch}, says: []string{"still running after 200ms"}},
		// Automated sync already on (an earlier deploy switched it on):
		// only wait, never race Argo CD's own sync.
		{name: "automated sync on: only waits", initial: withAutomated(state("OutOfSync", "Progressing", "1.2.2", "Succeeded", false), true, false),
			queue: []Application{withAutomated(synced, true, false)},
			code:  ExitOK, calls: []string{get, watch}, says: []string{"automated sync is on; waiting"}},
		// The stream breaks: watched again from the last version seen.
		{name: "watch ends and is resumed", initial: state("OutOfSync", "Missing", "1.2.2", "Succeeded", false),
			onSync: ran(state("Synced", "Progressing", "1.2.3", "Succeeded", false)),
			queue:  []Application{state("Synced", "Progressing", "1.2.3", "Succeeded", false), synced},
			setup:  func(f *fakeArgoCD) { f.endStreamAfter = 1 },
			code:   ExitOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, cl := newFake(t, c.initial)
			f.onSync, f.queue = c.onSync, c.queue
			if c.setup != nil {
				c.setup(f)
			}
			in := input
			if c.in != nil {
				c.in(&in)
			}
			var out bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			code := SyncAndWait(ctx, cl, in, &out)
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s\ncalls: %v", code, c.code, out.String(), f.calls)
			}
			if c.calls != nil && !slices.Equal(f.calls, c.calls) {
				t.Errorf("calls\n  %s\nwant\n  %s\n%s", strings.Join(f.calls, "\n  "), strings.Join(c.calls, "\n  "), out.String())
			}
			for _, s := range c.says {
				if !strings.Contains(out.String(), s) {
					t.Errorf("output lacks %q:\n%s", s, out.String())
				}
			}
		})
	}
}

func TestSyncAndWaitRefusals(t *testing.T) {
	t.Run("wrong token", func(t *testing.T) {
		_, cl := newFake(t, state("Synced", "Healthy", "1.2.3", "Succeeded", false))
		cl.token = "stale"
		var out bytes.Buffer
		if code := SyncAndWait(context.Background(), cl, input, &out); code != ExitRetry || !strings.Contains(out.String(), "token is invalid (HTTP 401)") {
			t.Errorf("exit %d:\n%s", code, out.String())
		}
	})
	t.Run("sync refused while an operation starts", func(t *testing.T) {
		// The operation appears between the read and the sync.
		f, _ := newFake(t, state("OutOfSync", "Missing", "1.2.2", "Succeeded", false))
		f.cur.Operation = nil
		var out bytes.Buffer
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				f.mu.Lock()
				f.cur.Operation = json.RawMessage(`{"sync":{}}`)
				f.mu.Unlock()
			}
			f.ServeHTTP(w, r)
		}))
		defer srv.Close()
		cl := NewClient(Config{Server: strings.TrimPrefix(srv.URL, "http://"), Token: token, PlainText: true})
		if code := SyncAndWait(context.Background(), cl, input, &out); code != ExitRetry || !strings.Contains(out.String(), "another operation is already in progress") {
			t.Errorf("exit %d:\n%s", code, out.String())
		}
	})
}

// Automated sync is switched on as the app converges, only when asked,
// and only once.
func TestAutoSync(t *testing.T) {
	synced := state("Synced", "Healthy", "1.2.3", "Succeeded", false)
	auto := input
	auto.AutoSync, auto.SelfHeal, auto.Prune = true, true, false

	t.Run("converged now: switched on", func(t *testing.T) {
		f, cl := newFake(t, state("OutOfSync", "Missing", "1.2.2", "Succeeded", false))
		f.onSync, f.allowPatch = ran(synced), true
		var out bytes.Buffer
		if code := SyncAndWait(context.Background(), cl, auto, &out); code != ExitOK {
			t.Fatalf("exit %d:\n%s", code, out.String())
		}
		want := []string{`{"spec":{"syncPolicy":{"automated":{"enabled":true,"selfHeal":true,"prune":false}}}}`}
		if !slices.Equal(f.patches, want) {
			t.Errorf("patches %v, want %v", f.patches, want)
		}
		if a := f.cur.automated(); a == nil || !a.SelfHeal || a.Prune {
			t.Errorf("automated %+v", a)
		}
	})
	t.Run("converged already: switched on without a sync", func(t *testing.T) {
		f, cl := newFake(t, synced)
		f.allowPatch = true
		var out bytes.Buffer
		if code := SyncAndWait(context.Background(), cl, auto, &out); code != ExitOK {
			t.Fatalf("exit %d:\n%s", code, out.String())
		}
		if !slices.Equal(f.calls, []string{get, patch}) {
			t.Errorf("calls %v", f.calls)
		}
	})
	t.Run("already on with the same settings: no update", func(t *testing.T) {
		f, cl := newFake(t, withAutomated(synced, true, false))
		var out bytes.Buffer
		if code := SyncAndWait(context.Background(), cl, auto, &out); code != ExitOK || len(f.patches) != 0 {
			t.Fatalf("exit %d, patches %v:\n%s", code, f.patches, out.String())
		}
	})
	t.Run("not asked: never updated", func(t *testing.T) {
		f, cl := newFake(t, synced)
		f.allowPatch = true
		var out bytes.Buffer
		if code := SyncAndWait(context.Background(), cl, input, &out); code != ExitOK || len(f.patches) != 0 {
			t.Fatalf("exit %d, patches %v:\n%s", code, f.patches, out.String())
		}
	})
	t.Run("not degraded: never switched on", func(t *testing.T) {
		f, cl := newFake(t, state("OutOfSync", "Missing", "1.2.2", "Succeeded", false))
		f.onSync, f.allowPatch = ran(state("Synced", "Degraded", "1.2.3", "Succeeded", false)), true
		var out bytes.Buffer
		if code := SyncAndWait(context.Background(), cl, auto, &out); code != ExitNotRetried || len(f.patches) != 0 {
			t.Fatalf("exit %d, patches %v:\n%s", code, f.patches, out.String())
		}
	})
	t.Run("refused by RBAC: a failure, retried", func(t *testing.T) {
		_, cl := newFake(t, synced)
		var out bytes.Buffer
		if code := SyncAndWait(context.Background(), cl, auto, &out); code != ExitRetry || !strings.Contains(out.String(), "permission denied") {
			t.Fatalf("exit %d:\n%s", code, out.String())
		}
	})
}

func TestInputFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	ok := map[string]string{"APP": "web", "SYNC_TIMEOUT": "300", "HEALTH_TIMEOUT": "600", "AUTO_SYNC": "true", "SELF_HEAL": "false", "PRUNE": "true"}
	in, err := SyncInputFromEnv(env(ok))
	if err != nil || in.SyncTimeout != 300*time.Second || !in.AutoSync || in.SelfHeal || !in.Prune {
		t.Fatalf("%+v %v", in, err)
	}
	for k, v := range map[string]string{"APP": "", "SYNC_TIMEOUT": "5m", "HEALTH_TIMEOUT": "-1", "AUTO_SYNC": "yes"} {
		if k == "APP" {
			for _, bad := range []string{"web/../api", "..", "Web", "web?refresh=hard", "web%2F..", "-web", "web.", strings.Repeat("a", 254)} {
				if _, err := SyncInputFromEnv(env(map[string]string{"APP": bad, "SYNC_TIMEOUT": "1", "HEALTH_TIMEOUT": "1"})); err == nil {
					t.Errorf("APP=%q accepted", bad)
				}
			}
		}
		bad := map[string]string{}
		for a, b := range ok {
			bad[a] = b
		}
		bad[k] = v
		if _, err := SyncInputFromEnv(env(bad)); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s=%q: %v", k, v, err)
		}
	}
	c, err := ConfigFromEnv(env(map[string]string{"ARGOCD_SERVER": "argocd-server.argocd.svc:80", "ARGOCD_AUTH_TOKEN": "t", "ARGOCD_OPTS": "--grpc-web --plaintext", "ALL_PROXY": "socks5://127.0.0.1:1080"}))
	if err != nil || !c.PlainText || c.Insecure || c.Proxy == nil {
		t.Fatalf("%+v %v", c, err)
	}
	if _, err := ConfigFromEnv(env(map[string]string{"ARGOCD_SERVER": "x:80", "ARGOCD_AUTH_TOKEN": "t", "ARGOCD_OPTS": "--core"})); err == nil {
		t.Error("--core accepted")
	}
	if _, err := ConfigFromEnv(env(map[string]string{"ARGOCD_SERVER": "x:80"})); err == nil || !strings.Contains(err.Error(), "token_secret") {
		t.Errorf("empty token: %v", err)
	}
}

// A redirect is reported, never followed (with the token) elsewhere.
func TestNoRedirect(t *testing.T) {
	other := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/applications/web" {
			other++
		}
		http.Redirect(w, r, "/api/v1/applications/other", http.StatusMovedPermanently)
	}))
	defer srv.Close()
	cl := NewClient(Config{Server: strings.TrimPrefix(srv.URL, "http://"), Token: token, PlainText: true})
	var out bytes.Buffer
	if code := SyncAndWait(context.Background(), cl, input, &out); code != ExitRetry || other != 0 || !strings.Contains(out.String(), "HTTP 301") {
		t.Errorf("exit %d, %d other requests:\n%s", code, other, out.String())
	}
}
