package e2e

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/platc/platc/compiler"
	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/emit/ansible"
	"github.com/platc/platc/lang"
)

// PlatformOptions say which platform to bring up and how.
type PlatformOptions struct {
	// Path is the platform: a directory of .hcl files or one file.
	Path string
	// Env is the environment; empty means the first one declared.
	Env string
	// Platc is the platc binary to build with and run.
	Platc string
	// Scale turns expected durations into simulated time (default 1/60:
	// a minute becomes a second).
	Scale float64
	// Fail lists apps whose operator reports a Degraded sample, or whose
	// pods never start.
	Fail []string
	// DeployBootstraps leaves the bootstrap to platc deploy, as on a
	// cluster without Argo CD and Argo Workflows: Deploy stops before it,
	// and Platc lets the executor run the real ansible-playbook.
	DeployBootstraps bool
	// Charts is a directory of the upstream charts' archives,
	// <chart>-<version>.tgz, served in place of the stand-ins (upstream.go);
	// empty means the stand-ins.
	Charts string
	// SlowKinds makes the operators of these kinds ("group/Kind") slow:
	// an instance gets its status this long after it appears, whatever
	// its app's expected duration, while the app's pods start as usual.
	SlowKinds map[string]time.Duration
}

// Platform is a platform built, published and bootstrapped in an
// environment, with its simulated operators and step runtime running.
type Platform struct {
	Env     *Env
	Opts    PlatformOptions
	Program *ir.Program
	Module  *lang.Module
	// Declared is the dependency graph read from the HCL without platc,
	// the answer key of the order checks.
	Declared *Declared
	// Handoff is the token's Secret, from the generated group_vars.
	Handoff  *Handoff
	ArgoCD   *ArgoCD
	Timeline *Timeline
	// Generated is the environment's output of platc build.
	Generated string
	// Revision is the commit of the platform repository Argo CD deploys.
	Revision string
	// Notes says what the environment had to approximate for this
	// platform (samples it lacked, say).
	Notes []string

	// secretsDir holds the files of the platform's credentials, as
	// /secrets would; "" when it declares none.
	secretsDir string

	steps   *stepRunner
	kubelet *processKubelet
	// standIns are the stand-in charts, as published.
	standIns []standInChart
	ops      *operators
	samples  *samples
}

// Deploy builds the platform with platc build, publishes the output and
// every app's simulated content on the simulated network, and runs the
// generated Ansible bootstrap against the environment as platc deploy
// runs it, with stand-ins for the upstream charts: Argo CD with platc's
// argocd-cm and RBAC, Argo Workflows, Argo Events, Sealed Secrets, the
// automation token, the AppProjects and the root Application. It returns
// once Argo CD has delivered the workflow templates.
func (e *Env) Deploy(ctx context.Context, opts PlatformOptions) (*Platform, error) {
	m, prog, opts, err := loadPlatform(opts)
	if err != nil {
		return nil, err
	}
	abs := opts.Path
	pl := &Platform{Env: e, Opts: opts, Program: prog, Module: m}
	if pl.Declared, err = ReadDeclared(abs); err != nil {
		return nil, err
	}
	pl.samples = loadSamples(prog, m, filepath.Join(e.opts.Src, "argo-cd"))
	pl.Notes = append(pl.Notes, pl.samples.notes...)
	for _, l := range pl.samples.Sources() {
		e.logf("samples of %s", l)
	}

	// 1. platc build, as a user would run it.
	if pl.Generated, err = e.build(ctx, opts); err != nil {
		return nil, err
	}
	e.logf("built %s (%s) into %s", abs, opts.Env, pl.Generated)

	// 2. Publish.
	if err := pl.publish(ctx); err != nil {
		return nil, err
	}
	// 3. What the bootstrap would install.
	if err := pl.bootstrap(ctx); err != nil {
		return nil, err
	}
	return pl, nil
}

// build runs platc build, as a user would, for the platform and
// environment of opts into the environment's generated/ directory, and
// returns the environment's tree.
func (e *Env) build(ctx context.Context, opts PlatformOptions) (string, error) {
	out := filepath.Join(e.opts.Dir, "generated")
	cmd := exec.CommandContext(ctx, opts.Platc, "build", "--env", opts.Env, "-o", out, opts.Path)
	cmd.Env = []string{"PATH=" + e.ToolPath(), "HOME=" + e.opts.Dir, "NO_COLOR=1"}
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("platc build: %v\n%s", err, b)
	}
	return filepath.Join(out, opts.Env), nil
}

// publish puts the generated tree and every app's simulated content
// where the Applications look for them.
func (pl *Platform) publish(ctx context.Context) error {
	e, p := pl.Env, pl.Program
	// The platform repository: the generated tree at platform.git.path,
	// and the simulated content of every app whose source is a path in it.
	repos := map[string]map[string][]byte{}
	refs := map[string][]string{}
	addFiles := func(repo, dir string, files map[string][]byte) {
		if repos[repo] == nil {
			repos[repo] = map[string][]byte{}
		}
		for name, b := range files {
			repos[repo][path.Join(dir, name)] = b
		}
	}
	if err := pl.credentials(); err != nil {
		return err
	}
	platformRepo := normalURL(p.Platform.Git.RepoURL)
	gen, err := readTree(pl.Generated)
	if err != nil {
		return err
	}
	addFiles(platformRepo, path.Join(p.Platform.Git.Path, p.Env.Name), gen)
	refs[platformRepo] = append(refs[platformRepo], p.Platform.Git.Revision)

	for _, a := range p.Apps {
		d := scaled(a.ExpectedDuration, pl.Opts.Scale)
		content, err := appContent(a, d, pl.samples)
		if err != nil {
			return err
		}
		if a.Source == nil {
			// An adopted Application: the environment creates it (in
			// bootstrap) from content in the platform repository.
			addFiles(platformRepo, adoptedPath(a), content)
			continue
		}
		// Every source of the app is served: the first that deploys
		// carries the simulated content, a later one deploys nothing, a
		// ref-only source is its repository at its revision, and each
		// "$REF/file" values file is the platform's own file in the
		// repository of the source named REF.
		deployed := false
		for _, s := range a.Sources {
			files := content
			if deployed {
				files = map[string][]byte{"README.md": []byte("Served by the e2e: a later source of " + a.Name + ", which deploys nothing itself.\n")}
			}
			switch {
			case s.IsChart():
				if deployed {
					files = nil
				}
				if err := e.src.publishChart(s.RepoURL, s.Chart, s.Version, files); err != nil {
					return fmt.Errorf("app %s: %w", a.Name, err)
				}
				deployed = true
			case s.Path != "":
				if s.Helm != nil {
					// Argo CD renders a source with helm parameters as a chart.
					files = chartFiles(a.Name, "0.1.0", files)
				}
				addFiles(normalURL(s.RepoURL), s.Path, files)
				refs[normalURL(s.RepoURL)] = append(refs[normalURL(s.RepoURL)], s.TargetRevision)
				deployed = true
			default: // ref only
				refs[normalURL(s.RepoURL)] = append(refs[normalURL(s.RepoURL)], s.TargetRevision)
			}
			if s.Helm == nil {
				continue
			}
			for _, vf := range s.Helm.ValueFiles {
				ref, rest, ok := strings.Cut(strings.TrimPrefix(vf, "$"), "/")
				if !strings.HasPrefix(vf, "$") || !ok {
					continue
				}
				i := slices.IndexFunc(a.Sources, func(o *ir.Source) bool { return o.Ref == ref })
				if i < 0 {
					return fmt.Errorf("app %s: values file %s names no source", a.Name, vf)
				}
				repo := normalURL(a.Sources[i].RepoURL)
				if repo != platformRepo {
					return fmt.Errorf("app %s: values file %s is in %s; the e2e serves values files only from the platform repository, where the platform's own files are", a.Name, vf, repo)
				}
				b, err := os.ReadFile(filepath.Join(pl.Module.Dir, filepath.FromSlash(rest)))
				if err != nil {
					return fmt.Errorf("app %s: values file %s: %w", a.Name, vf, err)
				}
				addFiles(repo, "", map[string][]byte{rest: b})
			}
		}
	}
	names := make([]string, 0, len(repos))
	for r := range repos {
		names = append(names, r)
	}
	slices.Sort(names)
	for _, r := range names {
		rs := slices.Compact(slices.Sorted(slices.Values(refs[r])))
		sha, err := e.src.publishGit(ctx, r, repos[r], rs, "platc e2e: publish "+p.Platform.Name)
		if err != nil {
			return err
		}
		if r == platformRepo {
			pl.Revision = sha
		}
	}
	if err := e.serveSources(); err != nil {
		return err
	}
	e.logf("published %d Git repositories and the charts of %d hosts", len(names), len(e.src.Hosts()))
	return nil
}

// readTree reads every file under dir, by slash-separated relative path.
func readTree(dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(fp string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(fp)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, fp)
		files[filepath.ToSlash(rel)] = b
		return nil
	})
	return files, err
}

func adoptedPath(a *ir.App) string { return "e2e-adopted/" + a.Name }

// bootstrap runs the generated Ansible bootstrap against the
// environment (bootstrap.go), with the stand-in charts (charts.go) where
// its roles fetch the upstream ones and the process kubelet (kubelet.go)
// running Argo CD and the workflow controller as the charts' pods
// appear; then it starts the simulated runtimes and waits until Argo CD
// has delivered the workflow templates.
func (pl *Platform) bootstrap(ctx context.Context) error {
	e, p := pl.Env, pl.Program
	// Simulated cluster services first: DNS (Phase 0 asks for CoreDNS),
	// the CRDs of the simulated operators, and volumes for the claims.
	err := pl.simulatedCluster(ctx)
	if err != nil {
		return err
	}
	// The simulated runtimes run from the start, as the cluster's
	// would: a chart the bootstrap installs may carry an app's content.
	if pl.steps, err = e.startStepRunner(ctx, p.Platform.Workflows.Namespace); err != nil {
		return err
	}
	if pl.ops, err = e.startOperators(ctx, p, pl.samples, pl.Opts.Scale, pl.Opts.Fail, pl.Opts.SlowKinds); err != nil {
		return err
	}
	groupVars, err := os.ReadFile(filepath.Join(pl.Generated, ansible.Dir, "inventories", p.Env.Name, "group_vars", "all.yml"))
	if err != nil {
		return err
	}
	if pl.Handoff, err = ParseHandoff(groupVars); err != nil {
		return err
	}
	if pl.Opts.Charts != "" {
		// The upstream charts (upstream.go), in place of the stand-ins.
		if err := pl.publishUpstream(groupVars); err != nil {
			return err
		}
	} else if pl.standIns, err = standInCharts(groupVars, e.opts.Src); err != nil {
		return err
	}
	for _, c := range pl.standIns {
		// An app of the platform may deploy the very chart the bootstrap
		// installs (sealed-secrets, say): one chart, so the stand-in
		// carries that app's simulated content too.
		if app, ok := e.src.chartFilesAt(c.repoURL, c.name, c.version); ok {
			for n, b := range app {
				if strings.HasPrefix(n, "templates/") {
					c.files[n] = b
				}
			}
			e.logf("the stand-in chart %s %s also carries the simulated content of the app that deploys it", c.name, c.version)
		}
		if err := pl.PublishStandIn(c); err != nil {
			return err
		}
	}
	if err := e.serveSources(); err != nil {
		return err
	}
	pl.kubelet = e.startProcessKubelet(ctx)
	if err := e.startEventsController(ctx); err != nil {
		return err
	}
	if pl.Opts.DeployBootstraps {
		e.logf("no bootstrap: platc deploy is to run it")
		return nil
	}
	if err := pl.runBootstrap(ctx); err != nil {
		return err
	}
	ns := p.Platform.ArgoCD.Namespace
	server := pl.kubelet.get(ns, "argocd-server")
	if server == nil {
		return fmt.Errorf("the bootstrap succeeded, but no argocd-server runs in %s", ns)
	}
	pl.ArgoCD = &ArgoCD{Namespace: ns, Addr: server.addr, Insecure: slices.Contains(server.env, "ARGOCD_SERVER_INSECURE=true"),
		cliHome: filepath.Join(e.opts.Dir, "argocd", "cli")}
	// The steps dial platform.argocd.server; the simulated network sends
	// it to the server like the Service's own names.
	e.net.service(p.Platform.ArgoCD.Server, server.addr)
	if s, err := e.Kube.CoreV1().Secrets(ns).Get(ctx, "argocd-initial-admin-secret", metav1.GetOptions{}); err == nil {
		pl.ArgoCD.AdminPassword = string(s.Data["password"])
	}
	e.logf("the bootstrap is done; Argo CD serves at %s", server.addr)

	if pl.Timeline, err = e.Watch(ctx, ns); err != nil {
		return err
	}
	// Adopted apps: the Applications a team already had.
	for _, a := range p.Apps {
		if a.Source == nil {
			if err := pl.createAdopted(ctx, a); err != nil {
				return err
			}
		}
	}
	e.logf("waiting for Argo CD to deliver the templates")
	return pl.waitDelivered(ctx)
}

// PublishStandIn publishes (or replaces) a stand-in chart where the
// bootstrap's role fetches it.
func (pl *Platform) PublishStandIn(c standInChart) error {
	files, err := c.chartFiles()
	if err != nil {
		return err
	}
	if err := pl.Env.src.publishChartFiles(c.repoURL, c.name, c.version, c.appVersion, files); err != nil {
		return fmt.Errorf("stand-in chart %s: %w", c.name, err)
	}
	return nil
}

// simulatedCluster adds what a real cluster and the platform's operators
// would have, and is simulated here.
func (pl *Platform) simulatedCluster(ctx context.Context) error {
	e := pl.Env
	// CoreDNS: its pods only have to exist and run (kwok); the names
	// it would resolve are the simulated network's business.
	one := int32(1)
	dns := &appsDeployment{name: "coredns", ns: "kube-system", labels: map[string]string{"k8s-app": "kube-dns"}, replicas: one}
	if err := e.createDeployment(ctx, dns); err != nil {
		return err
	}
	if err := waitFor(ctx, nil, "the simulated CoreDNS", time.Minute, func(ctx context.Context) error {
		d, err := e.Kube.AppsV1().Deployments("kube-system").Get(ctx, "coredns", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if d.Status.AvailableReplicas < 1 {
			return fmt.Errorf("%d of 1 replicas available", d.Status.AvailableReplicas)
		}
		return nil
	}); err != nil {
		return err
	}
	return pl.operatorResources(ctx)
}

// operatorResources adds what the simulated operators of the platform's
// apps would install and the volumes of the apps that keep data. A later
// version of the platform adds its new ones (everything here exists or
// is created, never changed).
func (pl *Platform) operatorResources(ctx context.Context) error {
	e, p := pl.Env, pl.Program
	var crds []map[string]any
	seen := map[string]bool{}
	for _, a := range p.Apps {
		for _, cr := range a.CustomResources {
			if simulatedKind(cr) && !seen[cr.String()] {
				seen[cr.String()] = true
				crds = append(crds, crd(cr))
			}
		}
	}
	// Teardown's snapshot policy creates VolumeSnapshots; the snapshot
	// controller's CRD is simulated like an operator's.
	crds = append(crds, crd(ir.CustomResource{Group: "snapshot.storage.k8s.io", Kind: "VolumeSnapshot"}))
	if err := e.applyCRDs(ctx, crds); err != nil {
		return err
	}
	for _, a := range p.Apps {
		if !holdsData(a) {
			continue
		}
		pv := &corev1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Name: volumeName(a), Labels: map[string]string{labelApp: a.Name}},
			Spec: corev1.PersistentVolumeSpec{
				Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
				AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
				StorageClassName:              "",
				ClaimRef:                      &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: a.Namespace, Name: claimName(a)},
				PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/lib/e2e/" + a.Name}},
			},
		}
		if _, err := e.Kube.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}

// StatusWritten is when the simulated operator wrote the status of
// kind's instance ns/name, and whether it has.
func (pl *Platform) StatusWritten(kind, ns, name string) (time.Time, bool) {
	return pl.ops.StatusWritten(kind, ns, name)
}

// createAdopted creates the Application an app without a source adopts.
func (pl *Platform) createAdopted(ctx context.Context, a *ir.App) error {
	p := pl.Program
	app := map[string]any{
		"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
		"metadata": map[string]any{"name": a.Application, "namespace": p.Platform.ArgoCD.Namespace},
		"spec": map[string]any{
			"project":     a.Project,
			"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": a.Namespace},
			"source":      map[string]any{"repoURL": p.Platform.Git.RepoURL, "path": adoptedPath(a), "targetRevision": pl.Revision},
			"syncPolicy":  map[string]any{"syncOptions": []any{"CreateNamespace=true"}},
		},
	}
	_, err := pl.Env.Dynamic.Resource(applicationGVR).Namespace(p.Platform.ArgoCD.Namespace).Create(ctx, &unstructured.Unstructured{Object: app}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// waitDelivered waits until Argo CD has created every Application and
// synced the workflow templates.
func (pl *Platform) waitDelivered(ctx context.Context) error {
	e, p := pl.Env, pl.Program
	wfns := p.Platform.Workflows.Namespace
	want := []string{"deploy", "teardown", "validate"}
	return waitFor(ctx, nil, "the root Application's delivery", 15*time.Minute, func(ctx context.Context) error {
		list, err := e.Dynamic.Resource(applicationGVR).Namespace(p.Platform.ArgoCD.Namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		have := map[string]bool{}
		for _, u := range list.Items {
			have[u.GetName()] = true
		}
		for _, a := range p.Apps {
			if !have[a.Application] {
				return fmt.Errorf("no Application %s yet", a.Application)
			}
		}
		for _, t := range want {
			if _, err := e.Dynamic.Resource(workflowTemplateGVR).Namespace(wfns).Get(ctx, t, metav1.GetOptions{}); err != nil {
				return fmt.Errorf("WorkflowTemplate %s: %v", t, err)
			}
		}
		if _, err := e.Dynamic.Resource(clusterWorkflowTemplateGVR).Get(ctx, "platc-argocd", metav1.GetOptions{}); err != nil {
			return fmt.Errorf("ClusterWorkflowTemplate platc-argocd: %v", err)
		}
		if _, err := e.Kube.CoreV1().ServiceAccounts(wfns).Get(ctx, p.Platform.Workflows.ServiceAccount, metav1.GetOptions{}); err != nil {
			return fmt.Errorf("ServiceAccount %s: %v", p.Platform.Workflows.ServiceAccount, err)
		}
		return nil
	})
}

// Fix clears the failures of apps: their operators recover.
func (pl *Platform) Fix(ctx context.Context, apps []string) error {
	return pl.ops.Fix(ctx, apps)
}

// Problems lists what the simulated runtime could not do.
func (pl *Platform) Problems() []string {
	pl.steps.mu.Lock()
	out := slices.Clone(pl.steps.Problems)
	pl.steps.mu.Unlock()
	if pl.ops != nil {
		pl.ops.mu.Lock()
		out = append(out, pl.ops.problems...)
		pl.ops.mu.Unlock()
	}
	return out
}

// Steps is the number of step pods the runtime has run.
func (pl *Platform) Steps() int {
	pl.steps.mu.Lock()
	defer pl.steps.mu.Unlock()
	return pl.steps.Steps
}

// loadPlatform parses and compiles the platform at opts.Path and checks
// that Fail names its apps, so that a platform that cannot run is refused
// before an environment is started for it. It returns opts completed
// (absolute path, default environment and scale).
func loadPlatform(opts PlatformOptions) (*lang.Module, *ir.Program, PlatformOptions, error) {
	if opts.Scale <= 0 {
		opts.Scale = 1.0 / 60
	}
	abs, err := filepath.Abs(opts.Path)
	if err != nil {
		return nil, nil, opts, err
	}
	opts.Path = abs
	m, diags := lang.Parse(abs)
	if diags.HasErrors() {
		return nil, nil, opts, fmt.Errorf("platform %s does not parse: %s", abs, diags.Error())
	}
	if opts.Env == "" {
		opts.Env = compiler.EnvNames(m)[0]
	}
	prog, diags := compiler.Compile(m, compiler.Options{Env: opts.Env})
	if diags.HasErrors() {
		return nil, nil, opts, fmt.Errorf("platform %s does not compile for %s: %s", abs, opts.Env, diags.Error())
	}
	for _, f := range opts.Fail {
		if prog.App(f) == nil {
			return nil, nil, opts, fmt.Errorf("FAIL names %q, which is not an app of the platform", f)
		}
	}
	return m, prog, opts, nil
}

// Handoff is where the gitops-handoff role stores the automation token,
// and for which account, as the generated group_vars tell the role. The
// harness writes the token there, not where the IR says, so step pods
// that name another Secret fail here as they would after a real
// bootstrap.
type Handoff struct {
	Account                    string
	SecretName, Namespace, Key string
}

// ParseHandoff reads the token's Secret and account from the generated
// group_vars.
func ParseHandoff(groupVars []byte) (*Handoff, error) {
	var v struct {
		Account string `json:"gitops_handoff_argocd_account"`
		Secret  struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
			Key       string `json:"key"`
		} `json:"gitops_handoff_token_secret"`
	}
	if err := yaml.Unmarshal(groupVars, &v); err != nil {
		return nil, fmt.Errorf("group_vars: %w", err)
	}
	h := &Handoff{Account: v.Account, SecretName: v.Secret.Name, Namespace: v.Secret.Namespace, Key: v.Secret.Key}
	if h.Account == "" || h.SecretName == "" || h.Namespace == "" || h.Key == "" {
		return nil, fmt.Errorf("group_vars: gitops_handoff_argocd_account and gitops_handoff_token_secret's name, namespace and key must all be set, got %+v", *h)
	}
	return h, nil
}
