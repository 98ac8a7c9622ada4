package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

const platform = `
platform "acme" {
  argocd {
    namespace = "argocd"
  }
  git {
    repo_url = "https://git.example.com/a.git"
    revision = "main"
  }
}
environment "staging" {
  domain = "staging.example.com"
}
environment "production" {
  domain       = "example.com"
  cluster_name = "prod-1"
}
app "web" {
  namespace = "web"
  source {
    chart    = "web"
    repo_url = "https://charts.example.com"
    version  = "1.0.0"
    helm {
      values = { host = "web.${env.domain}", cluster = env.cluster_name }
    }
  }
}
`

const kubeconfig = `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
users: [{name: u, user: {token: tok-12345}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`

func setup(t *testing.T, envFile string) Input {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	in := Input{Action: Deploy, KubeconfigPath: write("kubeconfig", kubeconfig), Environment: "production", PlatformPath: write("platform.hcl", platform)}
	if envFile != "" {
		in.EnvFile = write("environment.yaml", envFile)
	}
	return in
}

// TestEnvFileOverrides: environment.yaml values win over the HCL, reach
// every expression that reads them, and land at the defaults level.
func TestEnvFileOverrides(t *testing.T) {
	in := setup(t, `name: production
domain: prod.example.org
gitRepository: https://git.example.org/b.git
gitRevision: v2.0.0
clusterName: prod-2
argocdNamespace: gitops
workflowsNamespace: orchestration
timeouts: {sync: 7m, health: 9m}
retries: {maxAttempts: 4, backoff: 45s}
`)
	cfg, p := Load(in)
	if !p.Empty() {
		t.Fatalf("problems: %v %v", p.Errors, p.Diags)
	}
	pl := cfg.Program.Platform
	if pl.Git.RepoURL != "https://git.example.org/b.git" || pl.Git.Revision != "v2.0.0" || pl.ArgoCD.Namespace != "gitops" || pl.Workflows.Namespace != "orchestration" {
		t.Errorf("platform: %+v", pl)
	}
	web := cfg.Program.App("web")
	if got := web.Source.Helm.Values["host"]; got != "web.prod.example.org" {
		t.Errorf("env.domain in a Helm value = %v", got)
	}
	if got := web.Source.Helm.Values["cluster"]; got != "prod-2" {
		t.Errorf("env.cluster_name in a Helm value = %v", got)
	}
	if web.Timeouts.Sync != 7*time.Minute || web.Timeouts.Health != 9*time.Minute || web.Retry.Limit != 3 || web.Retry.Backoff != 45*time.Second {
		t.Errorf("settings: %+v %+v", web.Timeouts, web.Retry)
	}
	if cfg.Kube == nil || cfg.Kube.Host != "https://127.0.0.1:6443" {
		t.Errorf("kube config: %+v", cfg.Kube)
	}
	found := false
	for _, s := range cfg.Secrets {
		found = found || s == "tok-12345"
	}
	if !found {
		t.Error("the kubeconfig token is not registered for redaction")
	}
}

func TestEnvFileProblems(t *testing.T) {
	const head = "name: production\ndomain: a\ngitRepository: b\ngitRevision: c\n"
	const good = "name: production\ndomain: a.example.org\ngitRepository: https://git.example.org/p.git\ngitRevision: c\n"
	for _, tc := range []struct{ file, at, want string }{
		{"name: production\n", ":1:1", `The required field "domain" is missing`},
		{"name: staging\ndomain: a\ngitRepository: b\ngitRevision: c\n", ":1:7", `It describes environment "staging" but ENVIRONMENT is "production"`},
		{head + "region: eu\n", ":5:1", `unknown field "region"`},
		{head + "timout: {sync: 1m}\n", ":5:1", `Did you mean "timeouts"?`},
		{head + "timeouts: {sync: fast}\n", ":5:18", `timeouts.sync "fast" is not a positive duration`},
		{head + "timeouts: {sync: 1m, helth: 2m}\n", ":5:22", `unknown field "helth" in timeouts; RFC 7.4 defines sync, health. Did you mean "health"?`},
		{head + "retries: {maxAttempts: 0}\n", ":5:24", `retries.maxAttempts is 0`},
		{head + "retries: {maxAttempts: two}\n", ":5:24", `retries.maxAttempts is two`},
		{head + "retries: [3]\n", ":5:10", `retries must be a mapping of maxAttempts, backoff`},
		{head + "domain: b\n", ":5:1", `sets "domain" twice`},
		{"name: production\n---\nname: x\n", ":1:1", "must be one YAML document"},
		{"name: [\n", ":", "not valid YAML"},
		// The compiler's verdict on a value points at the file's line.
		{head, ":3:16", "Invalid Git repository URL"},
		{good + "argocdNamespace: Bad_NS\n", ":5:18", `"Bad_NS" is not a DNS-1123 label`},
		{good + "workflowsNamespace: Bad_NS\n", ":5:21", `"Bad_NS" is not a DNS-1123 label`},
		{good + "timeouts: {sync: 9999h}\n", ":5:18", `"9999h" is outside the range platc accepts here`},
		{good + "retries: {backoff: 9999h}\n", ":5:20", `"9999h" is outside the range platc accepts here`},
	} {
		_, p := Load(setup(t, tc.file))
		var got []string
		for _, d := range p.Diags {
			if d.Subject != nil {
				got = append(got, fmt.Sprintf("%s:%d:%d: %s: %s", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column, d.Summary, d.Detail))
			}
		}
		all := strings.Join(got, "\n")
		if !strings.Contains(all, "environment.yaml"+tc.at) || !strings.Contains(all, tc.want) || p.Empty() {
			t.Errorf("%q: diagnostics %q lack %q at %q", tc.file, got, tc.want, tc.at)
		}
	}
	// The default path may be absent; a named one may not.
	in := setup(t, "")
	in.EnvFile = filepath.Join(t.TempDir(), "missing.yaml")
	if _, p := Load(in); !strings.Contains(strings.Join(p.Errors, "\n"), "no such file") {
		t.Errorf("missing named env file: %v", p.Errors)
	}
}

// TestEnvFileScope: timeouts or retries in environment.yaml make a
// whole-platform deploy a run compiled on the spot (scope env:<sum>);
// validate, teardown and a scoped deploy keep their scope; a file without
// them changes nothing.
func TestEnvFileScope(t *testing.T) {
	const head = "name: production\ndomain: a.example.org\ngitRepository: https://git.example.org/p.git\ngitRevision: v1\n"
	for _, tc := range []struct {
		file   string
		action Action
		scope  string
		want   string
	}{
		{head + "timeouts: {health: 3m}\n", Deploy, "", "env:"},
		{head + "retries: {backoff: 1m}\n", Deploy, "", "env:"},
		{head, Deploy, "", "platform"},
		{head + "timeouts: {health: 3m}\n", Validate, "", "platform"},
		{head + "timeouts: {health: 3m}\n", Teardown, "", "platform"},
		{head + "timeouts: {health: 3m}\n", Deploy, "app:web", "app:web"},
	} {
		in := setup(t, tc.file)
		in.Action, in.TargetScope, in.TeardownConfirm = tc.action, tc.scope, "acme"
		cfg, p := Load(in)
		if !p.Empty() {
			t.Fatalf("%s %q: %v %v", tc.action, tc.file, p.Errors, p.Diags)
		}
		if got := cfg.Scope.String(); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s %q (TARGET_SCOPE %q): scope %s, want %s…", tc.action, tc.file, tc.scope, got, tc.want)
		}
		if tc.want == "env:" && (cfg.Scope.Name != cfg.EnvFile.Sum || len(cfg.ScopeApps) != len(cfg.Program.Apps) || !cfg.Scope.Whole()) {
			t.Errorf("an env-compiled run must cover every app and be named by the file's digest: %+v, %d apps", cfg.Scope, len(cfg.ScopeApps))
		}
	}
}

func TestParseScope(t *testing.T) {
	for in, want := range map[string]string{"": "platform", "platform": "platform", "stack:data": "stack:data", "app:web": "app:web"} {
		s, err := ParseScope(in)
		if err != nil || s.String() != want {
			t.Errorf("ParseScope(%q) = %v, %v", in, s, err)
		}
	}
	for in, want := range map[string]string{"platfrom": `Did you mean "platform"?`, "apps:web": `Did you mean "app:web"?`, "stack:": "is not a scope", "app:a:b": "is not a scope"} {
		if _, err := ParseScope(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseScope(%q) error %v, want %q", in, err, want)
		}
	}
}

// KUBECONFIG is the last fallback: used, merged as kubectl merges it,
// only when neither KUBECONFIG_DATA nor KUBECONFIG_PATH is set.
func TestKubeconfigFallback(t *testing.T) {
	in := setup(t, "")
	path := in.KubeconfigPath
	dir := filepath.Dir(path)
	other := filepath.Join(dir, "other")
	if err := os.WriteFile(other, []byte(strings.ReplaceAll(kubeconfig, "127.0.0.1:6443", "10.0.0.1:6443")), 0o600); err != nil {
		t.Fatal(err)
	}

	// KUBECONFIG_PATH wins over KUBECONFIG.
	in.Kubeconfig = other
	cfg, p := Load(in)
	if !p.Empty() || cfg.Kube.Host != "https://127.0.0.1:6443" || cfg.KubeconfigSource != path {
		t.Errorf("with KUBECONFIG_PATH set: host %v, source %q, problems %v", cfg.Kube, cfg.KubeconfigSource, p.Errors)
	}

	// Alone, KUBECONFIG is used; in a list, a missing file is skipped and
	// the first file that sets a value wins, as with kubectl.
	in.KubeconfigPath = ""
	in.Kubeconfig = filepath.Join(dir, "missing") + string(filepath.ListSeparator) + path + string(filepath.ListSeparator) + other
	cfg, p = Load(in)
	if !p.Empty() {
		t.Fatalf("problems: %v", p.Errors)
	}
	if cfg.Kube.Host != "https://127.0.0.1:6443" || !strings.HasPrefix(cfg.KubeconfigSource, "KUBECONFIG (") || len(cfg.KubeconfigBytes) == 0 {
		t.Errorf("host %q, source %q, %d bytes", cfg.Kube.Host, cfg.KubeconfigSource, len(cfg.KubeconfigBytes))
	}
	if !slices.Contains(cfg.Secrets, "tok-12345") {
		t.Error("the token from KUBECONFIG is not registered for redaction")
	}

	// Nothing that exists: one clear problem.
	in.Kubeconfig = filepath.Join(dir, "missing")
	_, p = Load(in)
	if got := strings.Join(p.Errors, "\n"); !strings.Contains(got, "names no kubeconfig file that exists") {
		t.Errorf("problems: %q", got)
	}

	// Nothing at all.
	in.Kubeconfig = ""
	_, p = Load(in)
	if got := strings.Join(p.Errors, "\n"); !strings.Contains(got, "KUBECONFIG is used when neither is set") {
		t.Errorf("problems: %q", got)
	}
}

// TestSpecialFiles: KUBECONFIG_PATH and the environment file are read
// only from regular files, bounded: /dev/zero exhausted memory and a FIFO
// hung (issue 13). Each gives a problem at once.
func TestSpecialFiles(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, c := range []struct {
		name string
		set  func(*Input)
		want string
	}{
		{"kubeconfig /dev/zero", func(in *Input) { in.KubeconfigPath = "/dev/zero" }, "character device, not a regular file"},
		{"kubeconfig FIFO", func(in *Input) { in.KubeconfigPath = fifo }, "named pipe (FIFO), not a regular file"},
		{"env file /dev/zero", func(in *Input) { in.EnvFile = "/dev/zero" }, "character device, not a regular file"},
		{"env file FIFO", func(in *Input) { in.EnvFile = fifo }, "named pipe (FIFO), not a regular file"},
		// The KUBECONFIG fallback read with client-go's loader, unbounded
		// (issue 21), in a list too.
		{"KUBECONFIG /dev/zero", func(in *Input) { in.KubeconfigPath, in.Kubeconfig = "", "/dev/zero" }, "KUBECONFIG /dev/zero: /dev/zero is a character device, not a regular file"},
		{"KUBECONFIG FIFO", func(in *Input) { in.KubeconfigPath, in.Kubeconfig = "", fifo }, "named pipe (FIFO), not a regular file"},
		{"KUBECONFIG list with a FIFO", func(in *Input) {
			in.Kubeconfig = filepath.Join(t.TempDir(), "missing") + string(filepath.ListSeparator) + fifo + string(filepath.ListSeparator) + in.KubeconfigPath
			in.KubeconfigPath = ""
		}, "named pipe (FIFO), not a regular file"},
	} {
		in := setup(t, "")
		c.set(&in)
		// A FIFO used to hang: fail in seconds, not at the test timeout.
		done := make(chan *Problems, 1)
		go func() { _, p := Load(in); done <- p }()
		var p *Problems
		select {
		case p = <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: Load still reading after 20s", c.name)
		}
		if got := strings.Join(p.Errors, "\n"); !strings.Contains(got, c.want) {
			t.Errorf("%s: problems %q, want %q", c.name, got, c.want)
		}
	}
}

// METRICS_FILE and PUSHGATEWAY_URL are checked before anything runs: a
// mistake found only when the metrics are written at the end would lose
// them, and a URL's credentials would reach the log.
func TestMetricsSettings(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub.prom"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file, url, want string
	}{
		{file: filepath.Join(dir, "platc.prom")},
		{url: "http://pushgateway.monitoring:9091/"},
		{file: filepath.Join(dir, "platc.txt"), want: "must end in .prom"},
		{file: filepath.Join(dir, "missing", "platc.prom"), want: "does not exist"},
		{file: filepath.Join(dir, "sub.prom"), want: "is not a regular file"},
		{url: "pushgateway:9091", want: "not an http or https URL"},
		{url: "https://ops:hunter2@pushgateway:9091", want: "carries credentials"},
		{url: "http://pushgateway:9091/?token=hunter2", want: "query or fragment"},
	} {
		in := setup(t, "")
		in.MetricsFile, in.PushgatewayURL = tc.file, tc.url
		cfg, p := Load(in)
		got := strings.Join(p.Errors, "\n")
		if tc.want == "" {
			if !p.Empty() || cfg.MetricsFile != tc.file || cfg.PushgatewayURL != strings.TrimSuffix(tc.url, "/") {
				t.Errorf("%+v: problems %q, file %q, url %q", tc, p.Errors, cfg.MetricsFile, cfg.PushgatewayURL)
			}
			continue
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("%+v: problems %q lack %q", tc, p.Errors, tc.want)
		}
		if strings.Contains(got, "hunter2") {
			t.Errorf("%+v: a problem quotes the credential: %q", tc, got)
		}
	}
}

// TRACE_ID and SPAN_ID are W3C ids, since platc hands them on as a
// traceparent; the OTLP settings platc cannot honour are refused.
func TestTraceSettings(t *testing.T) {
	for _, tc := range []struct {
		trace, span, endpoint, protocol string
		wantTrace, want                 string
	}{
		{trace: "4BF92F3577B34DA6A3CE929D0E0E4736", span: "00f067aa0ba902b7", wantTrace: "4bf92f3577b34da6a3ce929d0e0e4736"},
		{trace: "a3ce929d0e0e4736", wantTrace: "0000000000000000a3ce929d0e0e4736"},
		{endpoint: "http://otel-collector.observability:4318", protocol: "http/protobuf"},
		{trace: "trace-e2e", want: "TRACE_ID is not a W3C trace id"},
		{trace: "00000000000000000000000000000000", want: "not all zero"},
		{trace: "4bf92f3577b34da6a3ce929d0e0e4736", span: "xyz", want: "SPAN_ID is not a W3C span id"},
		{span: "00f067aa0ba902b7", want: "SPAN_ID is set without TRACE_ID"},
		{protocol: "grpc", want: "over OTLP/HTTP with protobuf only"},
		{endpoint: "otel-collector:4317", want: "not an http or https URL"},
		{endpoint: "https://u:hunter2@collector", want: "carries credentials"},
	} {
		in := setup(t, "")
		in.TraceID, in.SpanID, in.OTLPEndpoint, in.OTLPProtocol = tc.trace, tc.span, tc.endpoint, tc.protocol
		cfg, p := Load(in)
		got := strings.Join(p.Errors, "\n")
		if tc.want == "" {
			if !p.Empty() || cfg.TraceID != tc.wantTrace || cfg.SpanID != tc.span || cfg.OTLPEndpoint != tc.endpoint {
				t.Errorf("%+v: problems %q, config %q %q %q", tc, p.Errors, cfg.TraceID, cfg.SpanID, cfg.OTLPEndpoint)
			}
			continue
		}
		if !strings.Contains(got, tc.want) || strings.Contains(got, "hunter2") {
			t.Errorf("%+v: problems %q, want %q and no credential", tc, p.Errors, tc.want)
		}
	}
}

// TEARDOWN_PRIMITIVES and TEARDOWN_CRDS are teardown's, booleans, the
// CRDs only with the primitives, and the primitives only for a
// whole-platform teardown.
func TestTeardownPrimitivesSettings(t *testing.T) {
	for _, tc := range []struct {
		primitives, crds, scope string
		want                    string
		prim, crd               bool
	}{
		{},
		{primitives: "true", prim: true},
		{primitives: "true", crds: "true", prim: true, crd: true},
		{crds: "true", want: "TEARDOWN_CRDS=true removes the CRDs of the orchestration primitives, which only TEARDOWN_PRIMITIVES=true removes"},
		{primitives: "sure", want: `TEARDOWN_PRIMITIVES "sure" is not a boolean`},
		{primitives: "true", scope: "app:web", want: "applies to a whole-platform teardown only"},
	} {
		in := setup(t, "")
		in.Action = Teardown
		in.TeardownConfirm = "acme"
		in.TeardownPrimitives, in.TeardownCRDs, in.TargetScope = tc.primitives, tc.crds, tc.scope
		cfg, p := Load(in)
		got := strings.Join(p.Errors, "\n")
		if tc.want == "" {
			if !p.Empty() || cfg.TeardownPrimitives != tc.prim || cfg.TeardownCRDs != tc.crd {
				t.Errorf("%+v: problems %q, primitives %t, crds %t", tc, p.Errors, cfg.TeardownPrimitives, cfg.TeardownCRDs)
			}
			continue
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("%+v: problems %q lack %q", tc, p.Errors, tc.want)
		}
	}
}
