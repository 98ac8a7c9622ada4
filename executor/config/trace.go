package config

import (
	"encoding/hex"
	"os"
	"strings"
)

// OTLPEnv reads one OTLP exporter setting (setting is "ENDPOINT" or
// "PROTOCOL") the way the OpenTelemetry SDK does: the traces signal's own
// variable, OTEL_EXPORTER_OTLP_TRACES_<setting>, before the general
// OTEL_EXPORTER_OTLP_<setting>.
func OTLPEnv(setting string) string {
	for _, n := range []string{"OTEL_EXPORTER_OTLP_TRACES_" + setting, "OTEL_EXPORTER_OTLP_" + setting} {
		if v := strings.TrimSpace(os.Getenv(n)); v != "" {
			return v
		}
	}
	return ""
}

// checkTrace checks the trace context of RFC 7.5: TRACE_ID and SPAN_ID
// in W3C Trace Context form, since platc hands them on as a traceparent
// (to the Workflow, every step pod and the spans it exports). A 64-bit
// trace id (Jaeger's classic form) is widened with zeros, as
// OpenTelemetry does.
func checkTrace(cfg *Config, in Input, p *Problems) {
	cfg.TraceID, cfg.SpanID = "", ""
	trace, span := strings.ToLower(strings.TrimSpace(in.TraceID)), strings.ToLower(strings.TrimSpace(in.SpanID))
	if len(trace) == 16 {
		trace = strings.Repeat("0", 16) + trace
	}
	switch {
	case trace == "" && span != "":
		p.add("SPAN_ID is set without TRACE_ID; a span belongs to a trace: set both, or neither")
	case trace != "" && !w3cID(trace, 16):
		p.add("TRACE_ID is not a W3C trace id: 32 hexadecimal digits, not all zero (such as 4bf92f3577b34da6a3ce929d0e0e4736)")
	case span != "" && !w3cID(span, 8):
		p.add("SPAN_ID is not a W3C span id: 16 hexadecimal digits, not all zero (such as 00f067aa0ba902b7)")
	default:
		cfg.TraceID, cfg.SpanID = trace, span
	}

	// The OTLP exporter reads the OTEL_EXPORTER_OTLP_* variables itself;
	// platc checks the ones it can before anything runs.
	if in.OTLPProtocol != "" && in.OTLPProtocol != "http/protobuf" {
		p.add("OTEL_EXPORTER_OTLP_PROTOCOL is %q, but platc exports traces over OTLP/HTTP with protobuf only: unset it or set http/protobuf", in.OTLPProtocol)
	}
	if e := strings.TrimSpace(in.OTLPEndpoint); e != "" {
		if _, ok := serviceURL("the OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)", e, "http://otel-collector.observability:4318", p); ok {
			cfg.OTLPEndpoint = e
		}
	}
}

func w3cID(s string, n int) bool {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != n {
		return false
	}
	for _, c := range b {
		if c != 0 {
			return true
		}
	}
	return false
}
