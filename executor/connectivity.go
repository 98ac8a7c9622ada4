package executor

import (
	"context"
	"encoding/base64"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/executor/config"
	"github.com/platc/platc/executor/preflight"
	"github.com/platc/platc/internal/english"
	"github.com/platc/platc/internal/safefile"
)

// endpoints are the external endpoints a deploy of the apps in scope
// needs (RFC 3.2.5): the platform repository (the root Application and
// the templates), each source's Git repository or chart repository, and the
// bootstrap's chart repositories when the bootstrap will run (a mirror
// when the platform names one). The order is the first use.
func (r *run) endpoints(bootstrap bool) []preflight.Endpoint {
	p := r.cfg.Program
	var out []preflight.Endpoint
	users := map[string][]string{}
	add := func(kind preflight.EndpointKind, u, user string) {
		key := string(kind) + " " + strings.TrimSuffix(u, "/")
		if _, ok := users[key]; !ok {
			out = append(out, preflight.Endpoint{Kind: kind, URL: u})
		}
		users[key] = append(users[key], user)
	}
	add(preflight.GitRepo, p.Platform.Git.RepoURL, "the platform repository")
	// The revision the root Application follows must be in it.
	out[0].Ref = p.Platform.Git.Revision
	if bootstrap {
		b := p.Platform.Bootstrap
		add(repoKind(b.ArgoRepo), b.ArgoRepo, "the bootstrap's Argo charts")
		add(repoKind(b.SealedSecretsRepo), b.SealedSecretsRepo, "the bootstrap's sealed-secrets chart")
	}
	for _, a := range r.cfg.ScopeApps {
		for _, s := range a.Sources {
			if s.IsChart() {
				add(repoKind(s.RepoURL), s.RepoURL, "app "+a.Name)
			} else {
				add(preflight.GitRepo, s.RepoURL, "app "+a.Name)
			}
		}
	}
	for i := range out {
		u := users[string(out[i].Kind)+" "+strings.TrimSuffix(out[i].URL, "/")]
		out[i].Purpose = purpose(u)
	}
	return out
}

func repoKind(u string) preflight.EndpointKind {
	if strings.HasPrefix(u, "oci://") {
		return preflight.OCIRepo
	}
	return preflight.HelmRepo
}

// purpose names who needs an endpoint: the first three, then a count.
func purpose(users []string) string {
	if len(users) <= 3 {
		return "for " + english.List(users)
	}
	return fmt.Sprintf("for %s and %d more", strings.Join(users[:2], ", "), len(users)-2)
}

// connectivity adds the RFC 3.2.5 checks to Phase 0's report: a deploy
// only, since validate and teardown fetch nothing.
func (r *run) connectivity(ctx context.Context, cr *preflight.ClusterReport) {
	if r.cfg.Action != config.Deploy || cr.Unreachable {
		return
	}
	bootstrap := !cr.ArgoCD.Installed || !cr.Workflows.Installed
	eps := r.endpoints(bootstrap)
	r.logins(eps)
	cr.Checks = append(cr.Checks, preflight.CheckConnectivity(ctx, eps, preflight.ConnectivityOptions{ToolPath: toolPath(r.env.ToolPath)})...)
}

// logins gives each endpoint a basic_auth credential of the platform
// serves the login Argo CD's repo-server will use for it (a repository
// Secret before a credential template, as Argo CD prefers), read from
// the secrets directory, so the check proves the login works. A login
// whose files cannot be read is left out: the credential checks report
// those. Every value read is redacted from the log and the report.
func (r *run) logins(eps []preflight.Endpoint) {
	if r.cfg.SecretsDir == "" {
		return
	}
	for i := range eps {
		var best *ir.Credential
		for j := range r.cfg.Program.Platform.Credentials {
			c := &r.cfg.Program.Platform.Credentials[j]
			if c.Type != ir.BasicAuth {
				continue
			}
			u := strings.TrimSuffix(eps[i].URL, "/")
			if !c.Template && u == strings.TrimSuffix(c.URL, "/") {
				best = c
				break
			}
			if c.Template && strings.HasPrefix(eps[i].URL, c.URL) && best == nil {
				best = c
			}
		}
		if best == nil {
			continue
		}
		dir := filepath.Join(r.cfg.SecretsDir, filepath.FromSlash(best.Path))
		user, err1 := safefile.Read(filepath.Join(dir, "username"), preflight.MaxCredentialSize)
		pass, err2 := safefile.Read(filepath.Join(dir, "password"), preflight.MaxCredentialSize)
		if err1 != nil || err2 != nil {
			continue
		}
		r.log.Redact(string(pass), base64.StdEncoding.EncodeToString([]byte(string(user)+":"+string(pass))))
		eps[i].Login = &preflight.Login{Credential: best.Name, User: string(user), Password: string(pass)}
	}
}

// credentials adds the RFC 3.2.6 checks of the platform's credentials to
// Phase 0's report: a deploy only, since only the bootstrap reads the
// files. A problem fails when this deploy runs the bootstrap, which
// writes the Secrets from them.
func (r *run) credentials(cr *preflight.ClusterReport) {
	if r.cfg.Action != config.Deploy || cr.Unreachable {
		return
	}
	var creds []preflight.Credential
	for _, c := range r.cfg.Program.Platform.Credentials {
		creds = append(creds, preflight.Credential{Name: c.Name, Type: string(c.Type), Path: c.Path})
	}
	bootstrap := !cr.ArgoCD.Installed || !cr.Workflows.Installed
	cr.Checks = append(cr.Checks, preflight.CheckCredentials(r.cfg.SecretsDir, creds, bootstrap)...)
}
