package config

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/hashicorp/hcl/v2"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/executor/logging"
	"github.com/platc/platc/executor/snapshot"
	"github.com/platc/platc/internal/safefile"
	"github.com/platc/platc/lang"
)

// Action is the executor action of RFC 7.1.
type Action string

// The three actions.
const (
	Deploy   Action = "deploy"
	Validate Action = "validate"
	Teardown Action = "teardown"
)

// Defaults of the mounted paths (RFC 7.1).
const (
	DefaultPlatformPath = "/platform"
	DefaultEnvFile      = "/config/environment.yaml"
	DefaultSecretsDir   = "/secrets"
)

// Input is the raw configuration: each field holds the flag value if the
// flag was given, else the environment variable. Empty means unset.
type Input struct {
	Action Action
	// Generator is the running platc, which the templates it applies and
	// submits name as their step image.
	Generator ir.Generator

	KubeconfigData string // KUBECONFIG_DATA, base64
	KubeconfigPath string // KUBECONFIG_PATH
	Environment    string // ENVIRONMENT
	TargetScope    string // TARGET_SCOPE
	DryRun         string // DRY_RUN
	Prune          string // PRUNE (deploy only)
	LogLevel       string // LOG_LEVEL
	LogFormat      string // LOG_FORMAT
	TraceID        string // TRACE_ID
	SpanID         string // SPAN_ID
	MetricsFile    string // METRICS_FILE
	PushgatewayURL string // PUSHGATEWAY_URL
	// SnapshotFile and SnapshotBaseline are SNAPSHOT_FILE and
	// SNAPSHOT_BASELINE.
	SnapshotFile, SnapshotBaseline string
	// OTLPEndpoint is OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else
	// OTEL_EXPORTER_OTLP_ENDPOINT; OTLPProtocol is
	// OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL.
	OTLPEndpoint string
	OTLPProtocol string

	// Kubeconfig is KUBECONFIG, kubectl's list of kubeconfig files, used
	// only when neither KUBECONFIG_DATA nor KUBECONFIG_PATH is set.
	Kubeconfig string

	PlatformPath string // --platform, PLATFORM_PATH
	EnvFile      string // --environment-config, ENVIRONMENT_CONFIG
	DagFile      string // DAG_CONFIG
	SecretsDir   string // --secrets-dir, SECRETS_DIR

	TeardownConfirm string // TEARDOWN_CONFIRM
	PVPolicy        string // PV_POLICY
	// TeardownPrimitives and TeardownCRDs are TEARDOWN_PRIMITIVES and
	// TEARDOWN_CRDS.
	TeardownPrimitives, TeardownCRDs string
	Timeout                          string // ACTION_TIMEOUT
}

// Config is a checked configuration.
type Config struct {
	Action      Action
	Environment string
	Scope       Scope
	DryRun      bool
	// Prune is the operator's consent (PRUNE=true, deploy only) to delete
	// the Applications of apps that have left the platform.
	Prune     bool
	LogLevel  logging.Level
	LogFormat logging.Format
	TraceID   string
	SpanID    string
	// MetricsFile is where the run's Prometheus metrics are written
	// (node_exporter's textfile-collector format); "" writes none.
	MetricsFile string
	// PushgatewayURL is a Prometheus Pushgateway the metrics are pushed
	// to; "" pushes none.
	PushgatewayURL string
	// SnapshotFile is where Phase 0 writes the cluster snapshot; "" writes
	// none.
	SnapshotFile string
	// Baseline is the snapshot SNAPSHOT_BASELINE names, which the run's
	// own is compared with; nil when none is named.
	Baseline     *snapshot.Snapshot
	BaselinePath string
	// OTLPEndpoint is where the run's spans are exported (OTLP/HTTP);
	// "" exports none.
	OTLPEndpoint string

	// Kube is the client configuration from the kubeconfig; its server has
	// not been contacted. KubeconfigSource says where it came from
	// ("KUBECONFIG_DATA" or the path), for messages.
	Kube             *rest.Config
	KubeconfigSource string
	// KubeconfigBytes is the kubeconfig as handed in, for tools that need
	// a file (ansible-playbook); it is written only to a private temp file.
	KubeconfigBytes []byte

	PlatformPath string
	EnvFile      *EnvFile // nil when none is mounted
	// DagFile is the run's DAG customization; nil when none is mounted.
	DagFile    *DagFile
	SecretsDir string // "" when the directory does not exist

	TeardownConfirm string
	PVPolicy        ir.VolumePolicy
	// TeardownPrimitives: once the teardown workflow has succeeded, the
	// teardown playbook removes Argo Events, Argo Workflows and Argo CD
	// (RFC 6.5 step 5); TeardownCRDs: their CRDs too.
	TeardownPrimitives, TeardownCRDs bool
	// Timeout is the longest the action may take; zero means derive it
	// from the workflow's own deadline.
	Timeout time.Duration

	Module  *lang.Module
	Program *ir.Program
	// ScopeApps are the apps in scope, in topological order.
	ScopeApps []*ir.App
	// SpotWorkflow is the deploy or teardown workflow of a run that is
	// not the whole platform's committed one (Scope is not
	// ScopePlatform), compiled and checked against the limits; the
	// executor submits a copy. Nil for every other run.
	SpotWorkflow *wfv1.Workflow

	// Secrets are credential values that must never be logged.
	Secrets []string
}

// Problems are configuration errors: each one a full sentence naming the
// variable or file at fault. Diags are the platform source's diagnostics
// (errors and warnings), rendered by the caller with the source files.
type Problems struct {
	Errors []string
	Diags  hcl.Diagnostics
}

// Empty reports whether nothing is wrong (warnings in Diags aside).
func (p *Problems) Empty() bool { return len(p.Errors) == 0 && !p.Diags.HasErrors() }

func (p *Problems) add(format string, args ...any) {
	p.Errors = append(p.Errors, fmt.Sprintf(format, args...))
}

// Load checks in and builds a Config. The Config is usable only when
// Problems.Empty(); even when it is not, the logging settings are filled in
// (when they parse), so the caller can report in the requested format.
func Load(in Input) (*Config, *Problems) {
	cfg := &Config{Action: in.Action}
	p := &Problems{}
	checkTrace(cfg, in, p)

	var err error
	if cfg.LogLevel, err = logging.ParseLevel(or(in.LogLevel, "info")); err != nil {
		p.add("LOG_LEVEL: %v", err)
	}
	if cfg.LogFormat, err = logging.ParseFormat(or(in.LogFormat, "text")); err != nil {
		p.add("LOG_FORMAT: %v", err)
	}
	cfg.DryRun = parseBool("DRY_RUN", in.DryRun, p)
	if in.Action == Deploy {
		cfg.Prune = parseBool("PRUNE", in.Prune, p)
	}
	if cfg.Scope, err = ParseScope(in.TargetScope); err != nil {
		p.add("%v", err)
	}
	loadKubeconfig(cfg, in, p)

	cfg.Environment = strings.TrimSpace(in.Environment)
	if cfg.Environment == "" {
		p.add("ENVIRONMENT is not set; it must name an environment block of the platform")
	}
	cfg.PlatformPath = or(in.PlatformPath, DefaultPlatformPath)
	ef, ediags, probs := readEnvFile(or(in.EnvFile, DefaultEnvFile), in.EnvFile != "", cfg.Environment)
	cfg.EnvFile = ef
	p.Diags = append(p.Diags, ediags...)
	p.Errors = append(p.Errors, probs...)
	df, ddiags, probs := readDagFile(or(in.DagFile, DefaultDagFile), in.DagFile != "")
	cfg.DagFile = df
	p.Diags = append(p.Diags, ddiags...)
	p.Errors = append(p.Errors, probs...)
	if df != nil && cfg.Scope.Kind != ScopePlatform {
		p.add("TARGET_SCOPE is %s, but a DAG customization (%s) is mounted: it applies to a whole-platform run and chooses its apps with subset. Unset TARGET_SCOPE and write the scope as subset.stacks or subset.apps, or remove the file", cfg.Scope, df.Path)
	}
	cfg.SecretsDir = checkSecretsDir(in.SecretsDir, p)

	if in.Action == Teardown {
		// Unset, each app's own teardown { volumes } applies (retain
		// unless the platform says otherwise); set, it overrides them all.
		switch v := strings.ToLower(strings.TrimSpace(in.PVPolicy)); v {
		case "":
		case "retain", "delete", "snapshot":
			cfg.PVPolicy = ir.VolumePolicy(v)
		default:
			p.add("PV_POLICY %q is not a volume policy; use retain, delete or snapshot, or leave it unset for each app's own policy", in.PVPolicy)
		}
		cfg.TeardownConfirm = strings.TrimSpace(in.TeardownConfirm)
		cfg.TeardownPrimitives = parseBool("TEARDOWN_PRIMITIVES", in.TeardownPrimitives, p)
		cfg.TeardownCRDs = parseBool("TEARDOWN_CRDS", in.TeardownCRDs, p)
		switch {
		case cfg.TeardownCRDs && !cfg.TeardownPrimitives:
			p.add("TEARDOWN_CRDS=true removes the CRDs of the orchestration primitives, which only TEARDOWN_PRIMITIVES=true removes; set both, or neither")
		case cfg.TeardownPrimitives && cfg.Scope.Kind != ScopePlatform:
			p.add("TEARDOWN_PRIMITIVES=true removes Argo CD and Argo Workflows, which the rest of the platform needs; it applies to a whole-platform teardown only. Unset TARGET_SCOPE, or TEARDOWN_PRIMITIVES")
		}
	}
	cfg.MetricsFile = checkMetricsFile(in.MetricsFile, p)
	cfg.PushgatewayURL = checkPushgateway(in.PushgatewayURL, p)
	cfg.SnapshotFile = checkOutputFile("SNAPSHOT_FILE", in.SnapshotFile, ".json", p)
	if v := strings.TrimSpace(in.SnapshotBaseline); v != "" {
		b, err := snapshot.Read(v)
		if err != nil {
			p.add("SNAPSHOT_BASELINE %s: %v; name a snapshot file an earlier run wrote with SNAPSHOT_FILE, unchanged", v, err)
		}
		cfg.Baseline, cfg.BaselinePath = b, v
	}
	if in.Timeout != "" {
		d, err := time.ParseDuration(strings.TrimSpace(in.Timeout))
		if err != nil || d <= 0 {
			p.add("ACTION_TIMEOUT %q is not a positive duration such as \"45m\" or \"2h\"", in.Timeout)
		}
		cfg.Timeout = d
	}

	loadPlatform(cfg, in.Generator, p)
	return cfg, p
}

// parseBool reads a boolean setting; unset is false.
func parseBool(name, v string, p *Problems) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "false", "0", "no":
		return false
	case "true", "1", "yes":
		return true
	}
	p.add("%s %q is not a boolean; use true or false", name, v)
	return false
}

func or(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return strings.TrimSpace(s)
}

// Bounds on the files the executor reads.
const (
	// MaxKubeconfigSize is the largest kubeconfig KUBECONFIG_PATH may
	// name (one with a few embedded certificates is a few KiB).
	MaxKubeconfigSize = 4 << 20
	// MaxEnvFileSize is the largest environment file.
	MaxEnvFileSize = 1 << 20
)

// loadKubeconfig reads exactly one of KUBECONFIG_DATA and KUBECONFIG_PATH
// (RFC 7.1), else, as the last fallback, the files KUBECONFIG lists, the
// way kubectl does, and builds the client configuration. Messages never
// quote the content.
func loadKubeconfig(cfg *Config, in Input, p *Problems) {
	data, path := strings.TrimSpace(in.KubeconfigData), strings.TrimSpace(in.KubeconfigPath)
	if data != "" {
		cfg.Secrets = append(cfg.Secrets, data)
	}
	var raw *clientcmdapi.Config
	switch {
	case data != "" && path != "":
		p.add("KUBECONFIG_DATA and KUBECONFIG_PATH are both set; set exactly one (RFC 7.1)")
		return
	case data == "" && path == "" && strings.TrimSpace(in.Kubeconfig) != "":
		if raw = kubeconfigList(cfg, in.Kubeconfig, p); raw == nil {
			return
		}
	case data == "" && path == "":
		p.add("no kubeconfig: set KUBECONFIG_DATA (base64-encoded kubeconfig) or KUBECONFIG_PATH (path to a mounted kubeconfig); KUBECONFIG is used when neither is set")
		return
	case data != "":
		cfg.KubeconfigSource = "KUBECONFIG_DATA"
		// Base64 from a terminal or a Secret often carries line breaks.
		b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(data), ""))
		if err != nil {
			p.add("KUBECONFIG_DATA is not valid base64 (%s); encode the kubeconfig with 'base64 -w0 kubeconfig'", base64Reason(err))
			return
		}
		raw, err = clientcmd.Load(b)
		if err != nil {
			p.add("KUBECONFIG_DATA decodes, but not to a kubeconfig: %s", firstLine(err))
			return
		}
		cfg.KubeconfigBytes = b
	default:
		cfg.KubeconfigSource = path
		// Read once, bounded and only from a regular file: /dev/zero or a
		// FIFO here exhausted memory or hung (issue 13).
		b, err := safefile.Read(path, MaxKubeconfigSize)
		if err != nil {
			p.add("KUBECONFIG_PATH %s: %v", path, safefile.Unwrap(err))
			return
		}
		raw, err = clientcmd.Load(b)
		if err != nil {
			p.add("KUBECONFIG_PATH %s is not a kubeconfig: %s", path, firstLine(err))
			return
		}
		// What clientcmd.LoadFromFile does after reading: relative
		// certificate paths resolve against the file's location.
		for _, o := range raw.AuthInfos {
			o.LocationOfOrigin = path
		}
		for _, o := range raw.Clusters {
			o.LocationOfOrigin = path
		}
		for _, o := range raw.Contexts {
			o.LocationOfOrigin = path
		}
		cfg.KubeconfigBytes = b
	}
	for _, ai := range raw.AuthInfos {
		cfg.Secrets = append(cfg.Secrets, ai.Token, ai.Password, string(ai.ClientKeyData))
	}
	rc, err := clientcmd.NewDefaultClientConfig(*raw, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		p.add("the kubeconfig from %s cannot be used: %s", cfg.KubeconfigSource, firstLine(err))
		return
	}
	if rc.BearerToken != "" {
		cfg.Secrets = append(cfg.Secrets, rc.BearerToken)
	}
	cfg.Kube = rc
}

// kubeconfigList loads and merges the files of KUBECONFIG as kubectl
// does: the first file to set a value (a cluster, user or context of a
// name, the current context) wins, missing files are skipped. Each file
// is read as KUBECONFIG_PATH is, bounded and only if regular: client-go's
// own loader read /dev/zero until memory ran out and hung on a FIFO
// (issue 21).
func kubeconfigList(cfg *Config, list string, p *Problems) *clientcmdapi.Config {
	var paths []string
	for _, f := range filepath.SplitList(list) {
		if f = strings.TrimSpace(f); f != "" {
			paths = append(paths, f)
		}
	}
	cfg.KubeconfigSource = "KUBECONFIG (" + strings.Join(paths, string(filepath.ListSeparator)) + ")"
	raw := clientcmdapi.NewConfig()
	for _, path := range paths {
		b, err := safefile.Read(path, MaxKubeconfigSize)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			p.add("KUBECONFIG %s: %v", path, safefile.Unwrap(err))
			return nil
		}
		one, err := clientcmd.Load(b)
		if err != nil {
			p.add("KUBECONFIG %s is not a kubeconfig: %s", path, firstLine(err))
			return nil
		}
		mergeFirstWins(raw, one, path)
	}
	if len(raw.Contexts) == 0 && len(raw.Clusters) == 0 {
		p.add("%s names no kubeconfig file that exists; set KUBECONFIG_PATH or KUBECONFIG_DATA", cfg.KubeconfigSource)
		return nil
	}
	// Relative certificate paths resolve against the file that named
	// them, as clientcmd's loader resolves them.
	if err := clientcmd.ResolveLocalPaths(raw); err != nil {
		p.add("%s cannot be used: %s", cfg.KubeconfigSource, firstLine(err))
		return nil
	}
	b, err := clientcmd.Write(*raw)
	if err != nil {
		p.add("%s cannot be used: %s", cfg.KubeconfigSource, firstLine(err))
		return nil
	}
	cfg.KubeconfigBytes = b
	return raw
}

// mergeFirstWins adds what one, read from path, sets and dst does not
// yet: kubectl's rule for a list of kubeconfig files.
func mergeFirstWins(dst, one *clientcmdapi.Config, path string) {
	for k, v := range one.Clusters {
		if _, ok := dst.Clusters[k]; !ok {
			v.LocationOfOrigin = path
			dst.Clusters[k] = v
		}
	}
	for k, v := range one.AuthInfos {
		if _, ok := dst.AuthInfos[k]; !ok {
			v.LocationOfOrigin = path
			dst.AuthInfos[k] = v
		}
	}
	for k, v := range one.Contexts {
		if _, ok := dst.Contexts[k]; !ok {
			v.LocationOfOrigin = path
			dst.Contexts[k] = v
		}
	}
	for k, v := range one.Extensions {
		if _, ok := dst.Extensions[k]; !ok {
			dst.Extensions[k] = v
		}
	}
	if dst.CurrentContext == "" {
		dst.CurrentContext = one.CurrentContext
	}
}

func base64Reason(err error) string {
	var ce base64.CorruptInputError
	if errors.As(err, &ce) {
		return fmt.Sprintf("illegal data at byte %d", int64(ce))
	}
	return "malformed"
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

func checkSecretsDir(dir string, p *Problems) string {
	explicit := dir != ""
	dir = or(dir, DefaultSecretsDir)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !explicit:
		return ""
	case err != nil:
		p.add("SECRETS_DIR %s: %v", dir, safefile.Unwrap(err))
		return ""
	case !st.IsDir():
		p.add("SECRETS_DIR %s is not a directory; mount the credentials as a directory of files", dir)
		return ""
	}
	return dir
}

// loadPlatform parses the platform source, applies the environment file
// and compiles it for the chosen environment, then resolves the scope and
// the teardown confirmation against it.
func loadPlatform(cfg *Config, gen ir.Generator, p *Problems) {
	if _, err := os.Stat(cfg.PlatformPath); err != nil {
		p.add("platform source %s: %v; mount the platform checkout at /platform or set PLATFORM_PATH", cfg.PlatformPath, safefile.Unwrap(err))
		return
	}
	mod, diags := lang.Parse(cfg.PlatformPath)
	cfg.Module = mod
	if diags.HasErrors() {
		p.Diags = append(p.Diags, diags...)
		return
	}
	if cfg.Environment == "" {
		return
	}
	names := compiler.EnvNames(mod)
	if !slices.Contains(names, cfg.Environment) {
		msg := fmt.Sprintf("ENVIRONMENT %q names no environment block of the platform in %s; it declares: %s.",
			cfg.Environment, cfg.PlatformPath, strings.Join(names, ", "))
		if s := diag.Suggest(cfg.Environment, names); s != "" {
			msg += fmt.Sprintf(" Did you mean %q?", s)
		}
		p.add("%s", msg)
		return
	}
	if cfg.EnvFile != nil && len(p.Errors) == 0 && !p.Diags.HasErrors() {
		mod.Override(cfg.EnvFile.override(cfg.Environment))
	}
	if cfg.DagFile != nil {
		if dd := mod.Edit(cfg.DagFile.edits()); dd.HasErrors() {
			p.Diags = append(p.Diags, dd...)
			return
		}
	}
	prog, cdiags := compiler.Compile(mod, compiler.Options{Env: cfg.Environment, Generator: gen})
	p.Diags = diag.Sort(append(append(p.Diags, diags...), cdiags...))
	if prog == nil {
		return
	}
	cfg.Program = prog
	if cfg.DagFile != nil && cfg.Scope.Kind == ScopePlatform {
		apps, dd := dagApps(prog, cfg.DagFile, cfg.Action)
		if dd.HasErrors() {
			p.Diags = append(p.Diags, dd...)
			return
		}
		cfg.Scope = Scope{Kind: ScopeDag, Name: cfg.DagFile.Sum}
		cfg.ScopeApps = apps
	} else {
		if err := cfg.Scope.Resolve(prog); err != nil {
			p.add("%v", err)
			return
		}
		cfg.ScopeApps = cfg.Scope.Apps(prog)
		// Teardown keeps the committed template (its orphan report and
		// the primitives' removal are the whole platform's); its steps'
		// retries stay the template's, and the report says so.
		if cfg.Scope.Kind == ScopePlatform && cfg.Action == Deploy && cfg.EnvFile.ChangesWorkflow() {
			cfg.Scope = Scope{Kind: ScopeEnv, Name: cfg.EnvFile.Sum}
		}
	}
	compileSpot(cfg, p)
	if cfg.Action == Teardown {
		switch {
		case cfg.TeardownConfirm == "":
			p.add("teardown removes the platform; confirm by setting TEARDOWN_CONFIRM to the platform name %q", prog.Platform.Name)
		case cfg.TeardownConfirm != prog.Platform.Name:
			p.add("TEARDOWN_CONFIRM %q does not match the platform name %q; teardown refused", cfg.TeardownConfirm, prog.Platform.Name)
		}
	}
}
