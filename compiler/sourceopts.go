package compiler

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/platc/platc/compiler/ir"
	"github.com/platc/platc/diag"
	"github.com/platc/platc/lang"
)

// sourceOptions lowers how a source is rendered: helm, kustomize,
// directory or plugin, at most one of them, as in Argo CD. A chart takes
// only helm, and a source that only names a repository for the others
// (ref without path or chart) takes none, since Argo CD renders nothing
// from it.
func (c *compilation) sourceOptions(ls *lang.Source, s *ir.Source, chart, refOnly bool, declared map[string]hcl.Range) {
	type opt struct {
		name string
		at   hcl.Range
	}
	var set []opt
	if ls.Helm != nil {
		set = append(set, opt{"helm", ls.Helm.DeclRange})
	}
	if ls.Kustomize != nil {
		set = append(set, opt{"kustomize", ls.Kustomize.DeclRange})
	}
	if ls.Directory != nil {
		set = append(set, opt{"directory", ls.Directory.DeclRange})
	}
	if ls.Plugin != nil {
		set = append(set, opt{"plugin", ls.Plugin.DeclRange})
	}
	if len(set) > 1 {
		c.diags = append(c.diags, diag.Error(set[1].at, "Conflicting source options",
			fmt.Sprintf("This source has both a %s and a %s block; Argo CD renders a source one way only. Keep one of them, or split the source in two.", set[0].name, set[1].name)))
	}
	for _, o := range set {
		switch {
		case refOnly:
			c.diags = append(c.diags, diag.Error(o.at, "Options on a ref source",
				fmt.Sprintf("This source has ref and neither path nor chart, so Argo CD renders nothing from it and ignores its %s block. Move the block to the source that deploys, or add path.", o.name)))
		case chart && o.name != "helm":
			c.diags = append(c.diags, diag.Error(o.at, "Options on a chart source",
				fmt.Sprintf("A Helm chart is rendered by Helm; a %s block applies to a Git path. Use a helm block, or a path source.", o.name)))
		}
	}
	if h := ls.Helm; h != nil {
		s.Helm = c.helm(h, declared, s.Path, chart)
	}
	if k := ls.Kustomize; k != nil {
		s.Kustomize = c.kustomize(k, s.Path)
	}
	if d := ls.Directory; d != nil {
		s.Directory = c.directory(d)
	}
	if p := ls.Plugin; p != nil {
		s.Plugin = c.plugin(p)
	}
}

// helm lowers a helm block of a source whose Git path is dir, or of a
// chart.
func (c *compilation) helm(h *lang.Helm, declared map[string]hcl.Range, dir string, chart bool) *ir.Helm {
	e := c.eval
	out := &ir.Helm{}
	if v, ok := e.value(h.Values, cty.DynamicPseudoType, ""); ok {
		if !v.Type().IsObjectType() && !v.Type().IsMapType() {
			c.diags = append(c.diags, diag.Error(h.Values.Expr.Range(), "Incorrect attribute value type",
				fmt.Sprintf("values must be an object, such as { replicas = 2 }; got %s.", v.Type().FriendlyName())))
		} else if jv, ok := c.dataValue(v, h.Values.Expr.Range()); ok {
			if m, ok := jv.(map[string]any); ok {
				out.Values = m
			}
		}
	}
	out.ValueFiles = c.valueFiles(h.ValueFiles, declared, dir, chart)
	out.ReleaseName, _ = e.typed(h.ReleaseName, gReleaseName)
	out.SkipCRDs, _ = e.boolean(h.SkipCRDs)
	out.SkipTests, _ = e.boolean(h.SkipTests)
	out.IgnoreMissingValueFiles, _ = e.boolean(h.IgnoreMissingValueFiles)
	out.PassCredentials, _ = e.boolean(h.PassCredentials)
	out.APIVersions = c.boundedList(h.APIVersions, gAPIVersion)
	out.KubeVersion, _ = e.typed(h.KubeVersion, gKubeVersion)
	if n := len(h.Parameters) + len(h.FileParameters); n > maxHelmParameters {
		c.diags = append(c.diags, diag.Error(h.DeclRange, "Too many Helm parameters",
			fmt.Sprintf("This helm block has %d parameter and file_parameter blocks; at most %d are allowed. Write the values in values instead.", n, maxHelmParameters)))
		return out
	}
	for _, p := range h.Parameters {
		e.require(p.Name, "name", "parameter", p.DeclRange)
		e.require(p.Value, "value", "parameter", p.DeclRange)
		hp := ir.HelmParameter{}
		hp.Name, _ = e.typed(p.Name, gHelmParamName)
		hp.Value, _ = e.str(p.Value)
		hp.ForceString, _ = e.boolean(p.ForceString)
		out.Parameters = append(out.Parameters, hp)
	}
	for _, p := range h.FileParameters {
		e.require(p.Name, "name", "file_parameter", p.DeclRange)
		e.require(p.Path, "path", "file_parameter", p.DeclRange)
		fp := ir.HelmFileParameter{}
		fp.Name, _ = e.typed(p.Name, gHelmParamName)
		fp.Path, _ = e.typed(p.Path, gValueFile)
		if why := c.leaves(fp.Path, dir, chart); why != "" {
			c.diags = append(c.diags, diag.Error(p.Path.Expr.Range(), "Invalid path",
				fmt.Sprintf("file_parameter path %s %s. %s", quoteShort(fp.Path), why, gValueFile.hint)))
			fp.Path = ""
		}
		out.FileParameters = append(out.FileParameters, fp)
	}
	return out
}

// valueFiles evaluates value_files. A file of another source of the app
// is written "$REF/path", and REF must be the ref of one of the app's
// sources: Argo CD would otherwise fail the sync with "values file not
// found" long after the build. Each element is checked at its own range
// when the list is written out. A file without "$" is relative to the
// source's path dir (or the chart), and must not leave the repository
// (or the chart) from there, as Argo CD requires.
func (c *compilation) valueFiles(a *hcl.Attribute, declared map[string]hcl.Range, dir string, chart bool) []string {
	list, ok := c.eval.strList(a)
	if !ok {
		return nil
	}
	if len(list) > maxListEntries {
		c.diags = append(c.diags, diag.Error(a.Expr.Range(), "Too many elements",
			fmt.Sprintf("value_files has %d elements; at most %d are allowed.", len(list), maxListEntries)))
		return nil
	}
	exprs, ds := hcl.ExprList(a.Expr)
	at := func(i int) hcl.Range {
		if !ds.HasErrors() && len(exprs) == len(list) {
			return exprs[i].Range()
		}
		return a.Expr.Range()
	}
	var out []string
	for i, f := range list {
		if !strings.HasPrefix(f, "$") {
			if why := gValueFile.validate(f); why != "" {
				c.diags = append(c.diags, gValueFile.diagnose(f, why, at(i)))
				continue
			}
			if why := c.leaves(f, dir, chart); why != "" {
				c.diags = append(c.diags, diag.Error(at(i), "Invalid values file", fmt.Sprintf("%s %s. %s", quoteShort(f), why, gValueFile.hint)))
				continue
			}
			out = append(out, f)
			continue
		}
		ref, rest, _ := strings.Cut(f[1:], "/")
		if why := gSourceRef.validate(ref); why != "" {
			c.diags = append(c.diags, diag.Error(at(i), "Invalid values file",
				fmt.Sprintf("%s starts with '$' but %q %s. A values file of another source is written \"$REF/path\", where REF is that source's ref, such as \"$values/prod.yaml\".", quoteShort(f), ref, why)))
			continue
		}
		if _, ok := declared[ref]; !ok {
			detail := fmt.Sprintf("%s reads a file of the source whose ref is %q, but no source of this app has that ref.", quoteShort(f), ref)
			if len(declared) == 0 {
				detail += fmt.Sprintf(" Add a source block for the repository that holds the file, with ref = %q, repo_url and target_revision.", ref)
			} else {
				detail += fmt.Sprintf(" The app's refs are %s. Use one of them, or add ref = %q to the source that holds the file.", listShort(sortedKeys(declared)), ref)
			}
			c.diags = append(c.diags, diag.Error(at(i), "Unknown source ref", detail))
			continue
		}
		why := "is empty"
		if rest != "" {
			why = checkRepoPath(rest)
		}
		if why != "" {
			c.diags = append(c.diags, diag.Error(at(i), "Invalid values file",
				fmt.Sprintf("The path after $%s/ in %s %s. %s", ref, quoteShort(f), why, gRepoPath.hint)))
			continue
		}
		out = append(out, f)
	}
	return out
}

// leaves says why f, a file of a source whose Git path is dir (or of a
// chart), is outside what Argo CD lets it read, or "".
func (c *compilation) leaves(f, dir string, chart bool) string {
	if f == "" || strings.Contains(f, "://") {
		return ""
	}
	if chart {
		if f == ".." || strings.HasPrefix(f, "../") {
			return "leaves the chart; Argo CD reads a chart's values files from the chart"
		}
		return ""
	}
	if _, ok := inSource(dir, f); !ok {
		return fmt.Sprintf("leads outside the repository from the source's path %q; Argo CD refuses a file resolved outside the repository root", dir)
	}
	return ""
}

// kustomize lowers a kustomize block.
func (c *compilation) kustomize(k *lang.Kustomize, dir string) *ir.Kustomize {
	e := c.eval
	out := &ir.Kustomize{}
	out.Images = c.boundedList(k.Images, gImageOverride)
	out.NamePrefix, _ = e.typed(k.NamePrefix, gNameAffix)
	out.NameSuffix, _ = e.typed(k.NameSuffix, gNameAffix)
	out.CommonLabels = c.strMap(k.CommonLabels, gMetaKey, gLabelValue)
	out.CommonAnnotations = c.strMap(k.CommonAnnotations, gMetaKey, gText)
	out.Namespace, _ = e.typed(k.Namespace, gNamespace)
	// Components are relative to the kustomization, and usually sit
	// beside its overlays ("../../components/tracing"); they must stay
	// in the repository.
	for _, comp := range c.boundedList(k.Components, gComponent) {
		if _, ok := inSource(dir, comp); !ok {
			c.diags = append(c.diags, diag.Error(c.elemRange(k.Components, comp), "Invalid path",
				fmt.Sprintf("%s leads outside the repository from the source's path %q. %s", quoteShort(comp), dir, gComponent.hint)))
			continue
		}
		out.Components = append(out.Components, comp)
	}
	if len(k.Patches) > maxKustomizePatches {
		c.diags = append(c.diags, diag.Error(k.Patches[maxKustomizePatches].DeclRange, "Too many kustomize patches",
			fmt.Sprintf("A kustomize block may have at most %d patch blocks. Keep the patches in the repository's kustomization.yaml instead.", maxKustomizePatches)))
		return out
	}
	for _, p := range k.Patches {
		kp := ir.KustomizePatch{}
		kp.Patch, _ = e.typed(p.Patch, gPatch)
		kp.Path, _ = e.typed(p.Path, gRepoPath)
		if e.present(p.Patch) == e.present(p.Path) {
			c.diags = append(c.diags, diag.Error(p.DeclRange, "Patch needs patch or path",
				"A patch block has either patch (the patch's YAML or JSON text) or path (a file in the source's repository), exactly one of them."))
		}
		if t := p.Target; t != nil {
			pt := &ir.PatchTarget{}
			pt.Group, _ = e.typed(t.Group, gGroup)
			pt.Version, _ = e.typed(t.Version, gAPIVersion.as("version"))
			pt.Kind, _ = e.typed(t.Kind, gKindName)
			pt.Name, _ = e.typed(t.Name, gObjectName)
			pt.Namespace, _ = e.typed(t.Namespace, gNamespace)
			pt.LabelSelector, _ = e.typed(t.LabelSelector, gSelector)
			pt.AnnotationSelector, _ = e.typed(t.AnnotationSelector, gSelector)
			kp.Target = pt
		}
		out.Patches = append(out.Patches, kp)
	}
	return out
}

// gComponent is a kustomize component, relative to the source's path.
var gComponent = &grammar{
	what: "kustomize component", max: 1024,
	check: func(s string) string {
		switch {
		case strings.HasPrefix(s, "/"):
			return "is an absolute path"
		case !pathChars.MatchString(s):
			return "holds characters platc does not accept in a path"
		case path.Clean(s) != s:
			return fmt.Sprintf("is not written plainly (that is %q)", path.Clean(s))
		}
		return ""
	},
	hint: "A component is a directory relative to the source's path, inside the repository, such as \"../../components/tracing\".",
}

// selectorChars are those of a label selector's string form.
var selectorChars = regexp.MustCompile(`^[A-Za-z0-9._/=!,() -]+$`)

// gSelector is a Kubernetes label selector in its string form.
var gSelector = &grammar{
	what: "selector", max: 1024,
	check: func(s string) string {
		if !selectorChars.MatchString(s) {
			return "is not a label selector"
		}
		return ""
	},
	hint: "Write a label selector such as \"app=web,tier!=cache\".",
}

// directory lowers a directory block.
func (c *compilation) directory(d *lang.Directory) *ir.Directory {
	e := c.eval
	out := &ir.Directory{}
	out.Recurse, _ = e.boolean(d.Recurse)
	out.Include, _ = e.typed(d.Include, gGlob)
	out.Exclude, _ = e.typed(d.Exclude, gGlob)
	if j := d.Jsonnet; j != nil {
		out.Jsonnet = &ir.Jsonnet{
			ExtVars: c.jsonnetVars(j.ExtVars),
			TLAs:    c.jsonnetVars(j.TLAs),
			Libs:    c.boundedList(j.Libs, gRepoPath),
		}
	}
	return out
}

// vars evaluates a map of variable names to string values, sorted by
// name.
func (c *compilation) vars(a *hcl.Attribute) []ir.Var {
	m := c.strMap(a, gVarName, gText)
	var out []ir.Var
	for _, k := range sortedKeys(m) {
		out = append(out, ir.Var{Name: k, Value: m[k]})
	}
	return out
}

// jsonnetVars evaluates ext_vars or tlas, sorted by name. A string is a
// Jsonnet string; a number, bool, null, list or object is data Jsonnet
// reads as code (issue 22): platc writes it as compact JSON with code set,
// and JSON is Jsonnet that only evaluates to itself. What an author
// writes is never passed as Jsonnet source, so no expression of theirs
// runs in the repo server.
func (c *compilation) jsonnetVars(a *hcl.Attribute) []ir.JsonnetVar {
	v, ok := c.eval.value(a, cty.DynamicPseudoType, "")
	if !ok {
		return nil
	}
	if !v.IsKnown() || !v.Type().IsObjectType() && !v.Type().IsMapType() {
		c.diags = append(c.diags, diag.Error(a.Expr.Range(), "Incorrect attribute value type",
			fmt.Sprintf("%s must be an object of variable names to values, such as { cluster = \"prod-1\", replicas = 3 }; got %s.", a.Name, friendlyType(v.Type()))))
		return nil
	}
	if v.LengthInt() > maxMapEntries {
		c.diags = append(c.diags, diag.Error(a.Expr.Range(), "Too many entries",
			fmt.Sprintf("%s has %d entries; at most %d are allowed.", a.Name, v.LengthInt(), maxMapEntries)))
		return nil
	}
	vals := v.AsValueMap()
	var out []ir.JsonnetVar
	for _, k := range sortedKeys(vals) {
		ev := vals[k]
		kr, vr := c.entryRanges(a, k)
		if why := gVarName.validate(k); why != "" {
			c.diags = append(c.diags, gVarName.diagnose(k, why, kr))
			continue
		}
		if !ev.IsNull() && ev.Type() == cty.String {
			s := ev.AsString()
			if why := gText.validate(s); why != "" && s != "" {
				c.diags = append(c.diags, gText.diagnose(s, why, vr))
				continue
			}
			out = append(out, ir.JsonnetVar{Name: k, Value: s})
			continue
		}
		jv, ok := c.dataValue(ev, vr)
		if !ok {
			continue
		}
		var b strings.Builder
		enc := json.NewEncoder(&b)
		// Jsonnet reads "<" as well as "\u003c"; the plain form is
		// what a reader of the Application expects.
		enc.SetEscapeHTML(false)
		if err := enc.Encode(jv); err != nil {
			c.diags = append(c.diags, diag.Error(vr, "Unsupported value", fmt.Sprintf("%s[%q] cannot be written as JSON: %s.", a.Name, k, err)))
			continue
		}
		// Argo CD substitutes its build environment ($ARGOCD_APP_NAME)
		// into every variable before Jsonnet reads it; a value with a
		// quote in it would then turn data into code. "$" occurs in
		// compact JSON only inside strings, and Jsonnet reads the
		// escape as "$", so the data reaches Jsonnet as written.
		text := strings.ReplaceAll(strings.TrimSuffix(b.String(), "\n"), "$", `\u0024`)
		// Compact JSON has "{{" or "{%" only inside a string, so this
		// checks every string and key of the value at once.
		if why := gJsonnetData.validate(text); why != "" {
			c.diags = append(c.diags, gJsonnetData.diagnose(text, why, vr))
			continue
		}
		out = append(out, ir.JsonnetVar{Name: k, Value: text, Code: true})
	}
	return out
}

// gJsonnetData is a Jsonnet variable's value written as JSON.
var gJsonnetData = &grammar{
	what: "Jsonnet variable", max: 1 << 16,
	check: gText.check,
	hint:  "A Jsonnet variable is a string, or data (a number, bool, list or object) of at most 64 KiB as JSON, without template delimiters in its strings.",
}

// plugin lowers a plugin block. Parameters are strings, lists of strings
// or maps of strings, as the plugin's parameters API takes them.
func (c *compilation) plugin(p *lang.Plugin) *ir.Plugin {
	e := c.eval
	out := &ir.Plugin{}
	e.require(p.Name, "name", "plugin", p.DeclRange)
	out.Name, _ = e.typed(p.Name, gPluginName)
	out.Env = c.vars(p.Env)
	v, ok := e.value(p.Parameters, cty.DynamicPseudoType, "")
	if !ok {
		return out
	}
	r := p.Parameters.Expr.Range()
	if !v.Type().IsObjectType() && !v.Type().IsMapType() {
		c.diags = append(c.diags, diag.Error(r, "Incorrect attribute value type",
			fmt.Sprintf("parameters must be an object of names to strings, lists of strings or maps of strings; got %s.", v.Type().FriendlyName())))
		return out
	}
	if v.LengthInt() > maxMapEntries {
		c.diags = append(c.diags, diag.Error(r, "Too many entries", fmt.Sprintf("parameters has %d entries; at most %d are allowed.", v.LengthInt(), maxMapEntries)))
		return out
	}
	for it := v.ElementIterator(); it.Next(); {
		kv, ev := it.Element()
		name := kv.AsString()
		if why := gVarName.validate(name); why != "" {
			c.diags = append(c.diags, gVarName.as("plugin parameter name").diagnose(name, why, r))
			continue
		}
		pp := ir.PluginParameter{Name: name}
		bad := func() {
			c.diags = append(c.diags, diag.Error(r, "Invalid plugin parameter",
				fmt.Sprintf("parameters[%q] must be a string, a list of at most %d strings or a map of at most %d strings, none of them holding \"{{\" or \"{%%\".", name, maxListEntries, maxMapEntries)))
		}
		t := ev.Type()
		switch {
		case ev.IsNull() || !ev.IsKnown():
			bad()
			continue
		case t == cty.String:
			s := ev.AsString()
			if gText.validate(s) != "" && s != "" {
				bad()
				continue
			}
			pp.String = &s
		case t.IsListType() || t.IsTupleType() || t.IsSetType():
			if ev.LengthInt() > maxListEntries {
				bad()
				continue
			}
			ok := true
			pp.Array = []string{}
			for it := ev.ElementIterator(); it.Next(); {
				_, x := it.Element()
				if x.IsNull() || x.Type() != cty.String || gText.validate(x.AsString()) != "" && x.AsString() != "" {
					ok = false
					break
				}
				pp.Array = append(pp.Array, x.AsString())
			}
			if !ok {
				bad()
				continue
			}
		case t.IsMapType() || t.IsObjectType():
			if ev.LengthInt() > maxMapEntries {
				bad()
				continue
			}
			ok := true
			pp.Map = map[string]string{}
			for it := ev.ElementIterator(); it.Next(); {
				k, x := it.Element()
				if x.IsNull() || x.Type() != cty.String || gText.validate(x.AsString()) != "" && x.AsString() != "" || gText.validate(k.AsString()) != "" {
					ok = false
					break
				}
				pp.Map[k.AsString()] = x.AsString()
			}
			if !ok {
				bad()
				continue
			}
		default:
			bad()
			continue
		}
		out.Parameters = append(out.Parameters, pp)
	}
	return out
}
