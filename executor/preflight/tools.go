package preflight

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Tool is one required command-line tool (RFC 3.2.1).
type Tool struct {
	Name string
	Args []string // the RFC's verification command
	Min  Version
	// Pattern finds the version in the command's output; its first group
	// is the version.
	Pattern *regexp.Regexp
	// Hint is added when the version is too old or unreadable.
	Hint string
}

// Tools are the tools of RFC 3.2.1 with the verification commands it
// names.
var Tools = []Tool{
	{Name: "ansible-playbook", Args: []string{"--version"}, Min: Version{2, 15, 0}, Pattern: regexp.MustCompile(`\[core (\d+\.\d+(?:\.\d+)?)`),
		Hint: "install ansible-core 2.15 or later"},
	{Name: "kubectl", Args: []string{"version", "--client"}, Min: Version{1, 28, 0}, Pattern: regexp.MustCompile(`Client Version: v?(\d+\.\d+(?:\.\d+)?)`)},
	{Name: "helm", Args: []string{"version", "--short"}, Min: Version{3, 12, 0}, Pattern: regexp.MustCompile(`^v?(\d+\.\d+(?:\.\d+)?)`)},
	{Name: "kubeseal", Args: []string{"--version"}, Min: Version{0, 24, 0}, Pattern: regexp.MustCompile(`version:?\s+v?(\d+\.\d+(?:\.\d+)?)`)},
	{Name: "jq", Args: []string{"--version"}, Min: Version{1, 6, 0}, Pattern: regexp.MustCompile(`^jq-(\d+\.\d+(?:\.\d+)?)`)},
	{Name: "yq", Args: []string{"--version"}, Min: Version{4, 0, 0}, Pattern: regexp.MustCompile(`(?:version v?|^yq )(\d+\.\d+(?:\.\d+)?)`),
		Hint: "platc needs mikefarah's yq (github.com/mikefarah/yq) v4, not the Python yq"},
}

// Collection is one required Ansible collection (RFC 3.2.3).
type Collection struct {
	Name string
	Min  Version
}

// Collections are the collections of RFC 3.2.3.
var Collections = []Collection{
	{"kubernetes.core", Version{4, 0, 0}},
	{"community.general", Version{4, 0, 0}},
	{"ansible.posix", Version{1, 0, 0}},
	{"ansible.utils", Version{5, 0, 0}},
}

// PythonPackage is one Python package of RFC 3.2.2, as Ansible's
// interpreter must have it: Name is its distribution name (as pip and
// importlib.metadata know it), Min the oldest version kubernetes.core's
// modules document.
type PythonPackage struct {
	Name string
	Min  Version
	// Optional, when set, says why a missing package is only reported:
	// nothing platc generates imports it.
	Optional string
}

// PythonPackages are the packages of RFC 3.2.2. openshift is optional:
// kubernetes.core 2.0 and later no longer import it (only community.okd's
// modules for OpenShift clusters do), and the bootstrap uses none of them.
var PythonPackages = []PythonPackage{
	{Name: "kubernetes", Min: Version{12, 0, 0}},
	{Name: "openshift", Optional: "kubernetes.core 2.0 and later do not import it; only OpenShift's community.okd modules do, and the bootstrap uses none"},
	{Name: "PyYAML", Min: Version{3, 11, 0}},
	{Name: "jsonpatch"},
}

// Version is major.minor.patch.
type Version [3]int

// ParseVersion reads "1.2" or "1.2.3".
func ParseVersion(s string) (Version, error) {
	var v Version
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return v, fmt.Errorf("version %q is not major.minor[.patch]", s)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return v, fmt.Errorf("version %q is not major.minor[.patch]", s)
		}
		v[i] = n
	}
	return v, nil
}

// Less reports whether v is older than w.
func (v Version) Less(w Version) bool {
	for i := range v {
		if v[i] != w[i] {
			return v[i] < w[i]
		}
	}
	return false
}

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]) }

// ToolStatus is the outcome of one tool check.
type ToolStatus string

// Tool outcomes; anything but ToolOK and ToolAbsentOptional makes the
// installation invalid (ToolStatus.Fails).
const (
	ToolOK         ToolStatus = "ok"
	ToolMissing    ToolStatus = "missing"
	ToolTooOld     ToolStatus = "too-old"
	ToolUnreadable ToolStatus = "unreadable"
	// ToolAbsentOptional is an optional Python package that is not
	// installed: reported as a warning, not a failure.
	ToolAbsentOptional ToolStatus = "absent-optional"
)

// Fails reports whether the outcome makes the installation invalid.
func (s ToolStatus) Fails() bool { return s != ToolOK && s != ToolAbsentOptional }

// ToolResult is one tool or collection, as found.
type ToolResult struct {
	Name    string     `json:"name"`
	Kind    string     `json:"kind"` // "tool", "collection" or "python-package"
	Path    string     `json:"path,omitempty"`
	Version string     `json:"version,omitempty"`
	Min     string     `json:"minimum"`
	Status  ToolStatus `json:"status"`
	Message string     `json:"message"`
}

// ToolOptions configure CheckTools.
type ToolOptions struct {
	// Path is the search path; empty means $PATH. Tests point it at a
	// directory of their own.
	Path string
	// Timeout bounds each version command; zero means 30 seconds
	// (ansible-galaxy starts Python and scans every collection path).
	Timeout time.Duration
}

// CheckTools runs every tool's verification command and checks the
// collections and the Python packages of Ansible's interpreter. Results
// come in the order of Tools, Collections, then PythonPackages.
func CheckTools(ctx context.Context, opts ToolOptions) []ToolResult {
	if opts.Path == "" {
		opts.Path = os.Getenv("PATH")
	}
	if opts.Timeout == 0 {
		opts.Timeout = 30 * time.Second
	}
	results := make([]ToolResult, len(Tools))
	outputs := make([]string, len(Tools))
	var wg sync.WaitGroup
	for i, t := range Tools {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], outputs[i] = checkTool(ctx, t, opts)
		}()
	}
	var colls []ToolResult
	wg.Add(1)
	go func() {
		defer wg.Done()
		colls = checkCollections(ctx, opts)
	}()
	wg.Wait()
	var python []ToolResult
	for i, t := range Tools {
		if t.Name == "ansible-playbook" {
			python = checkPython(ctx, results[i], outputs[i], opts)
		}
	}
	return append(append(results, colls...), python...)
}

// checkTool runs one tool's verification command; it returns the result
// and what the command printed.
func checkTool(ctx context.Context, t Tool, opts ToolOptions) (ToolResult, string) {
	r := ToolResult{Name: t.Name, Kind: "tool", Min: t.Min.String()}
	path, err := LookPath(t.Name, opts.Path)
	if err != nil {
		r.Status = ToolMissing
		r.Message = fmt.Sprintf("%s is not installed (not found on PATH); RFC 3.2.1 requires %s %s or later", t.Name, t.Name, t.Min)
		return r, ""
	}
	r.Path = path
	out, err := runTool(ctx, path, t.Args, opts)
	m := t.Pattern.FindStringSubmatch(out)
	if m == nil {
		r.Status = ToolUnreadable
		r.Message = fmt.Sprintf("%s %s did not print a version we recognise", path, strings.Join(t.Args, " "))
		if err != nil {
			r.Message += fmt.Sprintf(" (%v)", err)
		}
		r.Message += withHint(t.Hint)
		return r, out
	}
	v, _ := ParseVersion(m[1])
	r.Version = v.String()
	if v.Less(t.Min) {
		r.Status = ToolTooOld
		r.Message = fmt.Sprintf("%s %s is older than the required %s (RFC 3.2.1)%s", t.Name, v, t.Min, withHint(t.Hint))
		return r, out
	}
	r.Status = ToolOK
	r.Message = fmt.Sprintf("%s %s (at least %s)", t.Name, v, t.Min)
	return r, out
}

// ansiblePython finds, in ansible-playbook --version's report, the
// interpreter Ansible runs on: the bootstrap's inventory runs its modules
// with that one (ansible_playbook_python), so RFC 3.2.2's packages must be
// importable there.
var ansiblePython = regexp.MustCompile(`(?m)^\s*python version = .*\((/[^()]+)\)\s*$`)

// pythonProbe prints, as JSON, the installed version of each distribution
// named in argv (null when absent). The names are platc's constants,
// passed as arguments, never spliced into the program.
const pythonProbe = `import importlib.metadata as m, json, sys
out = {}
for name in sys.argv[1:]:
    try:
        out[name] = m.version(name)
    except m.PackageNotFoundError:
        out[name] = None
print(json.dumps(out))`

// checkPython checks RFC 3.2.2's packages in Ansible's interpreter, found
// from ansible-playbook's version report (ansible, its result and output).
func checkPython(ctx context.Context, ansible ToolResult, out string, opts ToolOptions) []ToolResult {
	results := make([]ToolResult, len(PythonPackages))
	fail := func(status ToolStatus, msg string) []ToolResult {
		for i, p := range PythonPackages {
			results[i] = ToolResult{Name: p.Name, Kind: "python-package", Min: p.Min.String(), Status: status, Message: msg}
		}
		return results
	}
	if ansible.Status == ToolMissing {
		return fail(ToolMissing, "ansible-playbook is not installed, so the Python packages of RFC 3.2.2 cannot be checked")
	}
	m := ansiblePython.FindStringSubmatch(out)
	if m == nil {
		return fail(ToolUnreadable, "ansible-playbook --version did not name its Python interpreter, so the Python packages of RFC 3.2.2 cannot be checked")
	}
	python := m[1]
	// Not -I: Ansible runs its modules with this interpreter's own
	// search path, user site included, so the probe must see the same.
	args := append([]string{"-c", pythonProbe}, pythonNames()...)
	res, err := runTool(ctx, python, args, opts)
	var found map[string]*string
	if jerr := json.Unmarshal([]byte(jsonPart(res)), &found); jerr != nil {
		msg := fmt.Sprintf("Ansible's Python interpreter %s could not list its packages", python)
		if err != nil {
			msg += fmt.Sprintf(" (%v)", err)
		}
		return fail(ToolUnreadable, msg)
	}
	for i, p := range PythonPackages {
		r := ToolResult{Name: p.Name, Kind: "python-package", Path: python, Min: p.Min.String()}
		got := found[p.Name]
		switch {
		case got == nil && p.Optional != "":
			r.Status = ToolAbsentOptional
			r.Message = fmt.Sprintf("Python package %s is not installed in %s; RFC 3.2.2 lists it, but %s", p.Name, python, p.Optional)
		case got == nil:
			r.Status = ToolMissing
			r.Message = fmt.Sprintf("Python package %s is not installed in Ansible's interpreter %s; RFC 3.2.2 requires it (%s -m pip install '%s')", p.Name, python, python, p.requirement())
		default:
			v, verr := ParseVersion(pythonRelease.FindString(*got))
			r.Version = *got
			switch {
			case verr != nil && p.Min != (Version{}):
				r.Status = ToolUnreadable
				r.Message = fmt.Sprintf("Python package %s reports version %q, which is not major.minor.patch", p.Name, *got)
			case verr == nil && v.Less(p.Min):
				r.Status = ToolTooOld
				r.Message = fmt.Sprintf("Python package %s %s in %s is older than the required %s (kubernetes.core's modules)", p.Name, v, python, p.Min)
			default:
				r.Status = ToolOK
				r.Message = fmt.Sprintf("Python package %s %s in %s", p.Name, *got, python)
			}
		}
		results[i] = r
	}
	return results
}

// pythonRelease is the numeric release at the start of a Python
// package's version (PEP 440: 6.0.2, 1.33, 26.1.0rc1, 2.0.post1).
var pythonRelease = regexp.MustCompile(`^\d+\.\d+(?:\.\d+)?`)

// requirement is the package as pip is told to install it.
func (p PythonPackage) requirement() string {
	if p.Min == (Version{}) {
		return p.Name
	}
	return p.Name + ">=" + p.Min.String()
}

func pythonNames() []string {
	out := make([]string, len(PythonPackages))
	for i, p := range PythonPackages {
		out[i] = p.Name
	}
	return out
}

func withHint(h string) string {
	if h == "" {
		return ""
	}
	return "; " + h
}

// checkCollections asks ansible-galaxy which collections are installed,
// across every collection path, and keeps the newest of each.
func checkCollections(ctx context.Context, opts ToolOptions) []ToolResult {
	results := make([]ToolResult, len(Collections))
	fail := func(status ToolStatus, msg string) []ToolResult {
		for i, c := range Collections {
			results[i] = ToolResult{Name: c.Name, Kind: "collection", Min: c.Min.String(), Status: status, Message: msg}
		}
		return results
	}
	path, err := LookPath("ansible-galaxy", opts.Path)
	if err != nil {
		return fail(ToolMissing, "ansible-galaxy is not installed, so the Ansible collections of RFC 3.2.3 cannot be checked; install ansible-core")
	}
	out, err := runTool(ctx, path, []string{"collection", "list", "--format", "json"}, opts)
	found := map[string]Version{}
	var byPath map[string]map[string]struct {
		Version string `json:"version"`
	}
	if jerr := json.Unmarshal([]byte(jsonPart(out)), &byPath); jerr != nil {
		msg := "ansible-galaxy collection list --format json did not print JSON"
		if err != nil {
			msg += fmt.Sprintf(" (%v)", err)
		}
		return fail(ToolUnreadable, msg)
	}
	for _, colls := range byPath {
		for name, c := range colls {
			if v, err := ParseVersion(c.Version); err == nil && found[name].Less(v) {
				found[name] = v
			}
		}
	}
	for i, c := range Collections {
		r := ToolResult{Name: c.Name, Kind: "collection", Min: c.Min.String()}
		v, ok := found[c.Name]
		switch {
		case !ok:
			r.Status = ToolMissing
			r.Message = fmt.Sprintf("Ansible collection %s is not installed; RFC 3.2.3 requires %s or later (ansible-galaxy collection install %s)", c.Name, c.Min, c.Name)
		case v.Less(c.Min):
			r.Version, r.Status = v.String(), ToolTooOld
			r.Message = fmt.Sprintf("Ansible collection %s %s is older than the required %s (RFC 3.2.3)", c.Name, v, c.Min)
		default:
			r.Version, r.Status = v.String(), ToolOK
			r.Message = fmt.Sprintf("Ansible collection %s %s (at least %s)", c.Name, v, c.Min)
		}
		results[i] = r
	}
	return results
}

// jsonPart skips anything ansible-galaxy prints before its JSON (warnings
// about the config file, say).
func jsonPart(s string) string {
	if i := strings.Index(s, "{"); i >= 0 {
		return s[i:]
	}
	return s
}

// LookPath finds an executable file called name in the directories of
// path, like exec.LookPath but without reading the process environment:
// the executor looks tools up in the PATH it hands them (PLATC_TOOL_PATH
// or its own), and Phase 0 and the bootstrap must find the same file.
func LookPath(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// runTool runs one version command with a bounded time and a minimal
// environment: the tool gets PATH, HOME and Ansible's own settings, never
// the executor's credentials.
func runTool(ctx context.Context, path string, args []string, opts ToolOptions) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = ToolEnv(opts.Path)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("no answer within %s", opts.Timeout)
	}
	return out.String(), err
}

// ToolEnv is the environment the executor gives the tools it runs: the
// search path, HOME, the locale, a temp dir, ANSIBLE_* settings, and the
// host's proxy and CA settings (toolNetEnv), without which the bootstrap's
// Helm cannot reach a chart repository from behind a proxy or a private
// CA. Above all it leaves out KUBECONFIG_DATA and everything else the
// executor was configured with.
func ToolEnv(path string) []string {
	env := []string{"PATH=" + path, "LC_ALL=C.UTF-8"}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k == "HOME" || k == "TMPDIR" || strings.HasPrefix(k, "ANSIBLE_") || slices.Contains(toolNetEnv, k) {
			env = append(env, kv)
		}
	}
	return env
}

// toolNetEnv are the variables that say how the host reaches the
// network: proxies (both spellings, as curl and Go read them) and the CA
// bundle Go, Python and git trust.
var toolNetEnv = []string{
	"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE",
}

// ToolsOK reports whether every tool and collection passed.
func ToolsOK(rs []ToolResult) bool {
	for _, r := range rs {
		if r.Status.Fails() {
			return false
		}
	}
	return true
}
