package logging

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
)

// Level is a log level, ordered from most to least verbose.
type Level int

// Levels of RFC 7.5.
const (
	Debug Level = iota
	Info
	Warn
	Error
)

var levelNames = [...]string{"debug", "info", "warn", "error"}

// slogLevel is l as log/slog orders levels.
func (l Level) slogLevel() slog.Level {
	switch l {
	case Debug:
		return slog.LevelDebug
	case Info:
		return slog.LevelInfo
	case Warn:
		return slog.LevelWarn
	}
	return slog.LevelError + slog.Level(4*(l-Error))
}

// fromSlog is the RFC level of a slog level: anything below info is
// debug, and so on up.
func fromSlog(l slog.Level) Level {
	switch {
	case l < slog.LevelInfo:
		return Debug
	case l < slog.LevelWarn:
		return Info
	case l < slog.LevelError:
		return Warn
	}
	return Error
}

// String returns the level as the RFC writes it in JSON: "info".
func (l Level) String() string {
	if l < Debug || l > Error {
		return fmt.Sprintf("level(%d)", int(l))
	}
	return levelNames[l]
}

// ParseLevel accepts debug, info, warn (or warning) and error, in any case.
func ParseLevel(s string) (Level, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		return Debug, nil
	case "info":
		return Info, nil
	case "warn", "warning":
		return Warn, nil
	case "error":
		return Error, nil
	}
	return Info, fmt.Errorf("unknown log level %q; use debug, info, warn or error", s)
}

// Format is a log line format.
type Format int

// Formats of RFC 7.5.
const (
	Text Format = iota
	JSON
)

// ParseFormat accepts text and json, in any case.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "text":
		return Text, nil
	case "json":
		return JSON, nil
	}
	return Text, fmt.Errorf("unknown log format %q; use text or json", s)
}

// Options configure a Logger.
type Options struct {
	Format  Format
	Level   Level
	Action  string // deploy, validate or teardown
	TraceID string
	SpanID  string
	// Now returns the current time; nil means time.Now. Tests fix it.
	Now func() time.Time
}

// Logger writes log lines to one writer through its Handler. It is safe
// for concurrent use.
type Logger struct {
	h *Handler
}

// New returns a Logger writing to w.
func New(w io.Writer, opts Options) *Logger {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Logger{h: &Handler{out: &output{w: w}, opts: opts}}
}

// Discard is a Logger that writes nothing.
func Discard() *Logger { return New(io.Discard, Options{Level: Error + 1}) }

// Redact registers secret values that must never appear in a log line.
// Values shorter than 4 bytes are ignored: redacting them would mangle
// ordinary words and they are not credentials anyway.
func (l *Logger) Redact(secrets ...string) {
	o := l.h.out
	o.mu.Lock()
	defer o.mu.Unlock()
	added := false
	for _, s := range secrets {
		if len(s) >= 4 && !slices.Contains(o.secrets, s) {
			o.secrets = append(o.secrets, s)
			added = true
		}
	}
	// Longest first, so a secret that contains another is replaced whole.
	// (Called on every API request with its credential: sort only when
	// something is new.)
	if added {
		slices.SortFunc(o.secrets, func(a, b string) int { return len(b) - len(a) })
	}
}

// Scrub replaces every registered secret in s with "[redacted]" and then
// escapes it (Escape), as every log line is. Reports use it for text that
// came from outside platc, such as a node message.
func (l *Logger) Scrub(s string) string {
	o := l.h.out
	o.mu.Lock()
	defer o.mu.Unlock()
	return Escape(o.scrub(s))
}

// Enabled reports whether lines at level are written.
func (l *Logger) Enabled(level Level) bool { return level >= l.h.opts.Level }

// Debugf, Infof, Warnf and Errorf write one line. phase is the RFC phase
// (preflight, bootstrap, orchestration, verification, report) and
// component what the line is about (an app, a tool, "cluster").
func (l *Logger) Debugf(phase, component, format string, args ...any) {
	l.log(Debug, phase, component, format, args...)
}

// Infof writes an info line; see Debugf.
func (l *Logger) Infof(phase, component, format string, args ...any) {
	l.log(Info, phase, component, format, args...)
}

// Warnf writes a warn line; see Debugf.
func (l *Logger) Warnf(phase, component, format string, args ...any) {
	l.log(Warn, phase, component, format, args...)
}

// Errorf writes an error line; see Debugf.
func (l *Logger) Errorf(phase, component, format string, args ...any) {
	l.log(Error, phase, component, format, args...)
}

func (l *Logger) log(level Level, phase, component, format string, args ...any) {
	if !l.Enabled(level) {
		return
	}
	r := slog.NewRecord(time.Time{}, level.slogLevel(), fmt.Sprintf(format, args...), 0)
	r.AddAttrs(slog.String(PhaseKey, phase), slog.String(ComponentKey, component))
	_ = l.h.Handle(context.Background(), r)
}

// Slog is a log/slog logger writing through the same handler, its lines
// in phase ("" for none) and about component: what client-go's klog
// output is routed to, so that a library's line has the RFC's format and
// is redacted too.
func (l *Logger) Slog(phase, component string) *slog.Logger {
	return slog.New(l.h.WithAttrs([]slog.Attr{slog.String(PhaseKey, phase), slog.String(ComponentKey, component)}))
}

// Keys of the two attributes the RFC's line format takes from a record
// besides its time, level and message.
const (
	PhaseKey     = "phase"
	ComponentKey = "component"
)

// output is what every Handler derived from one Logger shares: the
// writer, the lock that keeps lines whole, and the secrets.
type output struct {
	mu      sync.Mutex
	w       io.Writer
	secrets []string
}

func (o *output) scrub(s string) string {
	for _, sec := range o.secrets {
		s = strings.ReplaceAll(s, sec, "[redacted]")
	}
	return s
}

// Handler is a log/slog handler that writes RFC 7.5 lines: the record's
// phase and component attributes go to their places in the line, any
// other attribute is appended to the message as key=value, and the
// whole message is redacted.
type Handler struct {
	out   *output
	opts  Options
	attrs []slog.Attr
	group string
}

// Enabled implements slog.Handler.
func (h *Handler) Enabled(_ context.Context, l slog.Level) bool { return fromSlog(l) >= h.opts.Level }

// WithAttrs implements slog.Handler.
func (h *Handler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	for _, a := range as {
		c.attrs = append(slices.Clip(c.attrs), h.qualify(a))
	}
	return &c
}

// WithGroup implements slog.Handler; a group only prefixes later keys.
func (h *Handler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.group = h.group + name + "."
	return &c
}

func (h *Handler) qualify(a slog.Attr) slog.Attr {
	if h.group != "" {
		a.Key = h.group + a.Key
	}
	return a
}

// Handle implements slog.Handler.
func (h *Handler) Handle(_ context.Context, r slog.Record) error {
	phase, component := "-", "-"
	var extra strings.Builder
	take := func(a slog.Attr) bool {
		switch v := a.Value.Resolve(); {
		case a.Key == PhaseKey && v.Kind() == slog.KindString:
			phase = orDash(v.String())
		case a.Key == ComponentKey && v.Kind() == slog.KindString:
			component = orDash(v.String())
		case a.Key != "":
			fmt.Fprintf(&extra, " %s=%s", a.Key, v.String())
		}
		return true
	}
	for _, a := range h.attrs {
		take(a)
	}
	r.Attrs(func(a slog.Attr) bool { return take(h.qualify(a)) })
	level := fromSlog(r.Level)
	// The line is stamped by Options.Now, not the record's time, so a
	// library's lines and platc's come from one clock (a fixed one in
	// tests).
	t := h.opts.Now()
	o := h.out
	o.mu.Lock()
	defer o.mu.Unlock()
	// Redacted first, so a secret is matched as written; then escaped,
	// so no message, phase or component can forge a line.
	msg := Escape(o.scrub(r.Message + extra.String()))
	phase, component = Escape(o.scrub(phase)), Escape(o.scrub(component))
	ts := t.UTC().Format(time.RFC3339)
	if h.opts.Format == JSON {
		// Encode writes the newline; HTML escaping would turn < into
		// \u003c and make messages harder to read for no gain.
		enc := json.NewEncoder(o.w)
		enc.SetEscapeHTML(false)
		return enc.Encode(line{ts, level.String(), h.opts.Action, phase, component, msg, h.opts.TraceID, h.opts.SpanID})
	}
	// One event, one line: a multi-line message (a node's output) is
	// folded so text logs stay greppable line by line.
	msg = strings.ReplaceAll(strings.TrimRight(msg, "\n"), "\n", " | ")
	// The trace context closes the line, in logfmt, so the RFC's
	// "<timestamp> <LEVEL> [action/phase/component] <message>" still
	// starts every line and a log pipeline can still join on it.
	if h.opts.TraceID != "" {
		msg += " trace_id=" + h.opts.TraceID
		if h.opts.SpanID != "" {
			msg += " span_id=" + h.opts.SpanID
		}
	}
	_, err := fmt.Fprintf(o.w, "%s %s [%s/%s/%s] %s\n", ts, strings.ToUpper(level.String()), h.opts.Action, phase, component, msg)
	return err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// line is one JSON log line; the field order is the RFC's.
type line struct {
	Timestamp string `json:"timestamp"`
	Level     string `json:"level"`
	Action    string `json:"action"`
	Phase     string `json:"phase"`
	Component string `json:"component"`
	Message   string `json:"message"`
	TraceID   string `json:"trace_id,omitempty"`
	SpanID    string `json:"span_id,omitempty"`
}
