package compiler

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/compiler/valid"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/lang"
)

// This file lowers what an app says about its Application beyond where
// its manifests come from: metadata, spec.info, the revision history,
// the finalizer, ignoreDifferences, and the parts of the sync policy that
// Argo CD applies itself (retry, the managed namespace's metadata).
// Every value is typed by a grammar (grammar.go) and every list and map
// is bounded, so that what an author writes stays data wherever it goes.

// Bounds of the Application vocabulary. They are generous for real
// Applications (Argo CD's own examples use a handful of each) and keep
// one app from writing an unbounded Application.
const (
	maxMapEntries         = 64  // labels, annotations, info, env, ...
	maxListEntries        = 64  // pointers, images, components, ...
	maxIgnoreDifferences  = 64  // ignore_differences blocks of one app
	maxSources            = 16  // source blocks of one app
	maxHelmParameters     = 256 // parameter and file_parameter blocks of one helm block
	maxKustomizePatches   = 64  // patch blocks of one kustomize block
	maxRevisionHistory    = 1000
	maxSyncRetryLimit     = 100
	maxAnnotationValueLen = 4096
)

// Labels and annotations platc writes on every Application it generates;
// an app may not set them, or the deploy, teardown and the selectors
// that find a platform's Applications would be misled.
var (
	reservedMetaKeys     = []string{"app.kubernetes.io/managed-by", "app.kubernetes.io/part-of"}
	reservedMetaPrefixes = []string{"platc.io/"}
)

// refusedAnnotations are Argo CD annotations an Application of platc may
// not carry, each with the reason given in the diagnostic.
var refusedAnnotations = map[string]string{
	"argocd.argoproj.io/sync-wave":          "Sync waves order resources inside one Application only; RFC 5.4 says they must not be used for cross-Application or cross-stack dependencies, which come from the dependency graph: the deploy workflow starts an app only when its dependencies are healthy. A wave on the Application would order it against the root's other children behind the workflow's back. Express the order with depends_on instead.",
	"argocd.argoproj.io/hook":               "An Application is not a hook of the root app-of-apps: a hook runs on every sync of the root and orders apps through it (INV-8). Express the order with depends_on, and declare the app's own hooks in hook blocks.",
	"argocd.argoproj.io/hook-delete-policy": "An Application is not a hook of the root app-of-apps (INV-8), so it has no hook delete policy.",
	"argocd.argoproj.io/refresh":            "The deploy workflow asks Argo CD to refresh each Application when it syncs it; a refresh annotation in Git would make the root flap on every comparison.",
	"argocd.argoproj.io/skip-reconcile":     "Argo CD would never reconcile the Application, so the deploy workflow would wait for it to become Synced and Healthy until its timeout.",
}

// Grammars of the Application vocabulary.
var (
	gMetaKey = &grammar{
		what: "label or annotation key", max: 317,
		check: func(s string) string {
			prefix, name, ok := strings.Cut(s, "/")
			switch {
			case valid.QualifiedName(s):
				return ""
			case ok && len(prefix) > 253, ok && len(name) > 63, !ok && len(s) > 63:
				return "is too long for a Kubernetes label or annotation key"
			}
			return "is not a Kubernetes label or annotation key"
		},
		hint: "A key is an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' and '.', such as \"team.example.com/owner\".",
	}
	gLabelValue = &grammar{
		what: "label value", max: 63,
		check: is(valid.LabelValue, "is not a Kubernetes label value"),
		hint:  "A label value is at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit, such as \"payments\".",
	}
	// gText is free text that goes into a field of the Application no
	// one templates. Control characters are refused by lang already;
	// "{{" and "{%" are refused too, so that no tool reading the field
	// later (notification templates, the argocd-apps chart's tpl,
	// Ansible) can be made to run it.
	gText = &grammar{
		what: "value", max: maxAnnotationValueLen,
		check: func(s string) string {
			if strings.Contains(s, "{{") || strings.Contains(s, "{%") {
				return "holds \"{{\" or \"{%\", which a template engine reading the Application would run"
			}
			return ""
		},
		hint: "Write the text without template delimiters.",
	}
	gInfoName = &grammar{
		what: "info name", max: 128,
		check: gText.check,
		hint:  "An info entry's name is a short label shown by Argo CD, such as \"Owner\".",
	}
	gGroup = &grammar{
		what: "API group", max: 253,
		check: func(s string) string {
			if s == "*" || valid.DNSSubdomain(s) {
				return ""
			}
			return "is not an API group"
		},
		hint: "Write the group of the kind, such as \"apps\", or \"*\" for any group; leave group out for the core group.",
	}
	gKindName = &grammar{
		what: "kind", max: 63,
		check: matcher(regexp.MustCompile(`^(\*|[A-Z][A-Za-z0-9]*)$`), "is not a Kubernetes kind"),
		hint:  "Write the kind as the API spells it, such as \"Deployment\", or \"*\" for any kind.",
	}
	gJSONPointer = &grammar{
		what: "JSON pointer", max: 512,
		check: matcher(regexp.MustCompile(`^(/([A-Za-z0-9._:@$+,;=!*()'-]|~[01])*)+$`), "is not a JSON pointer (RFC 6901)"),
		hint:  "A JSON pointer starts with '/' and writes '/' in a key as ~1 and '~' as ~0, such as \"/spec/replicas\" or \"/metadata/annotations/example.com~1hash\".",
	}
	gJQPath = &grammar{
		what: "jq path expression", max: 512,
		check: func(s string) string {
			if strings.ContainsAny(s, "\n\r\t") {
				return "spans several lines"
			}
			return gText.check(s)
		},
		hint: "Write one jq path expression on one line, such as \".spec.template.spec.initContainers[] | select(.name == \\\"injected\\\")\".",
	}
	gManager = &grammar{
		what: "field manager", max: 128,
		check: matcher(regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/-]*$`), "is not a field manager name"),
		hint:  "Write the manager's name as metadata.managedFields records it, such as \"kube-controller-manager\".",
	}
	gSourceRef = &grammar{
		what: "source ref", max: 63,
		check: matcher(regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`), "is not a source ref name"),
		hint:  "A ref is a letter followed by letters, digits, '-' and '_', such as \"values\"; value files of other sources read it as \"$values/path\".",
	}
	gHelmParamName = &grammar{
		what: "Helm parameter name", max: 253,
		check: matcher(regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.\[\]\\-]*$`), "is not a Helm value path"),
		hint:  "Write the value's path as helm --set takes it, such as \"image.tag\" or \"nodes[0].zone\".",
	}
	gAPIVersion = &grammar{
		what: "API version", max: 253,
		check: matcher(regexp.MustCompile(`^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?v[0-9]+[a-z0-9]*(/[A-Z][A-Za-z0-9]*)?$`), "is not an API version"),
		hint:  "Write an API version as helm --api-versions takes it, such as \"monitoring.coreos.com/v1\" or \"monitoring.coreos.com/v1/ServiceMonitor\".",
	}
	gKubeVersion = &grammar{
		what: "Kubernetes version", max: 64,
		check: matcher(regexp.MustCompile(`^v?[0-9]+\.[0-9]+(\.[0-9]+)?$`), "is not a Kubernetes version"),
		hint:  "Write a version such as \"1.31.0\".",
	}
	gImageOverride = &grammar{
		what: "kustomize image", max: 512,
		check: matcher(regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/:@=-]*$`), "is not a kustomize image override"),
		hint:  "Write an image override as kustomize edit set image takes it, such as \"nginx=registry.example.com/nginx:1.27\" or \"nginx:1.27\".",
	}
	gNameAffix = &grammar{
		what: "name prefix or suffix", max: 63,
		check: matcher(regexp.MustCompile(`^[a-z0-9.-]+$`), "holds characters a Kubernetes name cannot"),
		hint:  "A prefix or suffix is lower-case letters, digits, '-' and '.', such as \"staging-\".",
	}
	gGlob = &grammar{
		what: "file pattern", max: 1024,
		check: func(s string) string {
			if strings.Contains(s, "{{") || !globChars.MatchString(s) {
				return "holds characters platc does not accept in a file pattern"
			}
			return ""
		},
		hint: "Write a glob relative to the source's path, such as \"*.yaml\" or \"{config.json,env.json}\".",
	}
	globChars   = regexp.MustCompile(`^[A-Za-z0-9._/*?{},\[\]!+=@-]+$`)
	gPluginName = &grammar{
		what: "plugin name", max: 253,
		check: matcher(regexp.MustCompile(`^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$`), "is not a plugin name"),
		hint:  "Write the name of the ConfigManagementPlugin as the repo-server knows it, such as \"kustomize-envsubst-v1.0\".",
	}
	gVarName = &grammar{
		what: "variable name", max: 128,
		check: matcher(regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`), "is not a variable name"),
		hint:  "A variable name is letters, digits and '_', not starting with a digit, such as \"REGION\".",
	}
	gPatch = &grammar{
		what: "kustomize patch", max: 1 << 16,
		check: gText.check,
		hint:  "Write the patch as YAML or JSON text, such as a heredoc.",
	}
)

// applicationFields lowers the app's Application vocabulary besides its
// sources.
func (c *compilation) applicationFields(la *lang.App, a *ir.App) {
	e := c.eval
	a.Labels = c.metaMap(la.Labels, gLabelValue, true)
	a.Annotations = c.metaMap(la.Annotations, gText, false)
	if info := c.strMap(la.Info, gInfoName, gText); len(info) > 0 {
		for _, k := range sortedKeys(info) {
			a.Info = append(a.Info, ir.Info{Name: k, Value: info[k]})
		}
	}
	if n, ok := e.integer(la.RevisionHistoryLimit, 0, maxRevisionHistory); ok {
		v := int64(n)
		a.RevisionHistoryLimit = &v
	}
	a.Finalizer = ir.FinalizerNone
	if f, ok := e.oneOf(la.Finalizer, string(ir.FinalizerNone), string(ir.FinalizerForeground), string(ir.FinalizerBackground)); ok {
		a.Finalizer = ir.Finalizer(f)
	}
	if len(la.IgnoreDifferences) > maxIgnoreDifferences {
		c.diags = append(c.diags, diag.Error(la.IgnoreDifferences[maxIgnoreDifferences].DeclRange, "Too many ignore_differences blocks",
			fmt.Sprintf("An app may have at most %d ignore_differences blocks. Select several resources with one block (kind = \"*\", or no name), or merge blocks of the same kind.", maxIgnoreDifferences)))
	}
	for i, d := range la.IgnoreDifferences {
		if i >= maxIgnoreDifferences {
			break
		}
		a.IgnoreDifferences = append(a.IgnoreDifferences, c.ignoreDifference(d))
	}
	if la.Source == nil {
		for _, x := range []struct {
			attr *hcl.Attribute
			name string
		}{{la.Labels, "labels"}, {la.Annotations, "annotations"}, {la.Info, "info"}, {la.RevisionHistoryLimit, "revision_history_limit"}, {la.Finalizer, "finalizer"}, {la.Cluster, "cluster"}} {
			if x.attr != nil {
				c.diags = append(c.diags, diag.Error(x.attr.NameRange, "Application setting without a source",
					fmt.Sprintf("%s describes the Application platc generates, but app %q has no source block, so platc adopts an existing Application and generates none. Add a source, or set %s on the existing Application.", x.name, la.Name, x.name)))
			}
		}
		for _, d := range la.IgnoreDifferences {
			c.diags = append(c.diags, diag.Error(d.DeclRange, "Application setting without a source",
				fmt.Sprintf("ignore_differences describes the Application platc generates, but app %q has no source block, so platc generates none. Add a source, or set ignoreDifferences on the existing Application.", la.Name)))
		}
	}
}

// ignoreDifference lowers one ignore_differences block.
func (c *compilation) ignoreDifference(d *lang.IgnoreDifferences) ir.IgnoreDifference {
	e := c.eval
	var out ir.IgnoreDifference
	e.require(d.Kind, "kind", "ignore_differences", d.DeclRange)
	out.Group, _ = e.typed(d.Group, gGroup)
	out.Kind, _ = e.typed(d.Kind, gKindName)
	out.Name, _ = e.typed(d.Name, gObjectName)
	out.Namespace, _ = e.typed(d.Namespace, gNamespace)
	out.JSONPointers = c.boundedList(d.JSONPointers, gJSONPointer)
	out.JQPathExpressions = c.boundedList(d.JQPathExpressions, gJQPath)
	out.ManagedFieldsManagers = c.boundedList(d.ManagedFieldsManagers, gManager)
	if len(out.JSONPointers)+len(out.JQPathExpressions)+len(out.ManagedFieldsManagers) == 0 &&
		!e.present(d.JSONPointers) && !e.present(d.JQPathExpressions) && !e.present(d.ManagedFieldsManagers) {
		c.diags = append(c.diags, diag.Error(d.DeclRange, "Empty ignore_differences",
			"An ignore_differences block says which fields to ignore: add json_pointers (such as [\"/spec/replicas\"]), jq_path_expressions or managed_fields_managers."))
	}
	return out
}

// boundedList is typedList with at most maxListEntries elements.
func (c *compilation) boundedList(a *hcl.Attribute, g *grammar) []string {
	list := c.typedList(a, g)
	if len(list) > maxListEntries {
		c.diags = append(c.diags, diag.Error(a.Expr.Range(), "Too many elements",
			fmt.Sprintf("%s has %d elements; at most %d are allowed.", a.Name, len(list), maxListEntries)))
		return list[:maxListEntries]
	}
	return list
}

// strMap evaluates a as a map of strings, with keys of grammar key and
// values of grammar value, at most maxMapEntries of them. nil when a is
// unset.
func (c *compilation) strMap(a *hcl.Attribute, key, value *grammar) map[string]string {
	v, ok := c.eval.value(a, cty.Map(cty.String), "a map of strings")
	if !ok {
		return nil
	}
	if v.LengthInt() > maxMapEntries {
		c.diags = append(c.diags, diag.Error(a.Expr.Range(), "Too many entries",
			fmt.Sprintf("%s has %d entries; at most %d are allowed.", a.Name, v.LengthInt(), maxMapEntries)))
		return nil
	}
	out := map[string]string{}
	for it := v.ElementIterator(); it.Next(); {
		kv, ev := it.Element()
		k := kv.AsString()
		if ev.IsNull() {
			c.diags = append(c.diags, diag.Error(a.Expr.Range(), "Null map element",
				fmt.Sprintf("%s[%q] is null; give it a value or remove it.", a.Name, k)))
			continue
		}
		s := ev.AsString()
		kr, vr := c.entryRanges(a, k)
		if why := key.validate(k); why != "" {
			c.diags = append(c.diags, key.diagnose(k, why, kr))
			continue
		}
		if why := value.validate(s); why != "" && s != "" {
			c.diags = append(c.diags, value.diagnose(s, why, vr))
			continue
		}
		out[k] = s
	}
	return out
}

// entryRanges are the ranges of the key and the value of entry k of the
// map a, when a is written out as an object, else a's own range, so
// that a bad entry of a long map is reported where it is.
func (c *compilation) entryRanges(a *hcl.Attribute, k string) (hcl.Range, hcl.Range) {
	pairs, ds := hcl.ExprMap(a.Expr)
	if !ds.HasErrors() {
		for _, p := range pairs {
			kv, kds := p.Key.Value(c.eval.ctx)
			if !kds.HasErrors() && kv.Type() == cty.String && kv.IsKnown() && !kv.IsNull() && kv.AsString() == k {
				return p.Key.Range(), p.Value.Range()
			}
		}
	}
	return a.Expr.Range(), a.Expr.Range()
}

// metaMap is strMap for labels and annotations: keys platc writes
// itself, and Argo CD annotations that would break the RFC's invariants,
// are refused.
func (c *compilation) metaMap(a *hcl.Attribute, value *grammar, labels bool) map[string]string {
	m := c.strMap(a, gMetaKey, value)
	for _, k := range sortedKeys(m) {
		why := ""
		switch {
		case slices.Contains(reservedMetaKeys, k) || slices.ContainsFunc(reservedMetaPrefixes, func(p string) bool { return strings.HasPrefix(k, p) }):
			why = fmt.Sprintf("platc writes %q on every Application it generates: the deploy and teardown workflows find a platform's Applications and their dependencies by it. Choose another key.", k)
		case !labels && refusedAnnotations[k] != "":
			why = refusedAnnotations[k]
		}
		if why != "" {
			what := "annotation"
			if labels {
				what = "label"
			}
			kr, _ := c.entryRanges(a, k)
			c.diags = append(c.diags, diag.Error(kr, "Forbidden "+what, fmt.Sprintf("%q cannot be set on the Application. %s", k, why)))
			delete(m, k)
		}
	}
	return m
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// syncExtras lowers sync's retry and managed_namespace_metadata blocks.
func (c *compilation) syncExtras(sy *lang.Sync, a *ir.App) {
	e := c.eval
	if r := sy.Retry; r != nil {
		sr := &ir.SyncRetry{Limit: 5}
		if n, ok := e.integer(r.Limit, 1, maxSyncRetryLimit); ok {
			sr.Limit = n
		}
		d, okD := e.duration(r.Backoff, stepDuration)
		f, okF := e.integer(r.Factor, 1, maxRetryFactor)
		m, okM := e.duration(r.MaxBackoff, stepDuration)
		if okD || okF || okM {
			sr.HasBackoff = true
			sr.Backoff, sr.Factor, sr.MaxBackoff = d, f, m
		}
		a.Sync.Retry = sr
	}
	if mn := sy.ManagedNamespace; mn != nil {
		md := &ir.NamespaceMetadata{
			Labels:      c.strMap(mn.Labels, gMetaKey, gLabelValue),
			Annotations: c.strMap(mn.Annotations, gMetaKey, gText),
		}
		a.Sync.Namespace = md
		if slices.Contains(a.Sync.Options, "CreateNamespace=false") {
			c.diags = append(c.diags, diag.Error(mn.DeclRange, "Managed namespace metadata without CreateNamespace",
				"Argo CD applies managed_namespace_metadata only to a namespace it creates, and options has CreateNamespace=false. Remove that option (platc adds CreateNamespace=true), or remove managed_namespace_metadata."))
		}
	}
}
