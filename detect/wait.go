package detect

import (
	"fmt"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"go.yaml.in/yaml/v3"

	"github.com/platc/platc/manifest"
)

// A Wait is one place where a container waits for something outside its
// own app.
type Wait struct {
	// At is the line (or scalar) of the manifest that waits.
	At hcl.Range
	// Text is what was found, short and quoted: `"until nc -z db 5432"`.
	Text string
	// Why completes "This container ...": "polls db.data, outside its
	// own namespace, in a loop".
	Why string
	// Targets are what the wait names, as far as the command says: the
	// objects kubectl waits on, the hosts a probe polls. A wait helper
	// whose arguments name nothing recognisable has none.
	Targets []Target
	// Container is the index of the container that waits, init
	// containers first.
	Container int
	// Helper is set when the whole container is a wait helper (a wait
	// image, or a container named wait-for-*).
	Helper bool
	// Line is the line of the command that waits, in full; for a command
	// in exec form, the items joined.
	Line string
	// Exec is set when the wait is a whole command in exec form.
	Exec bool
}

// TargetKind says what a Target names.
type TargetKind int

// Kinds of wait targets.
const (
	// TargetObject is an object kubectl waits on or polls: Resource and
	// Name, or Resource and Selector.
	TargetObject TargetKind = iota + 1
	// TargetCRD is a CustomResourceDefinition kubectl waits for: Name is
	// the CRD's name (plural.group).
	TargetCRD
	// TargetHost is a host a probe polls: Host as written, Name and
	// Namespace as the Kubernetes DNS name reads (SERVICE.NAMESPACE...),
	// both empty for an IP address.
	TargetHost
)

// A Target is one thing a wait names.
type Target struct {
	Kind TargetKind
	// Namespace is where the target lives: from -n, from the host name,
	// or else the waiting object's own namespace ("" when unknown).
	Namespace string
	// Resource is the kubectl resource type as written: "deployment",
	// "statefulsets", "postgresql".
	Resource string
	// Name is the object's, CRD's or Service's name.
	Name string
	// Selector is the label selector of a kubectl wait on -l.
	Selector string
	// Host is the host a probe polls, as written.
	Host string
}

// String describes a target for messages: deployment/vault in namespace
// "vault", CRD "cephclusters.ceph.rook.io", host "db.data.svc".
func (t Target) String() string {
	switch t.Kind {
	case TargetCRD:
		return "CRD " + strconv.Quote(t.Name)
	case TargetHost:
		return "host " + strconv.Quote(t.Host)
	}
	what := t.Resource + "/" + t.Name
	if t.Name == "" {
		what = t.Resource + " -l " + t.Selector
	}
	if t.Namespace != "" {
		what += " in namespace " + strconv.Quote(t.Namespace)
	}
	return what
}

// Waits returns every dependency wait in a Job (or a Pod that is a
// hook), init containers first, in the order written. ns is the
// namespace the object runs in: its metadata.namespace, or the
// destination namespace of the app that deploys it ("" when unknown).
//
// A container waits when it
//   - uses a wait helper: an image or container name containing
//     wait-for, or a command running wait-for-it, wait-for, wait4x,
//     k8s-wait-for or dockerize -wait;
//   - runs kubectl wait or kubectl rollout status, or kubectl get inside
//     a shell loop, with -n naming another namespace or with -A;
//   - polls in a shell loop (until or while) with nc, curl, wget,
//     pg_isready, psql, mysqladmin, redis-cli, nslookup or getent against a
//     host outside its own namespace ($VAR hosts are looked up in the
//     container's env).
//
// In a PreSync hook every such wait counts, even within the namespace:
// none of the app's own resources exist yet when PreSync runs.
func Waits(o *manifest.Object, ns string) []Wait {
	var spec *yaml.Node
	hi, isHook := HookOf(o)
	switch {
	case o.Kind == "Job" && strings.HasPrefix(o.APIVersion, "batch/"):
		spec = manifest.Lookup(o.Node, "spec", "template", "spec")
	case o.Kind == "Pod" && o.APIVersion == "v1" && isHook:
		spec = manifest.Lookup(o.Node, "spec")
	default:
		return nil
	}
	w := waitScan{file: o.File, ns: ns, presync: isHook && slices.Contains(hi.Phases, "PreSync")}
	var out []Wait
	i := 0
	for _, field := range []string{"initContainers", "containers"} {
		list := manifest.Lookup(spec, field)
		if list == nil || list.Kind != yaml.SequenceNode {
			continue
		}
		for _, c := range list.Content {
			for _, wt := range w.container(c) {
				wt.Container = i
				out = append(out, wt)
			}
			i++
		}
	}
	return out
}

type waitScan struct {
	file    *manifest.File
	ns      string // the namespace the object runs in, "" when unknown
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
	loopEnd     = regexp.MustCompile(`\bdone\b`)
	probe       = regexp.MustCompile(`\b(nc|ncat|netcat|curl|wget|pg_isready|psql|mysqladmin|redis-cli|nslookup|getent)\b`)
	hostRefs    = []*regexp.Regexp{
		regexp.MustCompile(`(?:^|\s)(?:-h|--host)(?:=|\s+)(\S+)`),
		regexp.MustCompile(`[a-z][a-z0-9+.-]*://(?:[^@/\s"']*@)?([^/:\s"'@]+)`),
		regexp.MustCompile(`\b(?:nc|ncat|netcat)((?:\s+-[A-Za-z]+)*)\s+([^\s-]\S*)`),
		regexp.MustCompile(`\b(?:nslookup|getent\s+hosts)\s+(\S+)`),
	}
	// hostPort is a host:port argument, as wait helpers take them.
	hostPort = regexp.MustCompile(`(?:^|[\s=])([A-Za-z0-9$][A-Za-z0-9_.{}$-]*):(\d{1,5})\b`)
	envRef   = regexp.MustCompile(`^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$`)
	envVar   = regexp.MustCompile(`\$\{?[A-Za-z_][A-Za-z0-9_]*\}?`)
	// shellSeparators end one command of a shell line and start another.
	shellSeparators = regexp.MustCompile(`;|&&|\|\||\||\)|(?:^|\s)(?:do|then)(?:\s|$)`)
)

func (w *waitScan) container(c *yaml.Node) []Wait {
	w.env = map[string]string{}
	if env := manifest.Lookup(c, "env"); env != nil && env.Kind == yaml.SequenceNode {
		for _, e := range env.Content {
			if name := manifest.Str(manifest.Lookup(e, "name")); name != "" {
				w.env[name] = manifest.Str(manifest.Lookup(e, "value"))
			}
		}
	}
	argv := append(manifest.Strings(manifest.Lookup(c, "command")), manifest.Strings(manifest.Lookup(c, "args"))...)
	// A wait image or container is a wait whatever its arguments say; its
	// arguments only say what it waits for.
	joined := func() string {
		var parts []string
		for _, s := range argv {
			parts = append(parts, s.Value)
		}
		return strings.Join(parts, " ")
	}
	if img := manifest.Lookup(c, "image"); img != nil && waitImage.MatchString(strings.ToLower(img.Value)) {
		return []Wait{{At: w.file.Range(img), Text: "image " + strconv.Quote(img.Value), Why: fmt.Sprintf("runs the wait image %q", img.Value),
			Targets: w.helperTargets(argv), Helper: true, Line: joined()}}
	}
	if name := manifest.Lookup(c, "name"); name != nil && strings.HasPrefix(name.Value, "wait-for") {
		return []Wait{{At: w.file.Range(name), Text: "container " + strconv.Quote(name.Value), Why: fmt.Sprintf("is a wait container (%q)", name.Value),
			Targets: w.helperTargets(argv), Helper: true, Line: joined()}}
	}
	var out []Wait
	// Each item may be a whole shell script (sh -c "..."); look at it
	// line by line so each finding points at the line that waits. A line
	// is in a loop from the line that opens an until or while loop to
	// the line that closes it with done.
	for _, s := range argv {
		depth := 0
		for i, line := range strings.Split(s.Value, "\n") {
			depth += len(shellLoop.FindAllString(line, -1))
			why, targets, ok := w.line(line, depth > 0)
			depth = max(0, depth-len(loopEnd.FindAllString(line, -1)))
			if !ok {
				continue
			}
			at := w.file.Range(s)
			if n, exact := w.file.ContentLine(s, i); exact {
				at = w.file.LineRange(n)
			}
			out = append(out, Wait{At: at, Text: strconv.Quote(shorten(strings.TrimSpace(line))), Why: why, Targets: targets, Line: line})
		}
	}
	// In exec form the command is split into items: ["kubectl", "wait",
	// "-n", "databases", ...]. Look at the items joined.
	if len(out) == 0 && len(argv) > 1 {
		j := joined()
		if why, targets, ok := w.line(j, false); ok {
			out = append(out, Wait{At: w.file.Range(argv[0]), Text: strconv.Quote(shorten(j)), Why: why, Targets: targets, Line: j, Exec: true})
		}
	}
	return out
}

// line checks one line of a command. loop says whether the script it
// belongs to has a shell loop.
func (w *waitScan) line(line string, loop bool) (string, []Target, bool) {
	if m := waitTool.FindString(line); m != "" {
		return fmt.Sprintf("runs the wait helper %q", strings.TrimSpace(strings.Trim(m, ";&|(/"))), w.hostTargets(line, true), true
	}
	if m := kubectlWait.FindStringSubmatch(line); m != nil && (m[2] != "get" || loop) {
		targets := w.kubectlTargets(line)
		if allNS.MatchString(line) {
			return "waits on resources in every namespace with kubectl", targets, true
		}
		if ns := nsFlag.FindStringSubmatch(line); ns != nil && ns[1] != w.ns {
			return fmt.Sprintf("waits on resources in namespace %q with kubectl", ns[1]), targets, true
		}
		if w.presync {
			return "waits on resources with kubectl in a PreSync hook, before anything of its own app exists", targets, true
		}
	}
	if loop && probe.MatchString(line) {
		why := ""
		var targets []Target
		for _, h := range w.hosts(line) {
			if reason, ok := w.foreign(h); ok {
				if why == "" {
					why = reason
				}
				targets = append(targets, w.hostTarget(h))
			}
		}
		if why != "" {
			return why, targets, true
		}
	}
	return "", nil, false
}

// hosts returns the hosts a probe command names, with $VAR looked up in
// the container's env.
func (w *waitScan) hosts(line string) []string {
	// A variable may hold a whole URL (VAULT_ADDR=http://vault.vault:8200).
	line = envVar.ReplaceAllStringFunc(line, func(v string) string {
		if val, ok := w.env[strings.Trim(v, "${}")]; ok && strings.Contains(val, "://") {
			return val
		}
		return v
	})
	var out []string
	for _, re := range hostRefs {
		for _, m := range re.FindAllStringSubmatch(line, -1) {
			if h := w.expand(m[len(m)-1]); h != "" && !slices.Contains(out, h) {
				out = append(out, h)
			}
		}
	}
	return out
}

// expand strips quotes from a host and looks up a $VAR in the env.
func (w *waitScan) expand(h string) string {
	h = strings.Trim(h, `"';`)
	if v := envRef.FindStringSubmatch(h); v != nil {
		h = w.env[v[1]]
	}
	return h
}

// hostTargets returns every host a line names: probe arguments, URLs,
// and (for wait helpers, withPorts) host:port arguments.
func (w *waitScan) hostTargets(line string, withPorts bool) []Target {
	hosts := w.hosts(line)
	if withPorts {
		for _, m := range hostPort.FindAllStringSubmatch(line, -1) {
			if h := w.expand(m[1]); h != "" && !slices.Contains(hosts, h) {
				hosts = append(hosts, h)
			}
		}
	}
	var out []Target
	for _, h := range hosts {
		if h == "localhost" || h == "127.0.0.1" || h == "::1" || strings.HasPrefix(h, "$") {
			continue
		}
		out = append(out, w.hostTarget(h))
	}
	return out
}

// helperTargets reads what a wait image's arguments name: the
// k8s-wait-for forms ("service NAME", "pod -lSELECTOR", "job NAME"), or
// hosts as wait-for-it and friends take them.
func (w *waitScan) helperTargets(argv []*yaml.Node) []Target {
	var args []string
	for _, s := range argv {
		args = append(args, strings.Fields(s.Value)...)
	}
	for i, a := range args {
		res := map[string]string{"service": "service", "pod": "pod", "pod-wr": "pod", "job": "job", "job-wr": "job"}[a]
		if res == "" || i+1 >= len(args) {
			continue
		}
		t := Target{Kind: TargetObject, Resource: res, Namespace: w.ns}
		for _, x := range args[i+1:] {
			switch {
			case strings.HasPrefix(x, "-l"):
				t.Selector = strings.TrimPrefix(strings.TrimPrefix(x, "-l"), "=")
			case t.Name == "" && t.Selector == "" && !strings.HasPrefix(x, "-"):
				t.Name = x
			}
		}
		if t.Name != "" || t.Selector != "" {
			return []Target{t}
		}
	}
	var parts []string
	for _, s := range argv {
		parts = append(parts, s.Value)
	}
	return w.hostTargets(strings.Join(parts, " "), true)
}

// hostTarget reads a host the way cluster DNS does: SERVICE,
// SERVICE.NAMESPACE, SERVICE.NAMESPACE.svc[.cluster.local].
func (w *waitScan) hostTarget(h string) Target {
	t := Target{Kind: TargetHost, Host: h}
	if net.ParseIP(h) != nil {
		return t
	}
	labels := strings.Split(h, ".")
	t.Name = labels[0]
	if len(labels) == 1 {
		t.Namespace = w.ns
	} else {
		t.Namespace = labels[1]
	}
	return t
}

// kubectlFlagsWithValue are kubectl flags whose value may follow as the
// next word.
var kubectlFlagsWithValue = []string{
	"-n", "--namespace", "-l", "--selector", "--for", "--timeout", "-o", "--output",
	"--context", "--kubeconfig", "-f", "--filename", "--field-selector", "-c", "--cluster", "--server", "-s",
}

var crdTypes = []string{
	"crd", "crds", "customresourcedefinition", "customresourcedefinitions",
	"customresourcedefinition.apiextensions.k8s.io", "customresourcedefinitions.apiextensions.k8s.io",
}

// kubectlTargets reads the objects a kubectl command on one line names.
func (w *waitScan) kubectlTargets(line string) []Target {
	var out []Target
	for _, seg := range shellSeparators.Split(line, -1) {
		words := strings.Fields(seg)
		k := slices.Index(words, "kubectl")
		if k < 0 {
			continue
		}
		ns, sel := w.ns, ""
		var plain []string
		for i := k + 1; i < len(words); i++ {
			word := strings.Trim(words[i], `"'`)
			flag, val, hasVal := strings.Cut(word, "=")
			if strings.HasPrefix(word, "-") {
				if !hasVal && slices.Contains(kubectlFlagsWithValue, flag) && i+1 < len(words) {
					val = strings.Trim(words[i+1], `"'`)
					i++
				}
				switch flag {
				case "-n", "--namespace":
					ns = val
				case "-l", "--selector":
					sel = val
				}
				continue
			}
			if strings.HasPrefix(word, ">") || strings.HasPrefix(word, "2>") {
				break
			}
			plain = append(plain, w.expand(word))
		}
		// plain is VERB [status] TYPE[/NAME] [NAME...].
		if len(plain) > 0 && plain[0] == "rollout" {
			plain = plain[1:]
		}
		if len(plain) < 2 {
			continue
		}
		plain = plain[1:]
		typ := ""
		for _, p := range plain {
			t := Target{Kind: TargetObject, Namespace: ns}
			if r, name, ok := strings.Cut(p, "/"); ok {
				typ, t.Resource, t.Name = r, r, name
			} else if typ == "" {
				typ = p
				continue
			} else {
				t.Resource, t.Name = typ, p
			}
			if slices.Contains(crdTypes, strings.ToLower(t.Resource)) {
				t = Target{Kind: TargetCRD, Resource: t.Resource, Name: t.Name}
			}
			out = append(out, t)
		}
		if len(out) == 0 && typ != "" && sel != "" {
			out = append(out, Target{Kind: TargetObject, Namespace: ns, Resource: typ, Selector: sel})
		}
	}
	return out
}

// foreign says whether a probed host is outside the object's own
// namespace.
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
