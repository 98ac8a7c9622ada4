package rules

import (
	"fmt"
	"net"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"go.yaml.in/yaml/v3"

	"github.com/platc/platc/lint"
	"github.com/platc/platc/lint/manifest"
)

// DependencyWaitJob reports Jobs whose containers wait for other apps.
var DependencyWaitJob = &lint.Rule{
	Name: "dependency-wait-job",
	Doc: `job waits for another app instead of declaring a dependency

RFC 2.2.3 forbids enforcing cross-app order from inside an app: a Job or
hook that loops until another app's database answers hangs the sync
when that app is down, hides the dependency from the deploy graph, and
runs again on every sync. The deploy DAG already starts an app only
after everything it depends on is healthy.

A Job (or a Pod carrying a hook annotation) is reported when one of its
containers
- uses a wait helper: an image or container name containing wait-for,
  or a command running wait-for-it, wait-for, wait4x, k8s-wait-for or
  dockerize -wait;
- runs kubectl wait or kubectl rollout status, or kubectl get inside a
  shell loop, with -n/--namespace naming another namespace or with
  -A/--all-namespaces;
- polls in a shell loop (until or while) with nc, curl, wget,
  pg_isready, mysqladmin, redis-cli, nslookup or getent against a host
  outside its own namespace (a dotted name that is not NAME.<own
  namespace>, or an IP address), with $VAR hosts looked up in the
  container's env.
In a PreSync hook every such wait counts, even within the namespace:
none of the app's own resources exist yet when PreSync runs.

Delete the wait and add the app it waits for to depends_on. A migration
that needs the database keeps running as a declared hook; the DAG makes
sure the database is healthy first.`,
	Severity: lint.Error,
	Default:  true,
	Scan:     true,
	Syntax:   true, // reads only the syntax: runs when compilation fails
	Run: func(p *lint.Pass) error {
		for _, o := range p.Manifests.Objects {
			var spec *yaml.Node
			hi, isHook := hookOf(o)
			switch {
			case o.Kind == "Job" && strings.HasPrefix(o.APIVersion, "batch/"):
				spec = manifest.Lookup(o.Node, "spec", "template", "spec")
			case o.Kind == "Pod" && o.APIVersion == "v1" && isHook:
				spec = manifest.Lookup(o.Node, "spec")
			default:
				continue
			}
			w := waitScan{file: o.File, ns: o.Namespace, presync: isHook && slices.Contains(hi.phases, "PreSync")}
			ev, ok := w.pod(spec)
			if !ok {
				continue
			}
			p.Report(lint.Issue{
				Message: fmt.Sprintf("dependency wait in %s: %s", objectName(o), ev.text),
				Detail:  fmt.Sprintf("This container %s. Ordering between apps belongs in the deploy graph (RFC 2.2.3): delete the wait and add the app it waits for to depends_on of the app that owns this %s.", ev.why, o.Kind),
				Subject: ev.at,
			})
		}
		return nil
	},
}

type evidence struct {
	at   hcl.Range
	text string // what was found, short
	why  string // completes "This container ..."
}

type waitScan struct {
	file    *manifest.File
	ns      string // the Job's namespace, "" when not written
	presync bool
	env     map[string]string
}

var (
	waitImage   = regexp.MustCompile(`wait-for|wait4x`)
	waitTool    = regexp.MustCompile(`(^|[\s/;&|(])(wait-for-it(\.sh)?|wait-for|wait4x|k8s-wait-for)(\s|$|;)|\bdockerize\b.*\s-wait\b`)
	kubectlWait = regexp.MustCompile(`\bkubectl\s+(.*\s)?(wait|rollout\s+status|get)\b`)
	nsFlag      = regexp.MustCompile(`(?:^|\s)(?:-n|--namespace)(?:=|\s+)([a-z0-9-]+)`)
	allNS       = regexp.MustCompile(`(?:^|\s)(-A|--all-namespaces)\b`)
	shellLoop   = regexp.MustCompile(`\b(until|while)\b`)
	probe       = regexp.MustCompile(`\b(nc|ncat|netcat|curl|wget|pg_isready|mysqladmin|redis-cli|nslookup|getent)\b`)
	hostRefs    = []*regexp.Regexp{
		regexp.MustCompile(`(?:^|\s)(?:-h|--host)(?:=|\s+)(\S+)`),
		regexp.MustCompile(`[a-z][a-z0-9+.-]*://([^/:\s"']+)`),
		regexp.MustCompile(`\b(?:nc|ncat|netcat)((?:\s+-[A-Za-z]+)*)\s+([^\s-]\S*)`),
		regexp.MustCompile(`\b(?:nslookup|getent\s+hosts)\s+(\S+)`),
	}
	envRef = regexp.MustCompile(`^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$`)
)

// pod looks at every container of a pod spec, init containers first.
func (w *waitScan) pod(spec *yaml.Node) (evidence, bool) {
	for _, field := range []string{"initContainers", "containers"} {
		list := manifest.Lookup(spec, field)
		if list == nil || list.Kind != yaml.SequenceNode {
			continue
		}
		for _, c := range list.Content {
			if ev, ok := w.container(c); ok {
				return ev, true
			}
		}
	}
	return evidence{}, false
}

func (w *waitScan) container(c *yaml.Node) (evidence, bool) {
	w.env = map[string]string{}
	if env := manifest.Lookup(c, "env"); env != nil && env.Kind == yaml.SequenceNode {
		for _, e := range env.Content {
			if name := manifest.Str(manifest.Lookup(e, "name")); name != "" {
				w.env[name] = manifest.Str(manifest.Lookup(e, "value"))
			}
		}
	}
	if img := manifest.Lookup(c, "image"); img != nil && waitImage.MatchString(strings.ToLower(img.Value)) {
		return evidence{w.file.Range(img), "image " + quote(img.Value), fmt.Sprintf("runs the wait image %q", img.Value)}, true
	}
	if name := manifest.Lookup(c, "name"); name != nil && strings.HasPrefix(name.Value, "wait-for") {
		return evidence{w.file.Range(name), "container " + quote(name.Value), fmt.Sprintf("is a wait container (%q)", name.Value)}, true
	}
	argv := append(manifest.Strings(manifest.Lookup(c, "command")), manifest.Strings(manifest.Lookup(c, "args"))...)
	// Each item may be a whole shell script (sh -c "..."); look at it
	// line by line so the finding points at the line that waits.
	for _, s := range argv {
		loop := shellLoop.MatchString(s.Value)
		for i, line := range strings.Split(s.Value, "\n") {
			if why, ok := w.line(line, loop); ok {
				at := w.file.Range(s)
				if n, exact := w.file.ContentLine(s, i); exact {
					at = w.file.LineRange(n)
				}
				return evidence{at, quote(shorten(strings.TrimSpace(line))), why}, true
			}
		}
	}
	// In exec form the command is split into items: ["kubectl", "wait",
	// "-n", "databases", ...]. Look at the items joined.
	if len(argv) > 1 {
		var parts []string
		for _, s := range argv {
			parts = append(parts, s.Value)
		}
		joined := strings.Join(parts, " ")
		if why, ok := w.line(joined, false); ok {
			return evidence{w.file.Range(argv[0]), quote(shorten(joined)), why}, true
		}
	}
	return evidence{}, false
}

// line checks one line of a command. loop says whether the script it
// belongs to has a shell loop.
func (w *waitScan) line(line string, loop bool) (string, bool) {
	if m := waitTool.FindString(line); m != "" {
		return fmt.Sprintf("runs the wait helper %q", strings.TrimSpace(strings.Trim(m, ";&|(/"))), true
	}
	if m := kubectlWait.FindStringSubmatch(line); m != nil && (m[2] != "get" || loop) {
		if allNS.MatchString(line) {
			return "waits on resources in every namespace with kubectl", true
		}
		if ns := nsFlag.FindStringSubmatch(line); ns != nil && ns[1] != w.ns {
			return fmt.Sprintf("waits on resources in namespace %q with kubectl", ns[1]), true
		}
		if w.presync {
			return "waits on resources with kubectl in a PreSync hook, before anything of its own app exists", true
		}
	}
	if loop && probe.MatchString(line) {
		for _, h := range w.hosts(line) {
			if why, ok := w.foreign(h); ok {
				return why, true
			}
		}
	}
	return "", false
}

// hosts returns the hosts a probe command names, with $VAR looked up in
// the container's env.
func (w *waitScan) hosts(line string) []string {
	var out []string
	for _, re := range hostRefs {
		for _, m := range re.FindAllStringSubmatch(line, -1) {
			h := strings.Trim(m[len(m)-1], `"';`)
			if v := envRef.FindStringSubmatch(h); v != nil {
				h = w.env[v[1]]
			}
			if h != "" && !slices.Contains(out, h) {
				out = append(out, h)
			}
		}
	}
	return out
}

// foreign says whether a probed host is outside the Job's own namespace.
func (w *waitScan) foreign(host string) (string, bool) {
	if host == "localhost" || host == "127.0.0.1" || host == "::1" || strings.HasPrefix(host, "$") {
		return "", false
	}
	if w.presync {
		return fmt.Sprintf("polls %s in a loop in a PreSync hook, before anything of its own app exists", host), true
	}
	if net.ParseIP(host) != nil {
		return fmt.Sprintf("polls %s in a loop", host), true
	}
	labels := strings.Split(host, ".")
	if len(labels) < 2 || labels[1] == w.ns {
		return "", false
	}
	return fmt.Sprintf("polls %s, outside its own namespace, in a loop", host), true
}

func shorten(s string) string {
	if r := []rune(s); len(r) > 72 {
		return string(r[:71]) + "…"
	}
	return s
}
