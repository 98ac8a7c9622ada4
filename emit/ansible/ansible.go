package ansible

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit"
	"github.com/platc/platc/emit/internal/gitops"
)

// Dir is the Ansible tree's directory in generated/<env>/.
const Dir = "ansible"

// Emitter emits the Ansible bootstrap.
type Emitter struct{}

// Name implements emit.Emitter.
func (Emitter) Name() string { return "ansible" }

// tree is the part of the bootstrap that is the same for every platform,
// kept as the files it becomes (README.md excepted), so that reviewers
// and ansible-lint read exactly what runs: the five roles of RFC 6.2.1,
// their playbooks, site.yml, the collections and the ansible-lint
// profile. hosts.yml is the inventory, written under
// inventories/<environment>/. files/README.md says why the tasks are as
// they are.
//
//go:embed all:files
var tree embed.FS

// Emit implements emit.Emitter: the embedded tree, then what depends on
// the platform, which is ansible.cfg (the inventory to use) and the
// environment's group_vars (every value from the platform, !unsafe).
func (Emitter) Emit(p *ir.Program) ([]emit.File, error) {
	inv := path.Join("inventories", p.Env.Name)
	files := []emit.File{{Path: path.Join(Dir, "ansible.cfg"), Data: config(p)}}
	err := fs.WalkDir(tree, "files", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Base(name) == "README.md" {
			return err
		}
		b, err := tree.ReadFile(name)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(name, "files/")
		if rel == "hosts.yml" {
			rel = path.Join(inv, rel)
		}
		files = append(files, emit.File{Path: path.Join(Dir, rel), Data: append([]byte(emit.Header), b...)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("emit/ansible: the embedded roles: %w", err)
	}
	vars, err := groupVars(p)
	if err != nil {
		return nil, err
	}
	data, err := yamlFile(vars, true)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path.Join(inv, "group_vars", "all.yml"), err)
	}
	files = append(files, emit.File{Path: path.Join(Dir, inv, "group_vars", "all.yml"), Data: data})
	emit.Sort(files)
	return files, nil
}

// config is ansible.cfg. Ansible reads it from the working directory, so
// the bootstrap runs from the ansible/ directory; relative paths in it are
// relative to the file.
func config(p *ir.Program) []byte {
	var b bytes.Buffer
	b.WriteString(emit.Header)
	b.WriteString("# Run from this directory: ansible-playbook site.yml\n")
	b.WriteString("[defaults]\n")
	fmt.Fprintf(&b, "inventory = inventories/%s/hosts.yml\n", p.Env.Name)
	b.WriteString("roles_path = roles\n")
	b.WriteString("retry_files_enabled = False\n")
	b.WriteString("interpreter_python = auto_silent\n")
	b.WriteString("\n[inventory]\n")
	// An inventory Ansible cannot parse is an error, not an empty
	// inventory that makes every play skip.
	b.WriteString("unparsed_is_failed = True\n")
	return b.Bytes()
}

// chart returns the chart_ref and chart_repo_url for a chart in repo: a
// Helm repository URL is passed as chart_repo_url, while an OCI registry
// is part of the chart reference.
func chart(repo, name string) (ref, repoURL string) {
	if strings.HasPrefix(repo, "oci://") {
		return strings.TrimSuffix(repo, "/") + "/" + name, ""
	}
	return name, repo
}

func groupVars(p *ir.Program) (om, error) {
	pl, b := p.Platform, p.Platform.Bootstrap
	vars := om{
		{"platc_platform", pl.Name},
		{"platc_environment", p.Env.Name},
		{"platc_git_repo_url", pl.Git.RepoURL},
		{"platc_git_revision", pl.Git.Revision},
		{"platc_generated_path", path.Join(pl.Git.Path, p.Env.Name)},
		// How long a role's first contact waits for the API server: a
		// cluster created a moment ago, or a control plane being
		// replaced, refuses connections for a while (12 × 5 s).
		{"platc_api_retries", 12},
		{"platc_api_delay", 5},
		// What a role's rescue records as the reason it failed. A module
		// that crashed says only "MODULE FAILURE"; the last line of its
		// traceback names the error (Connection refused, a TLS failure).
		// The module's output is unsafe to Ansible, so never templated.
		// A wait (until) that ran out of attempts has no message.
		{"platc_failure_attempts", jinja("{{ 'gave up after %s attempts' % ansible_failed_result.attempts if ansible_failed_result.attempts is defined else 'no message' }}")},
		{"platc_failure_message", jinja("{{ ansible_failed_result.msg | default(platc_failure_attempts) }}")},
		{"platc_failure_crash", jinja("{{ (ansible_failed_result.module_stderr | default('') | trim).splitlines() | last | default('') }}")},
		{"platc_failure_detail", jinja("{{ platc_failure_crash if platc_failure_message is match('MODULE FAILURE') and platc_failure_crash else platc_failure_message }}")},
		// Bounded, so that one crash cannot fill the report.
		{"platc_failure_reason", jinja("{{ ansible_failed_task.name | default('unknown task') }}: {{ platc_failure_detail | truncate(500) }}")},
	}
	component := func(prefix, namespace, release, repo, name, version string, values kv) {
		ref, url := chart(repo, name)
		vars = append(vars,
			kv{prefix + "_namespace", namespace},
			kv{prefix + "_release_name", release},
			kv{prefix + "_chart", name},
			kv{prefix + "_chart_ref", ref},
			kv{prefix + "_chart_repo_url", url},
			kv{prefix + "_chart_version", version},
			values,
		)
	}
	// Every chart keeps its CRDs on uninstall: a rollback that removes a
	// release must never delete the custom resources of everything else.
	keepCRDs := om{{"install", true}, {"keep", true}}
	component("argocd", pl.ArgoCD.Namespace, "argocd", b.ArgoRepo, "argo-cd", b.ArgoCDChart,
		kv{"argocd_values_file", jinja("{{ inventory_dir }}/../../../" + gitops.ValuesFile)})
	vars = append(vars,
		// Names the argo-cd chart gives the API server for release "argocd".
		kv{"argocd_server_service", "argocd-server"},
		kv{"argocd_expected_version", pl.ArgoCD.Version},
		kv{"argocd_requires_automated_enabled", gitops.EnabledRecipe(p)},
	)
	component("argo_workflows", pl.Workflows.Namespace, "argo-workflows", b.ArgoRepo, "argo-workflows", b.WorkflowsChart,
		kv{"argo_workflows_values", om{
			{"crds", keepCRDs},
			// The controller, argoexec and server at the release platc
			// validates with, not the chart's appVersion.
			{"images", om{{"tag", ir.ArgoWorkflowsVersion}}},
			{"controller", om{{"extraEnv", []om{{
				// The controller handles a pod's change this long after
				// it, 10 s by default, so every step of a deploy waits
				// up to that long to be seen done and again for the next
				// one to start. 2 s is the lowest Argo's rate limiter
				// suggests for workflows of short steps, and costs
				// little: the deploy lock lets
				// one platc workflow run at a time. The client's QPS (20)
				// and burst (30) stay: a workflow of parallelism 10 does
				// not come near them.
				{"name", "DEFAULT_REQUEUE_TIME"}, {"value", "2s"},
			}}}}},
		}})
	vars = append(vars, kv{"argo_workflows_expected_version", ir.ArgoWorkflowsVersion})
	js := gitops.JetStream
	component("argo_events", "argo-events", "argo-events", b.ArgoRepo, "argo-events", b.EventsChart,
		kv{"argo_events_values", om{
			{"crds", keepCRDs},
			// Exactly the JetStream version the EventBus pins, so the pin
			// holds whatever this chart version lists by default.
			{"configs", om{{"jetstream", om{{"versions", []om{{
				{"version", js.Version},
				{"natsImage", js.NATSImage},
				{"metricsExporterImage", js.MetricsExporterImage},
				{"configReloaderImage", js.ConfigReloaderImage},
				{"startCommand", js.StartCommand},
			}}}}}}},
		}})
	// The controller name and namespace kubeseal looks for by default.
	component("sealed_secrets", "kube-system", "sealed-secrets-controller", b.SealedSecretsRepo, "sealed-secrets", b.SealedSecretsChart,
		kv{"sealed_secrets_values", om{}})

	handoff, err := handoffValues(p)
	if err != nil {
		return nil, err
	}
	ref, url := chart(b.ArgoRepo, "argocd-apps")
	orchestration := []string{gitops.WorkflowsApp}
	if p.Events != nil {
		orchestration = append(orchestration, gitops.EventsApp)
	}
	vars = append(vars,
		kv{"gitops_handoff_release_name", gitops.RootApp},
		kv{"gitops_handoff_chart", "argocd-apps"},
		kv{"gitops_handoff_chart_ref", ref},
		kv{"gitops_handoff_chart_repo_url", url},
		kv{"gitops_handoff_chart_version", b.ArgoCDAppsChart},
		kv{"gitops_handoff_root_app", gitops.RootApp},
		// How long the handoff waits for the root to apply every
		// Application, in 10 s attempts: Argo CD creates them one
		// by one, and the root's first sync of 1,000 took 4m21s on the
		// 2-core box under load (0.26 s each). Ten minutes, plus twice
		// that rate: a fixed ten minutes failed the bootstrap of 10,000.
		kv{"gitops_handoff_sync_retries", handoffRetries(len(p.Apps))},
		kv{"gitops_handoff_orchestration_apps", orchestration},
		kv{"gitops_handoff_group_roots", append([]string{}, gitops.GroupRootNames(p)...)},
		kv{"gitops_handoff_argocd_account", gitops.Account},
		// Where the workflows read the automation token; the bootstrap
		// creates the Secret and never writes the token anywhere else.
		kv{"gitops_handoff_token_secret", om{
			{"name", pl.ArgoCD.TokenSecret.Name},
			{"key", pl.ArgoCD.TokenSecret.Key},
			{"namespace", pl.Workflows.Namespace},
		}},
		kv{"gitops_handoff_workflows_namespace", pl.Workflows.Namespace},
		kv{"gitops_handoff_workflow_templates", []string{gitops.DeployTemplate, gitops.ValidateTemplate, gitops.TeardownTemplate}},
		kv{"gitops_handoff_cluster_workflow_templates", []string{gitops.ClusterTemplate}},
		kv{"gitops_handoff_submit_template", gitops.DeployTemplate},
		kv{"gitops_handoff_values", handoff},
	)
	secrets, files, namespaces := credentialVars(p)
	vars = append(vars,
		kv{"gitops_handoff_credentials", secrets},
		kv{"gitops_handoff_credential_files", files},
		kv{"gitops_handoff_credential_namespaces", namespaces},
	)
	return vars, nil
}

// handoffRetries is gitops_handoff_sync_retries for a platform of n
// apps: 60 attempts of 10 s, and one more for every 20 apps (0.5 s each).
func handoffRetries(n int) int { return 60 + (n+19)/20 }

// credentialVars lists the Secrets the gitops-handoff role creates from
// the platform's credentials: for each, its name, namespace, type and
// labels, the fields that are not secret (an Argo CD repository's url
// and type), and which file under platc_secrets_dir each data key is
// read from. The files' content never passes through platc. Also the
// files to read, once each, and the namespaces to create first.
func credentialVars(p *ir.Program) (secrets []om, files, namespaces []string) {
	for _, c := range p.Platform.Credentials {
		var data []om
		file := func(key, path string) {
			data = append(data, om{{"key", key}, {"file", path}})
			if !slices.Contains(files, path) {
				files = append(files, path)
			}
		}
		typ := "Opaque"
		labels := om{{"app.kubernetes.io/managed-by", "platc"}, {"platc.io/credential", c.Name}}
		var stringData om
		switch c.Type {
		case ir.SSHKey:
			file("sshPrivateKey", c.Path)
		case ir.BasicAuth:
			file("username", c.Path+"/username")
			file("password", c.Path+"/password")
		case ir.DockerConfig:
			typ = "kubernetes.io/dockerconfigjson"
			file(".dockerconfigjson", c.Path)
		case ir.DNSToken:
			file(c.Key, c.Path)
		}
		if c.Type.IsRepository() {
			// Argo CD's declarative repositories: a Secret labelled
			// repository serves one URL, repo-creds every URL under it.
			kind := "repository"
			if c.Template {
				kind = "repo-creds"
			}
			labels = append(labels, kv{"argocd.argoproj.io/secret-type", kind})
			stringData = om{{"url", c.URL}, {"type", c.RepoType}}
			if c.RepoType == "helm" {
				stringData = append(stringData, kv{"name", c.Name})
			}
			if c.OCI {
				stringData = append(stringData, kv{"enableOCI", "true"})
			}
		}
		for _, ns := range c.Namespaces {
			secrets = append(secrets, om{
				{"credential", c.Name},
				{"name", c.SecretName},
				{"namespace", ns},
				{"type", typ},
				{"labels", labels},
				{"string_data", stringData},
				{"data", data},
			})
			if ns != p.Platform.ArgoCD.Namespace && !slices.Contains(namespaces, ns) {
				namespaces = append(namespaces, ns)
			}
		}
	}
	return secrets, files, namespaces
}

// handoffValues are the argocd-apps chart values: the AppProjects and the
// root Application, the same objects as argocd/projects.yaml and
// argocd/root.yaml, in the chart's name-keyed form.
func handoffValues(p *ir.Program) (om, error) {
	var projects om
	for _, pr := range gitops.Projects(p) {
		spec, err := plain(pr.Spec)
		if err != nil {
			return nil, err
		}
		projects = append(projects, kv{pr.Metadata.Name, om{
			{"namespace", pr.Metadata.Namespace},
			{"additionalLabels", plainLabels(pr.Metadata.Labels)},
		}.with(spec...)})
	}
	root := gitops.Root(p)
	spec, err := plain(root.Spec)
	if err != nil {
		return nil, err
	}
	apps := om{{root.Metadata.Name, om{
		{"namespace", root.Metadata.Namespace},
		{"additionalLabels", plainLabels(root.Metadata.Labels)},
	}.with(spec...)}}
	return om{{"projects", projects}, {"applications", apps}}, nil
}

// plain turns a typed object into an ordered map with keys in emit's
// order, the same JSON the objects have in argocd/*.yaml.
func plain(v any) (om, error) {
	j, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("emit/ansible: %w", err)
	}
	d := json.NewDecoder(bytes.NewReader(j))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, fmt.Errorf("emit/ansible: %w", err)
	}
	out := make(om, 0, len(m))
	for _, k := range slices.SortedFunc(maps.Keys(m), emit.CompareKeys) {
		out = append(out, kv{k, m[k]})
	}
	return out, nil
}

func plainLabels(l map[string]string) map[string]any {
	m := make(map[string]any, len(l))
	for k, v := range l {
		m[k] = v
	}
	return m
}
