package preflight

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Endpoint is one external endpoint the platform needs the cluster to
// reach (RFC 3.2.5).
type Endpoint struct {
	Kind EndpointKind
	URL  string
	// Purpose says who needs it, for the report ("the root Application
	// and 3 apps").
	Purpose string
	// Login is the basic-auth login of the platform's credential for the
	// repository, read from the secrets directory; nil for a public one.
	Login *Login
	// Ref is, for a Git repository, the branch or tag that must exist
	// in it (the revision Argo CD is to deploy); empty, or a commit SHA,
	// which no ref lists, means only HEAD is asked for.
	Ref string
}

// Login is a basic_auth credential's username and password, sent by the
// check as Argo CD's repo-server will send them. Never printed.
type Login struct {
	Credential     string // the credential's name, for messages
	User, Password string
}

// EndpointKind says how an endpoint is checked.
type EndpointKind string

// The kinds of endpoint.
const (
	GitRepo  EndpointKind = "git"  // git ls-remote
	HelmRepo EndpointKind = "helm" // GET index.yaml
	OCIRepo  EndpointKind = "oci"  // GET /v2/ of the registry
)

// ConnectivityOptions bound the checks.
type ConnectivityOptions struct {
	// ToolPath is where git is looked up.
	ToolPath string
	// Timeout bounds each check; zero means 10 seconds.
	Timeout time.Duration
	// Client is the HTTP client; nil means one that honours the proxy
	// environment (HTTPS_PROXY, NO_PROXY), as a pod's tools do.
	Client *http.Client
}

// MaxEndpoints bounds how many endpoints one Phase 0 checks; the rest
// are named in one line, unchecked.
const MaxEndpoints = 64

// CheckConnectivity checks each endpoint, read-only and bounded in time,
// four at a time, and returns one check per endpoint in the order given.
// Every problem is a warning, never a failure: RFC 3.2.5 requires the
// cluster to reach these endpoints but gives no failure mode, and platc
// may run where the cluster is not (a CI runner with other egress rules):
// Argo CD's repo-server is the one that fetches, and a deploy reports its
// ComparisonError if it cannot. An endpoint that answers but asks for
// credentials is reachable; whether Argo CD holds them is its repository
// configuration. Only the login of the platform's own credential for a
// repository is sent (Endpoint.Login), never one from the environment: the
// checks run no credential helper and no prompt.
func CheckConnectivity(ctx context.Context, eps []Endpoint, opts ConnectivityOptions) []Check {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.Client == nil {
		opts.Client = &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, TLSHandshakeTimeout: opts.Timeout}}
	}
	skipped := 0
	if len(eps) > MaxEndpoints {
		skipped, eps = len(eps)-MaxEndpoints, eps[:MaxEndpoints]
	}
	out := make([]Check, len(eps))
	sem := make(chan struct{}, 4)
	var wg sync.WaitGroup
	for i, ep := range eps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			cctx, cancel := context.WithTimeout(ctx, opts.Timeout)
			defer cancel()
			var st Status
			var msg string
			switch ep.Kind {
			case GitRepo:
				st, msg = checkGit(cctx, ep.URL, ep.Ref, ep.Login, opts)
			case OCIRepo:
				st, msg = checkHTTP(cctx, opts.Client, ociBase(ep.URL), true, ep.Login)
			default:
				st, msg = checkHTTP(cctx, opts.Client, strings.TrimSuffix(ep.URL, "/")+"/index.yaml", false, ep.Login)
			}
			if cctx.Err() != nil && st == Warn && !strings.HasPrefix(msg, "reachable") {
				msg = fmt.Sprintf("no answer within %s", opts.Timeout)
			}
			out[i] = Check{Name: "reach-" + string(ep.Kind), Status: st, Message: fmt.Sprintf("%s (%s): %s", ep.URL, ep.Purpose, msg)}
		}()
	}
	wg.Wait()
	if skipped > 0 {
		out = append(out, Check{Name: "reach", Status: Info, Message: fmt.Sprintf("%d more endpoints not checked (at most %d are)", skipped, MaxEndpoints)})
	}
	return out
}

// ociBase is the registry API root of an oci:// chart repository.
func ociBase(repo string) string {
	u, err := url.Parse(repo)
	if err != nil {
		return repo
	}
	return "https://" + u.Host + "/v2/"
}

// checkHTTP GETs u and reads at most 1 KiB of the answer. For an OCI
// registry 401 is the normal answer to an anonymous /v2/ (the token
// challenge), so it means reachable.
func checkHTTP(ctx context.Context, c *http.Client, u string, registry bool, login *Login) (Status, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return Warn, "not a URL platc can request"
	}
	req.Header.Set("User-Agent", "platc-preflight")
	if login != nil && !registry {
		// A registry's /v2/ answers 401 with a token challenge whatever
		// the login; only a chart repository's index shows it works.
		req.SetBasicAuth(login.User, login.Password)
	}
	resp, err := c.Do(req)
	if err != nil {
		return Warn, "unreachable: " + netReason(err)
	}
	defer resp.Body.Close()
	_, _ = io.CopyN(io.Discard, resp.Body, 1024)
	switch code := resp.StatusCode; {
	case login != nil && !registry && code < 300:
		return Pass, fmt.Sprintf("reachable with the login of credential %q (HTTP %d)", login.Credential, code)
	case login != nil && !registry && (code == http.StatusUnauthorized || code == http.StatusForbidden):
		return Warn, fmt.Sprintf("refuses the login of credential %q (HTTP %d); Argo CD's repo-server, which logs in with the same, will be refused too. Correct the credential's files", login.Credential, code)
	case code < 300, registry && code == http.StatusUnauthorized:
		return Pass, fmt.Sprintf("reachable (HTTP %d)", code)
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return Warn, fmt.Sprintf("reachable, but it asks for credentials (HTTP %d); Argo CD needs a repository Secret for it", code)
	case code == http.StatusNotFound && !registry:
		return Warn, "reachable, but it has no index.yaml (HTTP 404): not a Helm repository at this URL"
	default:
		return Warn, fmt.Sprintf("HTTP %d", code)
	}
}

// netReason is the last part of a network error, which names the cause
// (no such host, connection refused, certificate signed by unknown
// authority) without repeating the URL.
func netReason(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return s
}

// checkGit runs git ls-remote on the repository's HEAD, or on ref: a
// reachable repository without that branch or tag is the day-2 mistake
// of a platform.git.revision whose tag was never pushed, which Argo CD
// could only report as a ComparisonError after the root moved to it.
// Only the transports a repository URL may name are allowed (never ext::
// or file), and no credential helper, prompt or askpass runs.
func checkGit(ctx context.Context, repo, ref string, login *Login, opts ConnectivityOptions) (Status, string) {
	pattern := "HEAD"
	if ref != "" && ref != "HEAD" && !isCommit(ref) {
		pattern = ref
	}
	git, err := LookPath("git", opts.ToolPath)
	if err != nil {
		return Warn, "not checked: git is not installed"
	}
	home, err := os.MkdirTemp("", "platc-git-")
	if err != nil {
		return Warn, "not checked: " + err.Error()
	}
	defer os.RemoveAll(home)
	cmd := exec.CommandContext(ctx, git,
		"-c", "protocol.allow=never", "-c", "protocol.https.allow=always", "-c", "protocol.http.allow=always",
		"-c", "protocol.ssh.allow=always", "-c", "protocol.git.allow=always", "-c", "credential.helper=",
		"ls-remote", "--quiet", "--", repo, pattern)
	env := []string{"PATH=" + opts.ToolPath, "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=/bin/false", "SSH_ASKPASS=/bin/false",
		"GIT_SSH_COMMAND=ssh -o BatchMode=yes -o ConnectTimeout=10"}
	for _, kv := range os.Environ() {
		// A pod's proxy and trust settings apply to git as to the rest.
		k, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(k) {
		case "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY", "ALL_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR", "GIT_SSL_CAINFO":
			env = append(env, kv)
		}
	}
	if login != nil && (strings.HasPrefix(repo, "https://") || strings.HasPrefix(repo, "http://")) {
		// The login as a header from git's environment-only configuration
		// (git 2.31): never on the command line, where ps shows it.
		auth := base64.StdEncoding.EncodeToString([]byte(login.User + ":" + login.Password))
		env = append(env, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http.extraHeader", "GIT_CONFIG_VALUE_0=Authorization: Basic "+auth)
	}
	cmd.Env = env
	cmd.WaitDelay = time.Second
	var errb, outb bytes.Buffer
	cmd.Stderr = &errb
	cmd.Stdout = &outb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(lastLine(errb.String()))
		if msg == "" {
			msg = err.Error()
		}
		if gitAsksForLogin(errb.String()) {
			if login != nil {
				return Warn, fmt.Sprintf("refuses the login of credential %q; Argo CD's repo-server, which logs in with the same, will be refused too. Correct the credential's files (%s)", login.Credential, msg)
			}
			return Warn, "reachable, but it asks for credentials; Argo CD needs a repository Secret for it (" + msg + ")"
		}
		return Warn, "git ls-remote failed: " + msg
	}
	if pattern != "HEAD" && !hasRef(outb.String(), pattern) {
		return Warn, fmt.Sprintf("reachable, but it has no branch or tag %q, the revision to deploy; Argo CD cannot resolve it. Push it (git push origin %s) or correct platform.git.revision", ref, ref)
	}
	if login != nil {
		return Pass, fmt.Sprintf("reachable with the login of credential %q (git ls-remote)", login.Credential)
	}
	return Pass, "reachable (git ls-remote)"
}

// gitAsksForLogin reports whether git's stderr says the server wants a
// login or refused one. An HTTP status counts only as git words it ("The
// requested URL returned error: 403"): a bare "403" also matches the
// port in a URL such as http://127.0.0.1:40347/missing.git.
func gitAsksForLogin(stderr string) bool {
	for _, auth := range []string{"Authentication failed", "could not read Username", "terminal prompts disabled", "Permission denied", "returned error: 403", "returned error: 401"} {
		if strings.Contains(stderr, auth) {
			return true
		}
	}
	return false
}

// hasRef reports whether ls-remote's output lists ref itself as a branch
// or tag (a pattern also matches refs/heads/x/ref).
func hasRef(out, ref string) bool {
	ref = strings.TrimPrefix(strings.TrimPrefix(ref, "refs/heads/"), "refs/tags/")
	for _, line := range strings.Split(out, "\n") {
		_, name, ok := strings.Cut(strings.TrimSpace(line), "\t")
		if !ok {
			continue
		}
		if name == "refs/heads/"+ref || name == "refs/tags/"+ref {
			return true
		}
	}
	return false
}

// isCommit reports whether s is a full hexadecimal commit id (SHA-1 or
// SHA-256), which ls-remote cannot look up.
func isCommit(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
