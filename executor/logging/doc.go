// Package logging writes the executor's log lines in the two formats of
// RFC-DEPLOY-0001 section 7.5: text for people,
//
//	2026-01-07T10:30:00Z INFO [deploy/bootstrap/argocd] Installing ArgoCD...
//
// and JSON lines for machines, one object per line with timestamp, level,
// action, phase, component and message, plus trace_id and span_id when the
// caller handed in a trace context (TRACE_ID, SPAN_ID).
//
// A Logger also redacts: every secret registered with Redact (a bearer
// token, a client key, the raw KUBECONFIG_DATA) is replaced in messages
// before they are written, so a credential that slips into an error
// message from a library still never reaches the log.
//
// The writing is a log/slog Handler, so client-go's klog output (routed
// with klog.SetSlogLogger to Logger.Slog) gets the same format and the
// same redaction; a slog attribute other than phase and component is
// appended to the message as key=value. It is not a general logging
// framework: no sinks, no sampling, no fields beyond the RFC's.
package logging
