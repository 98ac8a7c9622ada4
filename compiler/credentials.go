package compiler

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/lang"
)

// gCredentialPath is a file (or, for basic_auth, a directory) under the
// executor's secrets directory. It stays inside the directory, and its
// characters are those of a Kubernetes Secret key plus '/', which is how
// a mounted Secret names its files; a leading dot is allowed
// (.dockerconfigjson).
var gCredentialPath = &grammar{
	what: "credential path", max: 253,
	check: func(s string) string {
		switch {
		case !credentialPathChars.MatchString(s):
			return "holds characters platc does not accept in a credential path"
		case strings.HasPrefix(s, "/"):
			return "is absolute; it is relative to the secrets directory"
		case path.Clean(s) != s:
			return fmt.Sprintf("is not written plainly (that is %q)", path.Clean(s))
		case s == ".." || strings.HasPrefix(s, "../"):
			return "leaves the secrets directory"
		}
		return ""
	},
	hint: "Write the file's path relative to the executor's secrets directory (/secrets), such as \"git-team.key\" or \"registry/.dockerconfigjson\".",
}

var credentialPathChars = regexp.MustCompile(`^[-._a-zA-Z0-9/]+$`)

var credentialTypes = []string{string(ir.SSHKey), string(ir.BasicAuth), string(ir.DockerConfig), string(ir.DNSToken)}

// repoUse is one repository the platform's Applications read.
type repoUse struct {
	url  string
	typ  string // "git" or "helm"
	oci  bool
	user string // who reads it, for messages
}

// usedRepos are the repositories Argo CD reads for this environment: the
// platform repository (the root Application) and every app source's.
func (c *compilation) usedRepos() []repoUse {
	var out []repoUse
	seen := map[string]bool{}
	add := func(u, typ, user string) {
		if u == "" || seen[norm(u)] {
			return
		}
		seen[norm(u)] = true
		out = append(out, repoUse{url: u, typ: typ, oci: strings.HasPrefix(u, "oci://"), user: user})
	}
	add(c.prog.Platform.Git.RepoURL, "git", "the platform repository")
	for _, a := range c.prog.Apps {
		for _, s := range a.Sources {
			if s.IsChart() {
				add(s.RepoURL, "helm", "app "+a.Name)
			} else {
				add(s.RepoURL, "git", "app "+a.Name)
			}
		}
	}
	return out
}

// norm is a repository URL as two spellings of it compare.
func norm(u string) string { return strings.TrimSuffix(u, "/") }

// credentials checks the platform's credential blocks against what the
// platform uses and decides, once, each one's Secret: its name, kind,
// namespaces and Argo CD repository type. It runs after the apps, whose
// sources and namespaces it reads.
func (c *compilation) credentials() {
	lp := c.m.Platform
	if lp == nil || len(lp.Credentials) == 0 {
		return
	}
	e := c.eval
	used := c.usedRepos()
	var urls []string
	for _, u := range used {
		urls = append(urls, u.url)
	}
	namespaces := c.inClusterNamespaces()
	names := map[string]hcl.Range{}
	matched := map[string]hcl.Range{} // exact URL or prefix -> first credential
	for _, lc := range lp.Credentials {
		if d := checkName("credential", lc.Name, lc.NameRange); d != nil {
			c.diags = append(c.diags, d)
			continue
		}
		if first, ok := names[lc.Name]; ok {
			c.diags = append(c.diags, duplicateName("credential", lc.Name, lc.NameRange, first))
			continue
		}
		names[lc.Name] = lc.NameRange
		e.require(lc.Type, "type", "credential", lc.DeclRange)
		t, ok := e.oneOf(lc.Type, credentialTypes...)
		if !ok {
			continue
		}
		cr := ir.Credential{Name: lc.Name, Type: ir.CredentialType(t), Path: lc.Name, DeclRange: lc.DeclRange}
		if lc.Path != nil {
			cr.Path = e.typedOr(lc.Path, gCredentialPath, lc.Name)
		}
		if cr.Type.IsRepository() {
			if !c.repositoryCredential(lc, &cr, used, urls, matched) {
				continue
			}
		} else if !c.secretCredential(lc, &cr, namespaces) {
			continue
		}
		c.prog.Platform.Credentials = append(c.prog.Platform.Credentials, cr)
	}
}

// repositoryCredential fills in an ssh_key or basic_auth credential:
// exactly one of repo_url (a repository Secret) and url_prefix (a
// credential template), for a repository the platform reads, over a
// transport the credential can authenticate.
func (c *compilation) repositoryCredential(lc *lang.Credential, cr *ir.Credential, used []repoUse, urls []string, matched map[string]hcl.Range) bool {
	e := c.eval
	for _, a := range []*hcl.Attribute{lc.Namespaces, lc.Key} {
		if a != nil {
			c.diags = append(c.diags, diag.Error(a.NameRange, fmt.Sprintf("%s on a repository credential", a.Name),
				fmt.Sprintf("%s applies to docker_config and dns_token credentials, whose Secrets go into the platform's namespaces. A %s credential becomes an Argo CD repository Secret in Argo CD's namespace; remove %s.", a.Name, cr.Type, a.Name)))
		}
	}
	hasURL, hasPrefix := e.present(lc.RepoURL), e.present(lc.URLPrefix)
	switch {
	case hasURL && hasPrefix:
		c.diags = append(c.diags, diag.Error(lc.URLPrefix.NameRange, "Both repo_url and url_prefix",
			"A credential serves one repository (repo_url, an Argo CD repository Secret) or every repository under a prefix (url_prefix, an Argo CD credential template), not both. Remove one."))
		return false
	case !hasURL && !hasPrefix:
		c.diags = append(c.diags, diag.Error(lc.DeclRange, "Missing repository",
			fmt.Sprintf("A %s credential names the repository it opens: repo_url = \"...\" for one repository the platform reads, or url_prefix = \"https://git.example.com/team/\" for every repository under it.", cr.Type)))
		return false
	}
	attr, g := lc.RepoURL, gSourceRepo
	if hasPrefix {
		attr, cr.Template = lc.URLPrefix, true
	}
	u, ok := e.typed(attr, g)
	if !ok {
		return false
	}
	cr.URL = u
	r := attr.Expr.Range()
	ssh := scpLike.MatchString(u) || strings.HasPrefix(u, "ssh://")
	switch {
	case cr.Type == ir.SSHKey && !ssh:
		c.diags = append(c.diags, diag.Error(r, "SSH key for a repository not read over SSH",
			fmt.Sprintf("%s is not an ssh:// or git@host:path URL, so Argo CD would never offer the key. Use a basic_auth credential (a token as the password) for HTTPS, or read the repository over SSH.", quoteShort(u))))
		return false
	case cr.Type == ir.BasicAuth && ssh:
		c.diags = append(c.diags, diag.Error(r, "Basic auth for a repository read over SSH",
			fmt.Sprintf("%s is read over SSH, which takes a key, not a username and password. Use type = \"ssh_key\".", quoteShort(u))))
		return false
	}
	for _, bu := range []string{c.prog.Platform.Bootstrap.ArgoRepo, c.prog.Platform.Bootstrap.SealedSecretsRepo} {
		if !cr.Template && norm(bu) == norm(u) {
			c.diags = append(c.diags, diag.Error(r, "Credential for a bootstrap chart repository",
				fmt.Sprintf("%s is read by Helm in the Ansible bootstrap, not by Argo CD, and the bootstrap logs in to no chart repository. Mirror the charts to a repository the bootstrap host can read without credentials, or leave this credential out.", u)))
			return false
		}
	}
	var hits []repoUse
	for _, ru := range used {
		if cr.Template && strings.HasPrefix(ru.url, u) || !cr.Template && norm(ru.url) == norm(u) {
			hits = append(hits, ru)
		}
	}
	if len(hits) == 0 {
		what, fix := "repository", "Name a repository the platform reads, or remove the credential."
		if cr.Template {
			what, fix = "repository under the prefix", "Correct the prefix so it starts a repository URL the platform reads, or remove the credential."
		}
		if s := diag.Suggest(u, urls); s != "" {
			fix = fmt.Sprintf("Did you mean %q? ", s) + fix
		}
		c.diags = append(c.diags, diag.Error(r, "Credential for a repository the platform never reads",
			fmt.Sprintf("No app source and not the platform repository reads %s %s, so Argo CD would never use this credential. %s", what, quoteShort(u), fix)))
		return false
	}
	cr.RepoType, cr.OCI = hits[0].typ, hits[0].oci
	for _, h := range hits[1:] {
		if h.typ != cr.RepoType || h.oci != cr.OCI {
			c.diags = append(c.diags, diag.Error(r, "Credential template for Git and Helm repositories",
				fmt.Sprintf("The prefix %s covers %s (%s) and %s (%s); an Argo CD credential template has one repository type. Use a longer prefix, or one credential per kind.", quoteShort(u), hits[0].url, kindWord(hits[0]), h.url, kindWord(h))))
			return false
		}
	}
	key := "url " + norm(u)
	if cr.Template {
		key = "prefix " + u
	}
	if first, ok := matched[key]; ok {
		c.diags = append(c.diags, diag.Error(r, "Two credentials for one repository",
			fmt.Sprintf("The credential at %s already serves %s; Argo CD would pick one of the two Secrets at random. Remove one.", diag.At(first), quoteShort(u))))
		return false
	}
	matched[key] = lc.DeclRange
	cr.Namespaces = []string{c.prog.Platform.ArgoCD.Namespace}
	cr.SecretName = "platc-repo-" + cr.Name
	if cr.Template {
		cr.SecretName = "platc-creds-" + cr.Name
	}
	return true
}

func kindWord(r repoUse) string {
	switch {
	case r.oci:
		return "an OCI Helm repository of " + r.user
	case r.typ == "helm":
		return "a Helm repository of " + r.user
	}
	return "a Git repository of " + r.user
}

// secretCredential fills in a docker_config or dns_token credential: a
// Secret of the credential's name in each namespace listed, every one of
// them a namespace an app of the platform deploys into in this cluster.
func (c *compilation) secretCredential(lc *lang.Credential, cr *ir.Credential, namespaces []string) bool {
	e := c.eval
	for _, a := range []*hcl.Attribute{lc.RepoURL, lc.URLPrefix} {
		if a != nil {
			c.diags = append(c.diags, diag.Error(a.NameRange, fmt.Sprintf("%s on a %s credential", a.Name, cr.Type),
				fmt.Sprintf("A %s credential is a Secret in the platform's namespaces, which no repository uses. Remove %s, or use type = \"basic_auth\" or \"ssh_key\" for a private repository.", cr.Type, a.Name)))
		}
	}
	cr.SecretName = cr.Name
	if cr.Type == ir.DNSToken {
		cr.Key = e.typedOr(lc.Key, gSecretKey, "token")
	} else if lc.Key != nil {
		c.diags = append(c.diags, diag.Error(lc.Key.NameRange, "key on a docker_config credential",
			"An image pull Secret always holds its config under .dockerconfigjson (type kubernetes.io/dockerconfigjson). Remove key."))
	}
	e.require(lc.Namespaces, "namespaces", "credential", lc.DeclRange)
	list := c.typedList(lc.Namespaces, gNamespace)
	if len(list) == 0 {
		if lc.Namespaces != nil && e.present(lc.Namespaces) {
			c.diags = append(c.diags, diag.Error(lc.Namespaces.Expr.Range(), "No namespaces",
				fmt.Sprintf("A %s credential is created in the namespaces listed; name at least one, such as the namespace of the app that uses it.", cr.Type)))
		}
		return false
	}
	ok := true
	for _, ns := range list {
		if slices.Contains(cr.Namespaces, ns) {
			c.diags = append(c.diags, diag.Error(lc.Namespaces.Expr.Range(), "Duplicate namespace",
				fmt.Sprintf("%q is listed twice. Remove one.", ns)))
			ok = false
			continue
		}
		if !slices.Contains(namespaces, ns) {
			fix := "List the namespace of an app that uses it, or remove it."
			if s := diag.Suggest(ns, namespaces); s != "" {
				fix = fmt.Sprintf("Did you mean %q? ", s) + fix
			}
			c.diags = append(c.diags, diag.Error(lc.Namespaces.Expr.Range(), "Credential for a namespace the platform never deploys into",
				fmt.Sprintf("No app of the platform deploys into namespace %q in the cluster Argo CD runs in, where the bootstrap creates the Secret, so nothing could use it there. %s", ns, fix)))
			ok = false
			continue
		}
		cr.Namespaces = append(cr.Namespaces, ns)
	}
	return ok
}

// inClusterNamespaces are the namespaces apps deploy into in the cluster
// Argo CD runs in, sorted.
func (c *compilation) inClusterNamespaces() []string {
	var out []string
	for _, a := range c.prog.Apps {
		if a.Destination.InCluster() && a.Namespace != "" && !slices.Contains(out, a.Namespace) {
			out = append(out, a.Namespace)
		}
	}
	slices.Sort(out)
	return out
}
