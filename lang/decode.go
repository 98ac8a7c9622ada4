package lang

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/platc/platc/diag"
)

// decoder turns parsed files into a Module, collecting every diagnostic.
type decoder struct {
	m     *Module
	diags hcl.Diagnostics
}

func (d *decoder) add(ds hcl.Diagnostics) { d.diags = append(d.diags, ds...) }

func (d *decoder) decodeFile(f *hcl.File) {
	content := d.content(f.Body, rootSchema)
	for _, b := range content.Blocks {
		switch b.Type {
		case "platform":
			p := d.decodePlatform(b)
			if d.m.Platform != nil {
				d.duplicate("platform", b.DefRange, d.m.Platform.DeclRange)
				continue
			}
			d.m.Platform = p
		case "environment":
			d.m.Environments = append(d.m.Environments, d.decodeEnvironment(b))
		case "defaults":
			def := &Defaults{DeclRange: b.DefRange}
			content := d.content(b.Body, defaultsSchema)
			def.Settings = d.decodeSettings(content)
			if d.m.Defaults != nil {
				d.duplicate("defaults", b.DefRange, d.m.Defaults.DeclRange)
				continue
			}
			d.m.Defaults = def
		case "class":
			d.m.Classes = append(d.m.Classes, d.decodeClass(b))
		case "stack":
			s := d.decodeStack(b)
			d.m.Stacks = append(d.m.Stacks, s)
			d.m.Apps = append(d.m.Apps, s.Apps...)
		case "app":
			d.m.Apps = append(d.m.Apps, d.decodeApp(b, nil))
		case "health":
			d.m.Health = append(d.m.Health, d.decodeHealth(b))
		case "events":
			e := d.decodeEvents(b)
			if d.m.Events != nil {
				d.duplicate("events", b.DefRange, d.m.Events.DeclRange)
				continue
			}
			d.m.Events = e
		case "schedule":
			c := d.content(b.Body, scheduleSchema)
			a := c.Attributes
			d.m.Schedules = append(d.m.Schedules, &Schedule{
				Action: b.Labels[0], ActionRange: b.LabelRanges[0], DeclRange: b.DefRange,
				Cron: a["cron"], Timezone: a["timezone"], Concurrency: a["concurrency"], Suspend: a["suspend"],
			})
		case "alerts":
			c := d.content(b.Body, alertsSchema)
			a := c.Attributes
			al := &Alerts{Namespace: a["namespace"], Labels: a["labels"], For: a["for"], Severity: a["severity"], DeclRange: b.DefRange}
			if d.m.Alerts != nil {
				d.duplicate("alerts", b.DefRange, d.m.Alerts.DeclRange)
				continue
			}
			d.m.Alerts = al
		}
	}
}

// duplicate reports a second block of a type that may appear only once.
func (d *decoder) duplicate(typ string, at, first hcl.Range) {
	d.diags = append(d.diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  fmt.Sprintf("Duplicate %s block", typ),
		Detail:   fmt.Sprintf("Only one %s block is allowed here; the first one is at %s. Merge the two blocks.", typ, diag.At(first)),
		Subject:  &at,
	})
}

// single returns the only block of typ in content, reporting extras.
func (d *decoder) single(content *hcl.BodyContent, typ string) *hcl.Block {
	var first *hcl.Block
	for _, b := range content.Blocks {
		if b.Type != typ {
			continue
		}
		if first != nil {
			d.duplicate(typ, b.DefRange, first.DefRange)
			continue
		}
		first = b
	}
	return first
}

func (d *decoder) decodePlatform(b *hcl.Block) *Platform {
	p := &Platform{Name: b.Labels[0], NameRange: b.LabelRanges[0], DeclRange: b.DefRange}
	content := d.content(b.Body, platformSchema)
	if blk := d.single(content, "argocd"); blk != nil {
		c := d.content(blk.Body, argocdSchema)
		a := c.Attributes
		p.ArgoCD = &ArgoCD{
			Namespace: a["namespace"], Project: a["project"], Server: a["server"],
			Version: a["version"], Insecure: a["insecure"], PlainText: a["plaintext"],
			GRPCWeb: a["grpc_web"], ReconciliationTimeout: a["reconciliation_timeout"],
			ApplicationsPerRoot: a["applications_per_root"], DeclRange: blk.DefRange,
		}
		if s := d.single(c, "token_secret"); s != nil {
			p.ArgoCD.TokenSecret = d.decodeSecretRef(s)
		}
	}
	if blk := d.single(content, "workflows"); blk != nil {
		c := d.content(blk.Body, workflowsSchema)
		a := c.Attributes
		p.Workflows = &Workflows{
			Namespace: a["namespace"], ServiceAccount: a["service_account"],
			Parallelism: a["parallelism"], Image: a["image"], Timeout: a["timeout"],
			NodeBudget: a["node_budget"],
			DeclRange:  blk.DefRange,
		}
	}
	if blk := d.single(content, "git"); blk != nil {
		c := d.content(blk.Body, gitSchema)
		a := c.Attributes
		p.Git = &Git{RepoURL: a["repo_url"], Revision: a["revision"], Path: a["path"], DeclRange: blk.DefRange}
	}
	if blk := d.single(content, "bootstrap"); blk != nil {
		c := d.content(blk.Body, bootstrapSchema)
		a := c.Attributes
		p.Bootstrap = &Bootstrap{
			ArgoCDChart: a["argocd_chart"], WorkflowsChart: a["workflows_chart"],
			EventsChart: a["events_chart"], SealedSecretsChart: a["sealed_secrets_chart"],
			ArgoRepo: a["argo_repo"], SealedSecretsRepo: a["sealed_secrets_repo"],
			ArgoCDAppsChart: a["argocd_apps_chart"],
			DeclRange:       blk.DefRange,
		}
	}
	for _, blk := range content.Blocks {
		if blk.Type != "credential" {
			continue
		}
		a := d.content(blk.Body, credentialSchema).Attributes
		p.Credentials = append(p.Credentials, &Credential{
			Name: blk.Labels[0], NameRange: blk.LabelRanges[0], DeclRange: blk.DefRange,
			Type: a["type"], Path: a["path"], RepoURL: a["repo_url"], URLPrefix: a["url_prefix"],
			Namespaces: a["namespaces"], Key: a["key"],
		})
	}
	return p
}

func (d *decoder) decodeSecretRef(b *hcl.Block) *SecretRef {
	c := d.content(b.Body, secretRefSchema)
	return &SecretRef{Name: c.Attributes["name"], Key: c.Attributes["key"], DeclRange: b.DefRange}
}

func (d *decoder) decodeEnvironment(b *hcl.Block) *Environment {
	env := &Environment{Name: b.Labels[0], NameRange: b.LabelRanges[0], DeclRange: b.DefRange, Attrs: hcl.Attributes{}}
	// The body's arguments are open, so no schema lists them: the
	// cluster blocks are read with the schema, every argument as it is,
	// and any other block is refused. Bodies are always hclsyntax
	// (hclparse.go).
	body := b.Body.(*hclsyntax.Body)
	for _, blk := range body.Blocks {
		if blk.Type == "cluster" {
			continue
		}
		d.diags = append(d.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  fmt.Sprintf("Unexpected %q block", blk.Type),
			Detail:   fmt.Sprintf("An environment block holds arguments, each read as env.NAME in expressions, such as domain = \"prod.example.com\", and cluster \"NAME\" { ... } blocks. For a nested value write an object: %s = { ... }, with an equals sign. docs/language.md, section \"environment\", describes the block.", blk.Type),
			Subject:  blk.TypeRange.Ptr(),
		})
	}
	content, _, ds := b.Body.PartialContent(environmentSchema)
	d.add(ds)
	for _, cb := range content.Blocks {
		c := d.content(cb.Body, clusterSchema)
		env.Clusters = append(env.Clusters, &Cluster{
			Name: cb.Labels[0], NameRange: cb.LabelRanges[0], Server: c.Attributes["server"], DeclRange: cb.DefRange,
		})
	}
	for name, a := range body.Attributes {
		env.Attrs[name] = a.AsHCLAttribute()
	}
	return env
}

// decodeSettings reads the settings shared by defaults, class, stack and
// app from an already-decoded body.
func (d *decoder) decodeSettings(c *hcl.BodyContent) Settings {
	s := Settings{ExpectedDuration: c.Attributes["expected_duration"]}
	if b := d.single(c, "timeouts"); b != nil {
		bc := d.content(b.Body, timeoutsSchema)
		s.Timeouts = &Timeouts{Sync: bc.Attributes["sync"], Health: bc.Attributes["health"], DeclRange: b.DefRange}
	}
	if b := d.single(c, "retry"); b != nil {
		bc := d.content(b.Body, retrySchema)
		a := bc.Attributes
		s.Retry = &Retry{Limit: a["limit"], Backoff: a["backoff"], Factor: a["factor"], MaxBackoff: a["max_backoff"], DeclRange: b.DefRange}
	}
	if b := d.single(c, "teardown"); b != nil {
		bc := d.content(b.Body, teardownSchema)
		s.Teardown = &Teardown{Volumes: bc.Attributes["volumes"], Timeout: bc.Attributes["timeout"], SnapshotClass: bc.Attributes["snapshot_class"], DeclRange: b.DefRange}
	}
	return s
}

func (d *decoder) decodeClass(b *hcl.Block) *Class {
	c := d.content(b.Body, classSchema)
	return &Class{
		Name: b.Labels[0], NameRange: b.LabelRanges[0], DeclRange: b.DefRange,
		Description: c.Attributes["description"],
		Settings:    d.decodeSettings(c),
	}
}

func (d *decoder) decodeStack(b *hcl.Block) *Stack {
	c := d.content(b.Body, stackSchema)
	s := &Stack{
		Name: b.Labels[0], NameRange: b.LabelRanges[0], DeclRange: b.DefRange,
		Description: c.Attributes["description"],
		Class:       c.Attributes["class"],
		Settings:    d.decodeSettings(c),
	}
	if a := c.Attributes["depends_on"]; a != nil {
		refs, ds := ParseRefs(a)
		d.add(ds)
		s.DependsOn = refs
	}
	for _, ab := range c.Blocks {
		if ab.Type == "app" {
			s.Apps = append(s.Apps, d.decodeApp(ab, s))
		}
	}
	return s
}

func (d *decoder) decodeApp(b *hcl.Block, stack *Stack) *App {
	c := d.content(b.Body, appSchema)
	a := c.Attributes
	app := &App{
		Name: b.Labels[0], NameRange: b.LabelRanges[0], DeclRange: b.DefRange, Stack: stack,
		Namespace: a["namespace"], Class: a["class"], Project: a["project"],
		Application: a["application"], CustomResources: a["custom_resources"],
		Annotations: a["annotations"], Labels: a["labels"], Info: a["info"],
		RevisionHistoryLimit: a["revision_history_limit"], Finalizer: a["finalizer"],
		Cluster:  a["cluster"],
		Settings: d.decodeSettings(c),
	}
	if attr := a["depends_on"]; attr != nil {
		refs, ds := ParseRefs(attr)
		d.add(ds)
		app.DependsOn = refs
	}
	for _, sb := range c.Blocks {
		if sb.Type == "source" {
			app.Sources = append(app.Sources, d.decodeSource(sb))
		}
	}
	if len(app.Sources) > 0 {
		app.Source = app.Sources[0]
	}
	if sb := d.single(c, "sync"); sb != nil {
		sc := d.content(sb.Body, syncSchema)
		sa := sc.Attributes
		app.Sync = &Sync{Automated: sa["automated"], SelfHeal: sa["self_heal"], Prune: sa["prune"], Options: sa["options"], DeclRange: sb.DefRange}
		if rb := d.single(sc, "retry"); rb != nil {
			rc := d.content(rb.Body, retrySchema)
			ra := rc.Attributes
			app.Sync.Retry = &Retry{Limit: ra["limit"], Backoff: ra["backoff"], Factor: ra["factor"], MaxBackoff: ra["max_backoff"], DeclRange: rb.DefRange}
		}
		if mb := d.single(sc, "managed_namespace_metadata"); mb != nil {
			mc := d.content(mb.Body, managedNamespaceSchema)
			app.Sync.ManagedNamespace = &ManagedNamespace{Labels: mc.Attributes["labels"], Annotations: mc.Attributes["annotations"], DeclRange: mb.DefRange}
		}
	}
	for _, ib := range c.Blocks {
		if ib.Type != "ignore_differences" {
			continue
		}
		ic := d.content(ib.Body, ignoreDifferencesSchema)
		ia := ic.Attributes
		app.IgnoreDifferences = append(app.IgnoreDifferences, &IgnoreDifferences{
			Group: ia["group"], Kind: ia["kind"], Name: ia["name"], Namespace: ia["namespace"],
			JSONPointers: ia["json_pointers"], JQPathExpressions: ia["jq_path_expressions"],
			ManagedFieldsManagers: ia["managed_fields_managers"], DeclRange: ib.DefRange,
		})
	}
	for _, rb := range c.Blocks {
		if rb.Type != "resource" {
			continue
		}
		ra := d.content(rb.Body, resourceSchema).Attributes
		app.Resources = append(app.Resources, &Resource{
			Name: rb.Labels[0], NameRange: rb.LabelRanges[0], DeclRange: rb.DefRange,
			Kind: ra["kind"], ResourceName: ra["name"], Namespace: ra["namespace"],
		})
	}
	for _, hb := range c.Blocks {
		if hb.Type != "hook" {
			continue
		}
		hc := d.content(hb.Body, hookSchema)
		ha := hc.Attributes
		app.Hooks = append(app.Hooks, &Hook{
			Name: hb.Labels[0], NameRange: hb.LabelRanges[0], DeclRange: hb.DefRange,
			Phase: ha["phase"], Purpose: ha["purpose"], Manifest: ha["manifest"],
		})
	}
	return app
}

func (d *decoder) decodeSource(b *hcl.Block) *Source {
	c := d.content(b.Body, sourceSchema)
	a := c.Attributes
	s := &Source{
		RepoURL: a["repo_url"], Chart: a["chart"], Version: a["version"], Path: a["path"],
		TargetRevision: a["target_revision"], Ref: a["ref"], DeclRange: b.DefRange,
	}
	if hb := d.single(c, "helm"); hb != nil {
		hc := d.content(hb.Body, helmSchema)
		ha := hc.Attributes
		s.Helm = &Helm{
			Values: ha["values"], ValueFiles: ha["value_files"], ReleaseName: ha["release_name"],
			SkipCRDs: ha["skip_crds"], SkipTests: ha["skip_tests"],
			IgnoreMissingValueFiles: ha["ignore_missing_value_files"], PassCredentials: ha["pass_credentials"],
			APIVersions: ha["api_versions"], KubeVersion: ha["kube_version"], DeclRange: hb.DefRange,
		}
		for _, pb := range hc.Blocks {
			switch pb.Type {
			case "parameter":
				pa := d.content(pb.Body, helmParameterSchema).Attributes
				s.Helm.Parameters = append(s.Helm.Parameters, &HelmParameter{Name: pa["name"], Value: pa["value"], ForceString: pa["force_string"], DeclRange: pb.DefRange})
			case "file_parameter":
				pa := d.content(pb.Body, helmFileParameterSchema).Attributes
				s.Helm.FileParameters = append(s.Helm.FileParameters, &HelmFileParameter{Name: pa["name"], Path: pa["path"], DeclRange: pb.DefRange})
			}
		}
	}
	if kb := d.single(c, "kustomize"); kb != nil {
		kc := d.content(kb.Body, kustomizeSchema)
		ka := kc.Attributes
		s.Kustomize = &Kustomize{
			Images: ka["images"], NamePrefix: ka["name_prefix"], NameSuffix: ka["name_suffix"],
			CommonLabels: ka["common_labels"], CommonAnnotations: ka["common_annotations"],
			Namespace: ka["namespace"], Components: ka["components"], DeclRange: kb.DefRange,
		}
		for _, pb := range kc.Blocks {
			pc := d.content(pb.Body, kustomizePatchSchema)
			p := &KustomizePatch{Patch: pc.Attributes["patch"], Path: pc.Attributes["path"], DeclRange: pb.DefRange}
			if tb := d.single(pc, "target"); tb != nil {
				ta := d.content(tb.Body, patchTargetSchema).Attributes
				p.Target = &PatchTarget{
					Group: ta["group"], Version: ta["version"], Kind: ta["kind"], Name: ta["name"],
					Namespace: ta["namespace"], LabelSelector: ta["label_selector"],
					AnnotationSelector: ta["annotation_selector"], DeclRange: tb.DefRange,
				}
			}
			s.Kustomize.Patches = append(s.Kustomize.Patches, p)
		}
	}
	if db := d.single(c, "directory"); db != nil {
		dc := d.content(db.Body, directorySchema)
		da := dc.Attributes
		s.Directory = &Directory{Recurse: da["recurse"], Include: da["include"], Exclude: da["exclude"], DeclRange: db.DefRange}
		if jb := d.single(dc, "jsonnet"); jb != nil {
			ja := d.content(jb.Body, jsonnetSchema).Attributes
			s.Directory.Jsonnet = &Jsonnet{ExtVars: ja["ext_vars"], TLAs: ja["tlas"], Libs: ja["libs"], DeclRange: jb.DefRange}
		}
	}
	if pb := d.single(c, "plugin"); pb != nil {
		pa := d.content(pb.Body, pluginSchema).Attributes
		s.Plugin = &Plugin{Name: pa["name"], Env: pa["env"], Parameters: pa["parameters"], DeclRange: pb.DefRange}
	}
	return s
}

func (d *decoder) decodeHealth(b *hcl.Block) *Health {
	c := d.content(b.Body, healthSchema)
	a := c.Attributes
	h := &Health{
		Kind: b.Labels[0], KindRange: b.LabelRanges[0], DeclRange: b.DefRange,
		Healthy: a["healthy"], Degraded: a["degraded"], Suspended: a["suspended"],
		Message: a["message"], ObservedGeneration: a["observed_generation"],
	}
	for _, tb := range c.Blocks {
		if tb.Type != "test" {
			continue
		}
		tc := d.content(tb.Body, healthTestSchema)
		ta := tc.Attributes
		h.Tests = append(h.Tests, &HealthTest{
			Name: tb.Labels[0], NameRange: tb.LabelRanges[0], DeclRange: tb.DefRange,
			Object: ta["object"], Want: ta["want"], WantMessage: ta["want_message"], Env: ta["env"],
		})
	}
	return h
}

func (d *decoder) decodeEvents(b *hcl.Block) *Events {
	c := d.content(b.Body, eventsSchema)
	a := c.Attributes
	e := &Events{
		Type: a["type"], Namespace: a["namespace"], Port: a["port"], Endpoint: a["endpoint"],
		Branch: a["branch"], Repository: a["repository"], URL: a["url"], DeclRange: b.DefRange,
	}
	if sb := d.single(c, "secret"); sb != nil {
		e.Secret = d.decodeSecretRef(sb)
	}
	return e
}
