package logging

import (
	"encoding/json"
	"fmt"
	"io"
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

// Logger writes log lines to one writer. It is safe for concurrent use.
type Logger struct {
	mu      sync.Mutex
	w       io.Writer
	opts    Options
	secrets []string
}

// New returns a Logger writing to w.
func New(w io.Writer, opts Options) *Logger {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Logger{w: w, opts: opts}
}

// Discard is a Logger that writes nothing.
func Discard() *Logger { return New(io.Discard, Options{Level: Error + 1}) }

// Redact registers secret values that must never appear in a log line.
// Values shorter than 4 bytes are ignored: redacting them would mangle
// ordinary words and they are not credentials anyway.
func (l *Logger) Redact(secrets ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range secrets {
		if len(s) >= 4 && !slices.Contains(l.secrets, s) {
			l.secrets = append(l.secrets, s)
		}
	}
	// Longest first, so a secret that contains another is replaced whole.
	slices.SortFunc(l.secrets, func(a, b string) int { return len(b) - len(a) })
}

// Scrub replaces every registered secret in s with "[redacted]". Reports
// use it for text that came from outside platc, such as a node message.
func (l *Logger) Scrub(s string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.scrub(s)
}

func (l *Logger) scrub(s string) string {
	for _, sec := range l.secrets {
		s = strings.ReplaceAll(s, sec, "[redacted]")
	}
	return s
}

// Enabled reports whether lines at level are written.
func (l *Logger) Enabled(level Level) bool { return level >= l.opts.Level }

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

func (l *Logger) log(level Level, phase, component, format string, args ...any) {
	if !l.Enabled(level) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	msg := l.scrub(fmt.Sprintf(format, args...))
	ts := l.opts.Now().UTC().Format(time.RFC3339)
	if phase == "" {
		phase = "-"
	}
	if component == "" {
		component = "-"
	}
	if l.opts.Format == JSON {
		// Encode writes the newline; HTML escaping would turn < into
		// \u003c and make messages harder to read for no gain.
		enc := json.NewEncoder(l.w)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(line{ts, level.String(), l.opts.Action, phase, component, msg, l.opts.TraceID, l.opts.SpanID})
		return
	}
	// One event, one line: a multi-line message (a node's output) is
	// folded so text logs stay greppable line by line.
	msg = strings.ReplaceAll(strings.TrimRight(msg, "\n"), "\n", " | ")
	fmt.Fprintf(l.w, "%s %s [%s/%s/%s] %s\n", ts, strings.ToUpper(level.String()), l.opts.Action, phase, component, msg)
}
