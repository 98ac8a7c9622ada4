package executor

import (
	"context"
	"crypto/rand"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/platc/platc/executor/config"
)

// Trace is the run's span (RFC 7.5 trace correlation): a child of the
// TRACE_ID/SPAN_ID handed in, or of TRACE_ID alone, or a new trace when
// only an OTLP endpoint is set. Its ids go into every log line and, as a
// W3C traceparent, onto the Workflow and into every step pod. With an
// OTLP endpoint, the action's span and a span per app that ran in the
// workflow are exported when the run ends.
type Trace struct {
	tp     *sdktrace.TracerProvider
	tracer oteltrace.Tracer
	ctx    context.Context
	span   oteltrace.Span
}

// StartTrace starts the run's span at start, or returns nil when the run
// has no trace context and exports no spans.
func StartTrace(ctx context.Context, cfg *config.Config, version string, start time.Time) (*Trace, error) {
	if cfg.TraceID == "" && cfg.OTLPEndpoint == "" {
		return nil, nil
	}
	opts := []sdktrace.TracerProviderOption{
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "platc"), attribute.String("service.version", version))),
	}
	if cfg.OTLPEndpoint != "" {
		// The exporter reads OTEL_EXPORTER_OTLP_* itself (endpoint,
		// headers, certificate, timeout), as every OpenTelemetry SDK does.
		exp, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("OTLP exporter: %w", err)
		}
		opts = append(opts, sdktrace.WithBatcher(exp))
	}
	if cfg.TraceID != "" {
		tid, _ := oteltrace.TraceIDFromHex(cfg.TraceID) // checked by config
		if cfg.SpanID != "" {
			sid, _ := oteltrace.SpanIDFromHex(cfg.SpanID)
			ctx = oteltrace.ContextWithRemoteSpanContext(ctx, oteltrace.NewSpanContext(oteltrace.SpanContextConfig{
				TraceID: tid, SpanID: sid, TraceFlags: oteltrace.FlagsSampled, Remote: true,
			}))
		} else {
			// A trace id without a parent span: the run's span is a
			// root in that trace.
			opts = append(opts, sdktrace.WithIDGenerator(inTrace{tid}))
		}
	}
	tp := sdktrace.NewTracerProvider(opts...)
	t := &Trace{tp: tp, tracer: tp.Tracer("github.com/platc/platc/executor")}
	t.ctx, t.span = t.tracer.Start(ctx, "platc "+string(cfg.Action), oteltrace.WithTimestamp(start), oteltrace.WithAttributes(
		attribute.String("platc.action", string(cfg.Action)),
		attribute.String("platc.environment", cfg.Environment),
		attribute.String("platc.scope", cfg.Scope.String()),
	))
	if cfg.Program != nil {
		t.span.SetAttributes(attribute.String("platc.platform", cfg.Program.Platform.Name))
	}
	return t, nil
}

// IDs are the trace and the run's span, for the log lines; empty on nil.
func (t *Trace) IDs() (trace, span string) {
	if t == nil {
		return "", ""
	}
	sc := t.span.SpanContext()
	return sc.TraceID().String(), sc.SpanID().String()
}

// Traceparent is the run's span as a W3C traceparent header value, the
// parent of whatever the Workflow does; "" on nil.
func (t *Trace) Traceparent() string {
	if t == nil {
		return ""
	}
	sc := t.span.SpanContext()
	return fmt.Sprintf("00-%s-%s-%s", sc.TraceID(), sc.SpanID(), sc.TraceFlags())
}

// traceExportTimeout bounds the final export, as the Pushgateway push.
const traceExportTimeout = 15 * time.Second

// End closes the run's span at end with the report's outcome, after a
// span for every app the workflow ran (from its node's start and finish),
// and exports them. An error is for a warning, never the exit code.
func (t *Trace) End(ctx context.Context, rep *Report, end time.Time) error {
	if t == nil {
		return nil
	}
	for _, c := range rep.Components {
		if c.StartedAt.IsZero() {
			continue // the workflow never ran this app
		}
		_, s := t.tracer.Start(t.ctx, "app "+c.App, oteltrace.WithTimestamp(c.StartedAt), oteltrace.WithAttributes(
			attribute.String("platc.app", c.App), attribute.String("platc.stack", c.Stack),
			attribute.String("platc.application", c.Application), attribute.String("platc.status", c.Status),
			attribute.String("argocd.health", c.Health), attribute.String("argocd.sync", c.Sync),
		))
		if c.Status == "failed" || c.Status == "error" {
			s.SetStatus(codes.Error, c.Message)
		}
		fin := c.FinishedAt
		if fin.IsZero() {
			fin = end // still running when the run ended
		}
		s.End(oteltrace.WithTimestamp(fin))
	}
	t.span.SetAttributes(attribute.String("platc.status", rep.Status), attribute.Int("platc.exit_code", rep.ExitCode))
	if rep.ExitCode != 0 {
		t.span.SetStatus(codes.Error, rep.Summary)
	}
	t.span.End(oteltrace.WithTimestamp(end))
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), traceExportTimeout)
	defer cancel()
	if err := t.tp.Shutdown(ctx); err != nil {
		return fmt.Errorf("exporting the trace: %w", err)
	}
	return nil
}

// inTrace makes new root spans in one given trace.
type inTrace struct{ id oteltrace.TraceID }

func (g inTrace) NewIDs(ctx context.Context) (oteltrace.TraceID, oteltrace.SpanID) {
	return g.id, g.NewSpanID(ctx, g.id)
}

func (inTrace) NewSpanID(context.Context, oteltrace.TraceID) oteltrace.SpanID {
	var s oteltrace.SpanID
	for !s.IsValid() {
		_, _ = rand.Read(s[:])
	}
	return s
}
