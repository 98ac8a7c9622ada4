package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v3"
	"k8s.io/klog/v2"

	"github.com/platc/platc/emit/argo"
	"github.com/platc/platc/executor"
	"github.com/platc/platc/executor/config"
	"github.com/platc/platc/executor/logging"
	"github.com/platc/platc/report"
)

// The executor verbs (deploy, validate, teardown) share their flags. Each
// flag mirrors an environment variable of RFC 7.1; the flag wins when both
// are given. KUBECONFIG_DATA has no flag on purpose: a credential on a
// command line is visible to every user of the machine through ps.

type envVarFlag struct {
	flag cli.Flag
	name string // flag name
	env  string // environment variable
}

func stringEnvFlag(name, env, usage string) envVarFlag {
	return envVarFlag{&cli.StringFlag{Name: name, Usage: usage + " (env " + env + ")"}, name, env}
}

func executorFlags(action config.Action) []envVarFlag {
	fs := []envVarFlag{
		stringEnvFlag("platform", "PLATFORM_PATH", "platform source: a directory of *.hcl files or one file (default "+config.DefaultPlatformPath+")"),
		stringEnvFlag("environment", "ENVIRONMENT", "environment block to use (required)"),
		stringEnvFlag("scope", "TARGET_SCOPE", "platform, stack:<name> or app:<name> (default platform)"),
		stringEnvFlag("kubeconfig-path", "KUBECONFIG_PATH", "path to a kubeconfig; or set KUBECONFIG_DATA to a base64-encoded one (KUBECONFIG is the fallback when neither is set)"),
		{&cli.BoolFlag{Name: "dry-run", Usage: "check everything, change nothing, print what would be done (env DRY_RUN=true)"}, "dry-run", "DRY_RUN"},
		stringEnvFlag("log-level", "LOG_LEVEL", "debug, info, warn or error (default info)"),
		stringEnvFlag("log-format", "LOG_FORMAT", "text or json (default text); json also makes the report one JSON line"),
		stringEnvFlag("trace-id", "TRACE_ID", "parent trace id, copied into every log line and onto the workflow"),
		stringEnvFlag("span-id", "SPAN_ID", "parent span id, as --trace-id"),
		stringEnvFlag("metrics-file", "METRICS_FILE", "write the run's Prometheus metrics to this *.prom file, for node_exporter's textfile collector"),
		stringEnvFlag("pushgateway-url", "PUSHGATEWAY_URL", "push the run's Prometheus metrics to this Pushgateway (no credentials in the URL)"),
		stringEnvFlag("snapshot-file", "SNAPSHOT_FILE", "write Phase 0's cluster snapshot (nodes, namespaces, CRDs and their owners, the Argo components, the Applications) to this *.json file"),
		stringEnvFlag("snapshot-baseline", "SNAPSHOT_BASELINE", "a snapshot an earlier run wrote: the report lists what changed since"),
		stringEnvFlag("environment-config", "ENVIRONMENT_CONFIG", "environment file of RFC 7.4 (default "+config.DefaultEnvFile+", optional)"),
		stringEnvFlag("dag-config", "DAG_CONFIG", "DAG customization for this run (RFC 7.4): subset, dependencies, timeouts, retries (default "+config.DefaultDagFile+", optional)"),
		stringEnvFlag("secrets-dir", "SECRETS_DIR", "directory of credential files (default "+config.DefaultSecretsDir+", optional)"),
		stringEnvFlag("timeout", "ACTION_TIMEOUT", "longest the action may take, such as 2h (default: the workflow's own deadline plus 5m)"),
	}
	if action == config.Deploy {
		fs = append(fs, envVarFlag{&cli.BoolFlag{Name: "prune", Usage: "delete the Applications of apps removed from the platform, dependents first, before deploying the rest (env PRUNE=true)"}, "prune", "PRUNE"})
	}
	if action == config.Teardown {
		fs = append(fs,
			stringEnvFlag("confirm", "TEARDOWN_CONFIRM", "the platform name, to confirm the teardown (required)"),
			stringEnvFlag("pv-policy", "PV_POLICY", "retain, delete or snapshot (default: each app's own policy, retain unless set)"),
			envVarFlag{&cli.BoolFlag{Name: "primitives", Usage: "once the teardown workflow succeeds, uninstall Argo Events, Argo Workflows and Argo CD with the teardown playbook (env TEARDOWN_PRIMITIVES=true)"}, "primitives", "TEARDOWN_PRIMITIVES"},
			envVarFlag{&cli.BoolFlag{Name: "crds", Usage: "with --primitives, also delete the CRDs their charts keep (env TEARDOWN_CRDS=true)"}, "crds", "TEARDOWN_CRDS"})
	}
	return fs
}

// Hidden tuning flags, for tests and slow clusters.
var (
	pollFlag = &cli.DurationFlag{Name: "poll-interval", Value: 5 * time.Second, Hidden: true}
	callFlag = &cli.DurationFlag{Name: "call-timeout", Value: 15 * time.Second, Hidden: true}
)

func executorCommand(action config.Action, usage, description string) *cli.Command {
	efs := executorFlags(action)
	flags := make([]cli.Flag, 0, len(efs)+2)
	for _, f := range efs {
		flags = append(flags, f.flag)
	}
	flags = append(flags, pollFlag, callFlag)
	return &cli.Command{
		Name:        string(action),
		Usage:       usage,
		Description: description,
		Flags:       flags,
		Action: func(_ context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return usagef("%s takes no arguments; name the platform with --platform or PLATFORM_PATH (got %q)", action, strings.Join(cmd.Args().Slice(), " "))
			}
			return exitWith(runExecutor(cmd, action, efs))
		},
	}
}

// input collects the raw configuration: each flag if given, else its
// environment variable.
func input(cmd *cli.Command, action config.Action, efs []envVarFlag) config.Input {
	get := func(name string) string {
		for _, f := range efs {
			if f.name != name {
				continue
			}
			if cmd.IsSet(name) {
				if _, ok := f.flag.(*cli.BoolFlag); ok {
					return fmt.Sprint(cmd.Bool(name))
				}
				return cmd.String(name)
			}
			return os.Getenv(f.env)
		}
		return ""
	}
	return config.Input{
		Action:             action,
		Generator:          generator(),
		KubeconfigData:     os.Getenv("KUBECONFIG_DATA"),
		KubeconfigPath:     get("kubeconfig-path"),
		Kubeconfig:         os.Getenv("KUBECONFIG"),
		Environment:        get("environment"),
		TargetScope:        get("scope"),
		DryRun:             get("dry-run"),
		Prune:              get("prune"),
		LogLevel:           get("log-level"),
		LogFormat:          get("log-format"),
		TraceID:            get("trace-id"),
		SpanID:             get("span-id"),
		MetricsFile:        get("metrics-file"),
		PushgatewayURL:     get("pushgateway-url"),
		SnapshotFile:       get("snapshot-file"),
		SnapshotBaseline:   get("snapshot-baseline"),
		OTLPEndpoint:       config.OTLPEnv("ENDPOINT"),
		OTLPProtocol:       config.OTLPEnv("PROTOCOL"),
		PlatformPath:       get("platform"),
		EnvFile:            get("environment-config"),
		DagFile:            get("dag-config"),
		SecretsDir:         get("secrets-dir"),
		TeardownConfirm:    get("confirm"),
		PVPolicy:           get("pv-policy"),
		TeardownPrimitives: get("primitives"),
		TeardownCRDs:       get("crds"),
		Timeout:            get("timeout"),
	}
}

func runExecutor(cmd *cli.Command, action config.Action, efs []envVarFlag) int {
	cfg, probs := config.Load(input(cmd, action, efs))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The run's span first: its ids go into every log line.
	var trace *executor.Trace
	if probs.Empty() {
		var err error
		if trace, err = executor.StartTrace(ctx, cfg, platcVersion(), time.Now()); err != nil {
			probs.Errors = append(probs.Errors, err.Error())
		}
	}
	traceID, spanID := trace.IDs()
	if trace == nil {
		traceID, spanID = cfg.TraceID, cfg.SpanID
	}
	log := logging.New(cmd.Root().ErrWriter, logging.Options{
		Format: cfg.LogFormat, Level: cfg.LogLevel, Action: string(action), TraceID: traceID, SpanID: spanID,
	})
	log.Redact(cfg.Secrets...)
	// client-go logs through klog (a failed watch, a throttled request);
	// those lines take the RFC format and the redaction too.
	klog.SetSlogLogger(log.Slog("", "client-go"))
	if !probs.Empty() {
		return executor.Invalid(cfg, probs, log, cmd.Root().Writer, cmd.Root().ErrWriter, colorFor(cmd.Root().ErrWriter))
	}
	// Warnings from the compiler are worth seeing, not worth stopping for.
	for _, d := range probs.Diags {
		log.Warnf("config", "platform", "%s", report.Line(d))
	}
	if cfg.Program != nil {
		if _, w := argo.StepImage(cfg.Program); w != "" {
			log.Warnf("config", "platform", "%s", w)
		}
	}
	return executor.Run(ctx, cfg, executor.Env{
		Trace:        trace,
		Stdout:       cmd.Root().Writer,
		Log:          log,
		PollInterval: cmd.Duration("poll-interval"),
		CallTimeout:  cmd.Duration("call-timeout"),
		UserAgent:    "platc/" + platcVersion(),
	})
}
