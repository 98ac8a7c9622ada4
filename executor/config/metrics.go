package config

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// checkMetricsFile checks METRICS_FILE: a file in an existing directory,
// because the metrics are written at the very end of the run and a typo
// found only then would lose them silently.
func checkMetricsFile(v string, p *Problems) string {
	v = strings.TrimSpace(v)
	if v == "" {
		return ""
	}
	if !strings.HasSuffix(v, ".prom") {
		// node_exporter's textfile collector reads only *.prom files.
		p.add("METRICS_FILE %q must end in .prom, the only files node_exporter's textfile collector reads", v)
		return ""
	}
	dir := filepath.Dir(v)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		p.add("METRICS_FILE %q: its directory %s does not exist; mount the textfile collector's directory there", v, dir)
		return ""
	}
	if fi, err := os.Lstat(v); err == nil && !fi.Mode().IsRegular() {
		p.add("METRICS_FILE %q exists and is not a regular file; name a file the executor may replace", v)
		return ""
	}
	return v
}

// checkOutputFile checks a file the run writes (named by the variable
// name): it ends in ext, in an existing directory, and is a regular file
// if it exists; checked now, since a typo found only when it is written
// would lose it.
func checkOutputFile(name, v, ext string, p *Problems) string {
	v = strings.TrimSpace(v)
	if v == "" {
		return ""
	}
	if !strings.HasSuffix(v, ext) {
		p.add("%s %q must end in %s", name, v, ext)
		return ""
	}
	dir := filepath.Dir(v)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		p.add("%s %q: its directory %s does not exist; create it or mount a volume there", name, v, dir)
		return ""
	}
	if fi, err := os.Lstat(v); err == nil && !fi.Mode().IsRegular() {
		p.add("%s %q exists and is not a regular file; name a file the executor may replace", name, v)
		return ""
	}
	return v
}

// checkPushgateway checks PUSHGATEWAY_URL (serviceURL), and that it is a
// base URL, to which the client appends the push path.
func checkPushgateway(v string, p *Problems) string {
	v = strings.TrimSpace(v)
	if v == "" {
		return ""
	}
	u, ok := serviceURL("PUSHGATEWAY_URL", v, "http://pushgateway.monitoring:9091", p)
	if !ok {
		return ""
	}
	if u.RawQuery != "" || u.Fragment != "" {
		p.add("PUSHGATEWAY_URL has a query or fragment; give the Pushgateway's base URL only")
		return ""
	}
	return strings.TrimSuffix(v, "/")
}

// serviceURL parses v, the URL of a service the executor sends to (named
// by what, for messages): http or https, with a host, and without
// credentials, which RFC 7.1 forbids in plain environment variables and
// which would otherwise reach the logs with the URL. No message quotes v.
func serviceURL(what, v, example string, p *Problems) (*url.URL, bool) {
	u, err := url.Parse(v)
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https"):
		p.add("%s is not an http or https URL with a host, such as %s", what, example)
		return nil, false
	case u.User != nil:
		p.add("%s carries credentials; RFC 7.1 forbids credentials in plain environment variables: reach it without them (a NetworkPolicy, a sidecar proxy)", what)
		return nil, false
	}
	return u, true
}
