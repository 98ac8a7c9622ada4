package executor

import (
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/platc/platc/executor/config"
)

// TestTraceExported exports a run's spans to an HTTP server that decodes
// OTLP/HTTP requests with OpenTelemetry's own protobuf types: a stand-in
// for a collector's receiver (no collector is built here). The run's span
// is a child of SPAN_ID in TRACE_ID, and each app that ran has a span
// with its node's start and finish under it.
func TestTraceExported(t *testing.T) {
	var spans []*tracepb.Span
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/traces" || r.Header.Get("Content-Type") != "application/x-protobuf" {
			t.Errorf("export to %s as %s", r.URL.Path, r.Header.Get("Content-Type"))
		}
		b, _ := io.ReadAll(r.Body)
		var req coltrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(b, &req); err != nil {
			t.Errorf("not an OTLP export: %v", err)
		}
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				spans = append(spans, ss.Spans...)
			}
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(nil)
	}))
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)

	const traceID, parent = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	cfg := &config.Config{Action: config.Deploy, Environment: "prod", TraceID: traceID, SpanID: parent, OTLPEndpoint: srv.URL}
	start := time.Date(2026, 11, 26, 3, 0, 0, 0, time.UTC)
	tr, err := StartTrace(context.Background(), cfg, "test", start)
	if err != nil {
		t.Fatal(err)
	}
	gotTrace, run := tr.IDs()
	if gotTrace != traceID || tr.Traceparent() != "00-"+traceID+"-"+run+"-01" {
		t.Fatalf("ids %s %s, traceparent %s", gotTrace, run, tr.Traceparent())
	}
	rep := partialDeploy()
	rep.Components[0].StartedAt, rep.Components[0].FinishedAt, rep.Components[0].Status = start.Add(time.Minute), start.Add(3*time.Minute), "succeeded"
	rep.Components[1].StartedAt, rep.Components[1].Status = start.Add(2*time.Minute), "failed"
	if err := tr.End(context.Background(), rep, start.Add(10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	byName := map[string]*tracepb.Span{}
	for _, s := range spans {
		byName[s.Name] = s
		if hex.EncodeToString(s.TraceId) != traceID {
			t.Errorf("span %s in trace %x", s.Name, s.TraceId)
		}
	}
	if len(spans) != 3 {
		t.Fatalf("%d spans exported, want the run's and two apps'", len(spans))
	}
	action, pg, orders := byName["platc deploy"], byName["app postgres"], byName["app orders"]
	if action == nil || pg == nil || orders == nil {
		t.Fatalf("spans %v", byName)
	}
	if hex.EncodeToString(action.ParentSpanId) != parent || hex.EncodeToString(action.SpanId) != run {
		t.Errorf("the run's span is %x, child of %x; want %s, child of %s", action.SpanId, action.ParentSpanId, run, parent)
	}
	if string(pg.ParentSpanId) != string(action.SpanId) || string(orders.ParentSpanId) != string(action.SpanId) {
		t.Error("an app's span is not a child of the run's")
	}
	if pg.StartTimeUnixNano != uint64(start.Add(time.Minute).UnixNano()) || pg.EndTimeUnixNano != uint64(start.Add(3*time.Minute).UnixNano()) {
		t.Errorf("postgres span %d..%d, want its node's times", pg.StartTimeUnixNano, pg.EndTimeUnixNano)
	}
	// Still running when the run ended: the span ends with the run.
	if orders.EndTimeUnixNano != uint64(start.Add(10*time.Minute).UnixNano()) || orders.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("orders span ends %d with status %v", orders.EndTimeUnixNano, orders.Status)
	}
	if action.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("a partial run's span has status %v", action.Status)
	}
}

// With TRACE_ID alone the run's span is a root in that trace; with no
// trace context and no endpoint there is no span at all.
func TestTraceWithoutParent(t *testing.T) {
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	tr, err := StartTrace(context.Background(), &config.Config{Action: config.Validate, TraceID: traceID}, "test", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if id, span := tr.IDs(); id != traceID || len(span) != 16 || span == "0000000000000000" {
		t.Errorf("ids %s %s", id, span)
	}
	if err := tr.End(context.Background(), &Report{}, time.Now()); err != nil {
		t.Error(err)
	}
	none, err := StartTrace(context.Background(), &config.Config{Action: config.Validate}, "test", time.Now())
	if none != nil || err != nil {
		t.Errorf("a run without trace context has a span: %v %v", none, err)
	}
	if none.Traceparent() != "" {
		t.Error("nil trace has a traceparent")
	}
}
