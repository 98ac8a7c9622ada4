package logging

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"k8s.io/klog/v2"
)

var fixed = func() time.Time { return time.Date(2026, 1, 7, 11, 30, 0, 500, time.FixedZone("CET", 3600)) }

func TestTextLine(t *testing.T) {
	var b bytes.Buffer
	l := New(&b, Options{Format: Text, Level: Info, Action: "deploy", Now: fixed})
	l.Infof("bootstrap", "argocd", "Installing %s...", "ArgoCD")
	l.Debugf("bootstrap", "argocd", "hidden below info")
	l.Warnf("preflight", "", "two\nlines\n")
	want := "2026-01-07T10:30:00Z INFO [deploy/bootstrap/argocd] Installing ArgoCD...\n" +
		"2026-01-07T10:30:00Z WARN [deploy/preflight/-] two | lines\n"
	if got := b.String(); got != want {
		t.Errorf("text lines:\n got %q\nwant %q", got, want)
	}
}

// The trace context closes a text line, so the RFC's prefix is kept.
func TestTextLineTrace(t *testing.T) {
	var b bytes.Buffer
	l := New(&b, Options{Format: Text, Level: Info, Action: "deploy", TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", SpanID: "00f067aa0ba902b7", Now: fixed})
	l.Infof("bootstrap", "argocd", "Installing ArgoCD...")
	want := "2026-01-07T10:30:00Z INFO [deploy/bootstrap/argocd] Installing ArgoCD... trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7\n"
	if got := b.String(); got != want {
		t.Errorf("text line:\n got %q\nwant %q", got, want)
	}
}

func TestJSONLines(t *testing.T) {
	var b bytes.Buffer
	l := New(&b, Options{Format: JSON, Level: Debug, Action: "validate", TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", SpanID: "00f067aa0ba902b7", Now: fixed})
	l.Debugf("verification", "vault", "health %q", "Degraded")
	l.Errorf("report", "platform", "multi\nline")
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got %d: %q", len(lines), b.String())
	}
	want := `{"timestamp":"2026-01-07T10:30:00Z","level":"debug","action":"validate","phase":"verification","component":"vault","message":"health \"Degraded\"","trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","span_id":"00f067aa0ba902b7"}`
	if lines[0] != want {
		t.Errorf("line 1:\n got %s\nwant %s", lines[0], want)
	}
	var obj map[string]string
	if err := json.Unmarshal([]byte(lines[1]), &obj); err != nil {
		t.Fatalf("line 2 is not one JSON object: %v", err)
	}
	if obj["message"] != "multi\nline" || obj["level"] != "error" {
		t.Errorf("line 2 = %v", obj)
	}
	// Without a trace context the keys are absent, not empty.
	b.Reset()
	New(&b, Options{Format: JSON, Action: "deploy", Now: fixed}).Infof("p", "c", "m")
	if strings.Contains(b.String(), "trace_id") || strings.Contains(b.String(), "span_id") {
		t.Errorf("trace keys without a trace context: %s", b.String())
	}
}

func TestRedact(t *testing.T) {
	var b bytes.Buffer
	l := New(&b, Options{Format: Text, Action: "deploy", Now: fixed})
	l.Redact("s3cr3t-token-value", "abc", "")
	l.Errorf("preflight", "cluster", "Unauthorized: Bearer s3cr3t-token-value rejected (abc kept)")
	if strings.Contains(b.String(), "s3cr3t") {
		t.Errorf("secret logged: %s", b.String())
	}
	if !strings.Contains(b.String(), "Bearer [redacted] rejected (abc kept)") {
		t.Errorf("unexpected scrubbed line: %s", b.String())
	}
}

func TestParse(t *testing.T) {
	for in, want := range map[string]Level{"debug": Debug, "INFO": Info, "warn": Warn, "warning": Warn, " error ": Error} {
		if got, err := ParseLevel(in); err != nil || got != want {
			t.Errorf("ParseLevel(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseLevel("verbose"); err == nil || !strings.Contains(err.Error(), `"verbose"`) {
		t.Errorf("ParseLevel(verbose) error = %v", err)
	}
	if f, err := ParseFormat("JSON"); err != nil || f != JSON {
		t.Errorf("ParseFormat(JSON) = %v, %v", f, err)
	}
	if _, err := ParseFormat("yaml"); err == nil {
		t.Error("ParseFormat(yaml) accepted")
	}
}

// client-go logs through klog; routed to Slog, its lines take the RFC
// format, its key/value pairs follow the message, and secrets are
// redacted like any other line's.
func TestKlogThroughSlog(t *testing.T) {
	var b bytes.Buffer
	l := New(&b, Options{Format: Text, Level: Info, Action: "teardown", Now: fixed})
	l.Redact("s3cr3t-token-value")
	klog.SetSlogLogger(l.Slog("", "client-go"))
	defer klog.ClearLogger()
	klog.ErrorS(errors.New("Unauthorized: s3cr3t-token-value"), "Failed to watch", "resource", "workflows")
	klog.Flush()
	got := b.String()
	for _, want := range []string{"ERROR [teardown/-/client-go] Failed to watch", "resource=workflows", "err=Unauthorized: [redacted]"} {
		if !strings.Contains(got, want) {
			t.Errorf("klog line lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "s3cr3t") || strings.Count(got, "\n") != 1 {
		t.Errorf("want one redacted line, got:\n%s", got)
	}
}

// Attributes and groups of other slog callers end up in the message.
func TestHandlerAttrs(t *testing.T) {
	var b bytes.Buffer
	l := New(&b, Options{Format: JSON, Level: Debug, Action: "validate", Now: fixed})
	s := l.Slog("verification", "vault").WithGroup("http")
	s.Debug("retrying", "attempt", 2)
	want := `{"timestamp":"2026-01-07T10:30:00Z","level":"debug","action":"validate","phase":"verification","component":"vault","message":"retrying http.attempt=2"}` + "\n"
	if got := b.String(); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	if l.Slog("", "").Enabled(context.Background(), slog.LevelDebug-4) != true {
		t.Error("verbose slog levels are debug, and debug is enabled")
	}
}

// TestClusterTextEscaped (issue 21): text from the cluster keeps ESC, CR,
// U+2028 and bidirectional controls; in a log line they drove the
// terminal or started a forged line. Every line escapes them, in the
// message and in the component, in both formats, after redaction.
func TestClusterTextEscaped(t *testing.T) {
	hostile := "Degraded\x1b[2K\r2026-01-07T10:30:00Z INFO [deploy/report/platc] succeeded\u2028forged\u2029\u202etxt.exe\u009b\xff s3cr3t-token-value"
	for _, f := range []Format{Text, JSON} {
		var b bytes.Buffer
		l := New(&b, Options{Format: f, Action: "deploy", Now: fixed})
		l.Redact("s3cr3t-token-value")
		l.Errorf("verification", "app\x1b]0;title\x07", "health: %s", hostile)
		got := b.String()
		if strings.Count(got, "\n") != 1 || !strings.HasSuffix(got, "\n") {
			t.Errorf("format %d: want one line, got %q", f, got)
		}
		for _, bad := range []string{"\x1b", "\r", "\u2028", "\u2029", "\u202e", "\x07", "\u009b", "\xff", "s3cr3t"} {
			if strings.Contains(got, bad) {
				t.Errorf("format %d: line keeps %q: %q", f, bad, got)
			}
		}
		msg := got
		if f == JSON {
			var obj map[string]string
			if err := json.Unmarshal([]byte(got), &obj); err != nil {
				t.Fatal(err)
			}
			msg = obj["message"] + " " + obj["component"]
		}
		for _, want := range []string{`Degraded\u001b[2K\u000d2026`, `\u2028forged\u2029\u202etxt.exe\u009b` + "\uFFFD [redacted]", `app\u001b]0;title\u0007`} {
			if !strings.Contains(msg, want) {
				t.Errorf("format %d: lacks %q: %q", f, want, msg)
			}
		}
	}
	// Scrub, which reports use, escapes the same way.
	l := New(io.Discard, Options{})
	if got := l.Scrub("a\x1bb\u2028c\nd"); got != `a\u001bb\u2028c`+"\nd" {
		t.Errorf("Scrub = %q", got)
	}
	if got := Escape("plain, ünïcode\tand\nlines \uFFFD"); got != "plain, ünïcode\tand\nlines \uFFFD" {
		t.Errorf("Escape changed ordinary text: %q", got)
	}
}
