package compiler

import (
	"fmt"
	"net"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler/valid"
)

// Every string the compiler puts into the IR is typed here, by where it
// goes, and checked against that place's grammar: a Kubernetes name, an
// Argo CD project (which is also an RBAC policy entry), a chart version,
// a URL, a Git ref, a path inside the repository. A value that breaks
// its grammar is a diagnostic at its range; emitters then read only
// values that fit, and need no escaping of their own.
//
// The grammars are deliberately narrow. None of them admits a brace, a
// dollar sign, a quote, a backslash, white space or a line break, so no
// value can be read as an Argo template ({{...}}, for which Argo has no
// escape), as Jinja ({{ }}, {% %}) where Ansible reads it, as a new line
// or field of Argo CD's RBAC policy CSV, or as shell (the workflow
// scripts also take values through environment variables only). The
// exception is free text, such as Helm values and parameters, which goes
// only into an app's own Application, where nothing templates it; the
// other free text of an Application (annotations, info, kustomize
// patches, plugin and Jsonnet variables, gText in application.go) also
// refuses "{{" and "{%" (docs/security.md).

// A grammar is the form one kind of value must have.
type grammar struct {
	// what names the kind of value: "Invalid " + what is the summary.
	what string
	// max is the longest value allowed, in bytes.
	max int
	// check returns "" when s fits, or why it does not ("must ...").
	check func(s string) string
	// hint says how to write one, with an example.
	hint string
}

// as is g under another name, for a message that says which name it is.
func (g *grammar) as(what string) *grammar {
	c := *g
	c.what = what
	return &c
}

// validate returns why s breaks g, or "".
func (g *grammar) validate(s string) string {
	switch {
	case s == "":
		return "is empty"
	case len(s) > g.max:
		return fmt.Sprintf("is %d bytes long; at most %d are allowed", len(s), g.max)
	}
	return g.check(s)
}

// diagnose reports s, the value of a, breaking g.
func (g *grammar) diagnose(s, why string, r hcl.Range) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Invalid " + g.what,
		Detail:   fmt.Sprintf("%s %s. %s", quoteShort(s), why, g.hint),
		Subject:  r.Ptr(),
	}
}

// quoteShort quotes s for a message, cut to a readable length.
func quoteShort(s string) string {
	if utf8.RuneCountInString(s) > 80 {
		r := []rune(s)
		return strconv.Quote(string(r[:60])) + "…"
	}
	return strconv.Quote(s)
}

// is turns one of compiler/valid's questions into a check.
func is(ok func(string) bool, why string) func(string) string {
	return func(s string) string {
		if ok(s) {
			return ""
		}
		return why
	}
}

func matcher(re *regexp.Regexp, why string) func(string) string {
	return func(s string) string {
		if re.MatchString(s) {
			return ""
		}
		return why
	}
}

// plainYAML is check, and the value must also read as itself where YAML
// meets it unquoted. The argocd-apps chart prints an AppProject's name and
// the namespace of its projects and Applications as they are
// (`name: {{ $projectName }}`), and Helm reads the result with YAML 1.1,
// in which "yes", "off", "null", "123" and "0x1f" are not strings; the
// install would then fail, or name something else.
func plainYAML(check func(string) string) func(string) string {
	return func(s string) string {
		if why := check(s); why != "" {
			return why
		}
		var m map[string]any
		if err := yaml.Unmarshal([]byte("k: "+s), &m); err != nil {
			return "is not a plain YAML value"
		}
		what := "something other than a string"
		switch v := m["k"].(type) {
		case string:
			if v == s {
				return ""
			}
		case bool:
			what = "a boolean"
		case float64, int64:
			what = "a number"
		case nil:
			what = "null"
		}
		return "would be read as " + what + " by YAML, where the argocd-apps chart writes it unquoted"
	}
}

// yamlWords is what the hints of plainYAML's grammars add.
const yamlWords = " A word or number YAML reads as something else (yes, no, on, off, true, null, 123, 0x1f, 1e5) is refused."

// Kubernetes names.
var (
	gNamespace = &grammar{
		what: "namespace", max: 63,
		check: is(valid.DNSLabel, "is not a DNS-1123 label"),
		hint:  "A Kubernetes namespace is at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit, such as \"rook-ceph\".",
	}
	// gArgoCDNamespace is the namespace Argo CD runs in, which the
	// gitops-handoff role hands the argocd-apps chart.
	gArgoCDNamespace = &grammar{
		what: "namespace", max: 63,
		check: plainYAML(gNamespace.check),
		hint:  gNamespace.hint + yamlWords,
	}
	gObjectName = &grammar{
		what: "name", max: 253,
		check: is(valid.DNSSubdomain, "is not a DNS-1123 subdomain"),
		hint:  "A Kubernetes object name is lower-case letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253 characters.",
	}
	gServiceAccount = gObjectName.as("service account name")
	gSnapshotClass  = gObjectName.as("VolumeSnapshotClass name")
	gSecretName     = gObjectName.as("secret name")
	gApplication    = &grammar{
		what: "application name", max: 253,
		check: is(valid.DNSSubdomain, "is not a valid Kubernetes object name"),
		hint:  "An Argo CD Application name is lower-case letters, digits, '-' and '.', starting and ending with a letter or digit.",
	}
	// gProject is an Argo CD AppProject name. It is also written into
	// the RBAC policy CSV as "<project>/*", which this grammar keeps to
	// one field: no comma, quote, space or line break. The bootstrap
	// creates it through the argocd-apps chart (plainYAML).
	gProject = &grammar{
		what: "Argo CD project", max: 253,
		check: plainYAML(is(valid.DNSSubdomain, "is not a valid AppProject name")),
		hint:  "An Argo CD project is a Kubernetes object name: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit, such as \"team-a\"." + yamlWords,
	}
	gReleaseName = &grammar{
		what: "Helm release name", max: 53,
		check: is(valid.DNSSubdomain, "is not a valid release name"),
		hint:  "Helm release names are at most 53 lower-case letters, digits, '-' and '.', starting and ending with a letter or digit.",
	}
	gSecretKey = &grammar{
		what: "secret key", max: 253,
		check: matcher(regexp.MustCompile(`^[-._a-zA-Z0-9]+$`), "is not a valid key of a Kubernetes Secret"),
		hint:  "Secret keys are letters, digits, '-', '_' and '.', such as \"token\".",
	}
)

// Versions.
var (
	// gChartVersion admits a version or a constraint (the
	// unpinned-chart-version rule judges which), in the characters
	// Helm's and Argo CD's version syntax use.
	gChartVersion = &grammar{
		what: "chart version", max: 128,
		check: matcher(regexp.MustCompile(`^[0-9A-Za-z.+*^~<>=!|, _-]+$`), "is not a chart version"),
		hint:  "Write the chart's exact version, such as \"1.16.1\" or \"v1.15.3\".",
	}
	gSemver = &grammar{
		what: "version", max: 128,
		check: is(valid.Semver, "is not a semantic version"),
		hint:  "Write a version such as \"v3.5.1\".",
	}
)

// Git.
var (
	// gGitRef is a branch, tag or commit: what `git check-ref-format`
	// accepts, in the characters of ref names, plus the semver
	// constraint characters Argo CD reads for tags.
	gGitRef = &grammar{
		what: "Git revision", max: 255,
		check: func(s string) string {
			switch {
			case !gitRefChars.MatchString(s):
				return "holds characters a Git revision cannot"
			case strings.Contains(s, "..") || strings.Contains(s, "//") || strings.Contains(s, "/."):
				return "is not a valid Git ref name"
			case strings.HasSuffix(s, "/") || strings.HasSuffix(s, ".") || strings.HasSuffix(s, ".lock"):
				return "is not a valid Git ref name"
			}
			return ""
		},
		hint: "Use a tag, a branch or a commit, such as \"v1.4.0\" or a 40-character commit SHA.",
	}
	gitRefChars = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/+*^~<>=-]*$`)

	gRepoPath = &grammar{
		what: "path", max: 1024,
		check: checkRepoPath,
		hint:  "A path in the repository is relative, written with '/', without \"..\", such as \"apps/ceph-cluster\".",
	}
	pathChars = regexp.MustCompile(`^[A-Za-z0-9._@+=,~/-]+$`)
)

func checkRepoPath(s string) string {
	switch {
	case strings.HasPrefix(s, "/"):
		return "is an absolute path"
	case !pathChars.MatchString(s):
		return "holds characters platc does not accept in a path"
	case path.Clean(s) != s:
		return fmt.Sprintf("is not written plainly (that is %q)", path.Clean(s))
	case s == ".." || strings.HasPrefix(s, "../"):
		return "leaves the repository"
	}
	return ""
}

// checkRelPath checks a path Argo CD resolves relative to a source's
// path: like a repository path, but it may climb out of the source's
// directory first ("../common/values.yaml"), and one starting with "/"
// is from the repository's root (the chart's, for a chart), as Argo CD's
// repo server reads it. Whether it stays in the repository is checked
// against the source's path (inSource).
func checkRelPath(s string) string {
	switch {
	case strings.HasPrefix(s, "/"):
		return checkRepoPath(s[1:])
	case !pathChars.MatchString(s):
		return "holds characters platc does not accept in a path"
	case path.Clean(s) != s:
		return fmt.Sprintf("is not written plainly (that is %q)", path.Clean(s))
	}
	return ""
}

// inSource is p, relative to the source's path dir, as a path from the
// repository's root, as Argo CD resolves it; ok is false when it leaves
// the repository (Argo CD: "resolved to outside repository root").
func inSource(dir, p string) (string, bool) {
	if rest, ok := strings.CutPrefix(p, "/"); ok {
		return path.Clean(rest), true // from the root; the grammar refused ".."
	}
	j := path.Join(dir, p)
	return j, j != ".." && !strings.HasPrefix(j, "../")
}

// URLs.
var (
	gHelmRepo = &grammar{
		what: "chart repository URL", max: 2048,
		check: urlCheck("https", "http", "oci"),
		hint:  "Write the Helm repository's URL, such as \"https://charts.jetstack.io\", or an OCI registry, such as \"oci://ghcr.io/org/charts\".",
	}
	gGitRepo = &grammar{
		what: "Git repository URL", max: 2048,
		check: func(s string) string {
			if scpLike.MatchString(s) {
				return ""
			}
			return urlCheck("https", "http", "ssh", "git")(s)
		},
		hint: "Write the repository's URL, such as \"https://git.example.com/platform.git\" or \"git@git.example.com:org/platform.git\".",
	}
	gSourceRepo = &grammar{
		what: "repository URL", max: 2048,
		check: func(s string) string {
			if scpLike.MatchString(s) {
				return ""
			}
			return urlCheck("https", "http", "ssh", "git", "oci")(s)
		},
		hint: "Write a Git or Helm repository URL, such as \"https://charts.jetstack.io\".",
	}
	gWebhookURL = &grammar{
		what: "URL", max: 2048,
		check: urlCheck("https", "http"),
		hint:  "Write the URL GitHub sends deliveries to, such as \"https://events.example.com\".",
	}
	// scpLike is git's user@host:path form.
	scpLike = regexp.MustCompile(`^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[A-Za-z0-9._~/-]+$`)
	// urlChars are RFC 3986's characters minus those YAML, Jinja, Argo
	// or a shell would read: no braces, quotes, backslash or space.
	urlChars = regexp.MustCompile(`^[A-Za-z0-9._~:/?#\[\]@!&*+,;=%-]+$`)
)

// urlCheck accepts an absolute URL with one of schemes and a host.
func urlCheck(schemes ...string) func(string) string {
	return func(s string) string {
		if !urlChars.MatchString(s) {
			return "holds characters platc does not accept in a URL"
		}
		u, err := url.Parse(s)
		if err != nil || u.Host == "" || u.Opaque != "" {
			return "is not an absolute URL"
		}
		for _, sc := range schemes {
			if u.Scheme == sc {
				return ""
			}
		}
		return fmt.Sprintf("has scheme %q; use %s", u.Scheme, strings.Join(schemes, ", "))
	}
}

// Other places.
var (
	// gImage is a container image reference, after the grammar of
	// github.com/distribution/reference.
	gImage = &grammar{
		what: "image", max: 512,
		check: matcher(regexp.MustCompile(`^(([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?)*(:[0-9]+)?/)?[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*(/[a-z0-9]+(([._]|__|-+)[a-z0-9]+)*)*(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[a-f0-9]{64})?$`), "is not a container image reference"),
		hint:  "Write an image such as \"quay.io/argoproj/argocd:v3.5.1\".",
	}
	gHostPort = &grammar{
		what: "server", max: 260,
		check: checkHostPort,
		hint:  "Write host:port, such as \"argocd-server.argocd.svc:443\".",
	}
	gEndpoint = &grammar{
		what: "endpoint", max: 255,
		check: matcher(regexp.MustCompile(`^/[A-Za-z0-9._~/-]*$`), "is not a URL path"),
		hint:  "Write a path starting with '/', such as \"/push\".",
	}
	gGitHubRepo = &grammar{
		what: "repository", max: 140,
		check: matcher(regexp.MustCompile(`^[A-Za-z0-9](-?[A-Za-z0-9])*/[A-Za-z0-9._-]+$`), "is not OWNER/NAME"),
		hint:  "Write the GitHub repository as OWNER/NAME, such as \"acme/platform\".",
	}
	gSyncOption = &grammar{
		what: "sync option", max: 128,
		check: matcher(regexp.MustCompile(`^[A-Za-z]+=[A-Za-z0-9-]+$`), "is not Name=value"),
		hint:  "Argo CD sync options are Name=value, such as \"CreateNamespace=true\".",
	}
	gChartName = &grammar{
		what: "chart name", max: 250,
		check: func(s string) string {
			if !chartChars.MatchString(s) || strings.Contains(s, "..") {
				return "is not a chart name"
			}
			return ""
		},
		hint: "Write the chart's name as its repository lists it, such as \"cert-manager\".",
	}
	// gValueFile is a values file Argo CD reads: a path in the source's
	// repository, or a URL.
	gValueFile = &grammar{
		what: "values file", max: 2048,
		check: func(s string) string {
			if strings.Contains(s, "://") {
				return urlCheck("https", "http")(s)
			}
			return checkRelPath(s)
		},
		hint: "Write a path relative to the chart or Git path, such as \"values-prod.yaml\" or \"../common/values.yaml\", one from the repository's root, such as \"/common/values.yaml\", or an https URL.",
	}
)

var (
	chartChars = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)*$`)
	hostName   = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$`)
)

func checkHostPort(s string) string {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		host, port = s, ""
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return "has a port outside 1-65535"
		}
	}
	if net.ParseIP(host) != nil {
		return ""
	}
	if !hostName.MatchString(host) {
		return "is not a host name, an IP address or host:port"
	}
	return ""
}
