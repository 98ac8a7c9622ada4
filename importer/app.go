package importer

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/platc/platc/diag"
	"github.com/platc/platc/lint/manifest"
)

// inCluster is the API server Argo CD runs in, the only destination
// platc generates Applications for.
const inCluster = "https://kubernetes.default.svc"

// dropped is a field of an imported Application the generated one will
// not have, and why that is fine or what to do.
type dropped struct {
	app   *appOut
	field string
	at    hcl.Range
	why   string
}

// build turns the Applications found into stacks and apps: an
// app-of-apps with Applications that deploy workloads among its
// children is a stack of them; one whose children are all app-of-apps
// is only structure, which platc's own root replaces.
func (im *importer) build() {
	roots := []*application{}
	for _, a := range im.apps {
		if a.parent == nil {
			roots = append(roots, a)
		}
	}
	byWave := func(as []*application) []*application {
		out := slices.Clone(as)
		slices.SortStableFunc(out, func(x, y *application) int {
			return cmp.Or(cmp.Compare(x.wave, y.wave), strings.Compare(x.name, y.name))
		})
		return out
	}
	usedApps := map[string]bool{}
	usedStacks := map[string]bool{}
	appNames := map[string]*application{}
	var visit func(a *application)
	visit = func(a *application) {
		if !a.isAppOfApps() {
			if prev, dup := appNames[a.name+"\x00"+a.argoNS]; dup {
				im.diags = append(im.diags, diag.Error(im.nameRange(a), "Duplicate Application",
					fmt.Sprintf("Application %q is also defined at %s; Argo CD keeps one of them. This one was not imported.", a.name, at(im.nameRange(prev)))))
				return
			}
			appNames[a.name+"\x00"+a.argoNS] = a
			o := im.convert(a)
			o.name = unique(hclName(a.name), usedApps)
			a.out = o
			if p := a.parent; p != nil && p.stack != nil {
				o.stack = p.stack
				p.stack.apps = append(p.stack.apps, o)
			}
			im.outApps = append(im.outApps, o)
			im.order = append(im.order, node{app: o})
			return
		}
		if slices.ContainsFunc(a.children, func(c *application) bool { return !c.isAppOfApps() }) {
			s := &stackOut{name: unique(stackName(a.name), usedStacks), app: a}
			a.stack = s
			im.stacks = append(im.stacks, s)
			im.order = append(im.order, node{stack: s})
		}
		im.replaced = append(im.replaced, a)
		for _, c := range byWave(a.children) {
			visit(c)
		}
	}
	for _, r := range roots {
		visit(r)
	}
	// Stacks whose apps were all skipped would be empty.
	im.stacks = slices.DeleteFunc(im.stacks, func(s *stackOut) bool { return len(s.apps) == 0 })
	im.order = slices.DeleteFunc(im.order, func(n node) bool { return n.stack != nil && len(n.stack.apps) == 0 })
}

var nonLabel = regexp.MustCompile(`[^a-z0-9-]+`)

// hclName turns an Application name (a DNS-1123 subdomain) into a platc
// name (a DNS-1123 label that does not start with a digit).
func hclName(s string) string {
	n := strings.Trim(nonLabel.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if n == "" || n[0] >= '0' && n[0] <= '9' {
		n = "app-" + n
	}
	if len(n) > 63 {
		n = strings.TrimRight(n[:63], "-")
	}
	return n
}

// stackName names a stack after its app-of-apps, without the "-stack"
// suffix such Applications usually carry.
func stackName(s string) string {
	n := hclName(s)
	for _, suf := range []string{"-stack", "-apps"} {
		if t := strings.TrimSuffix(n, suf); t != n && t != "" {
			return t
		}
	}
	return n
}

// unique makes name unique among used, with a numeric suffix.
func unique(name string, used map[string]bool) string {
	n := name
	for i := 2; used[n]; i++ {
		suf := "-" + strconv.Itoa(i)
		n = strings.TrimRight(name[:min(len(name), 63-len(suf))], "-") + suf
	}
	used[n] = true
	return n
}

// convert reads an Application into an app. What platc cannot express
// makes it adopted; what platc takes over is dropped with a note.
func (im *importer) convert(a *application) *appOut {
	o := &appOut{app: a, project: "default"}
	n := a.obj.Node
	f := a.obj.File
	adopt := func(why string) { o.adopted = true; o.adoptReason = append(o.adoptReason, why) }
	drop := func(k, v *yaml.Node, field, why string) {
		im.droppedFields = append(im.droppedFields, dropped{app: o, field: field, at: im.loc(f.Span(k, v)), why: why})
	}
	if a.argoNS != "" && a.argoNS != im.argoNS {
		adopt(fmt.Sprintf("it lives in namespace %q, and platc generates every Application in %q", a.argoNS, im.argoNS))
	}
	eachKey(manifest.Lookup(n, "metadata"), func(k, v *yaml.Node) {
		switch k.Value {
		case "name", "namespace":
		case "labels":
			drop(k, v, "metadata.labels", "platc labels its Applications itself (managed-by, part-of, stack)")
		case "annotations":
			eachKey(v, func(ak, av *yaml.Node) {
				if ak.Value != "argocd.argoproj.io/sync-wave" {
					drop(ak, av, "metadata.annotations."+ak.Value, "platc generates no annotations; add it back by hand if something reads it")
				}
			})
		case "finalizers":
			drop(k, v, "metadata.finalizers", "platc's teardown deletes Applications itself, in reverse dependency order, with their resources")
		default:
			drop(k, v, "metadata."+k.Value, "platc does not set it")
		}
	})
	spec := manifest.Lookup(n, "spec")
	eachKey(spec, func(k, v *yaml.Node) {
		switch k.Value {
		case "project":
			if v.Value != "" {
				o.project = v.Value
			}
		case "source", "destination", "syncPolicy":
		case "sources":
			adopt("it has several sources (spec.sources)")
		case "info", "revisionHistoryLimit":
			drop(k, v, "spec."+k.Value, "it only affects how Argo CD displays the Application")
		default:
			adopt(fmt.Sprintf("spec.%s is not something platc generates", k.Value))
		}
	})
	if o.project == "platc-orchestration" {
		adopt("its project is platc's own, platc-orchestration")
	}
	src := manifest.Lookup(spec, "source")
	o.repoURL, o.chart, o.path = a.src.repoURL, a.src.chart, a.src.path
	o.revision = a.src.revision
	eachKey(src, func(k, v *yaml.Node) {
		switch k.Value {
		case "repoURL", "path", "chart", "targetRevision":
		case "helm":
			im.convertHelm(a, o, v, adopt)
		case "directory":
			if d := manifest.Str(manifest.Lookup(v, "recurse")); len(v.Content) > 2 || len(v.Content) == 2 && (d != "false" || manifest.Lookup(v, "recurse") == nil) {
				adopt("it sets spec.source.directory options (recurse, include, exclude or jsonnet)")
			}
		default:
			adopt(fmt.Sprintf("it uses spec.source.%s", k.Value))
		}
	})
	switch {
	case o.chart != "" && o.path != "":
		adopt("its source names both a chart and a path")
	case o.chart != "" && o.revision == "":
		adopt("its chart has no version (targetRevision)")
	case o.path != "" && o.revision == "":
		// What Argo CD does without one; platc would use the platform's
		// revision instead.
		o.revision = "HEAD"
	}
	dest := manifest.Lookup(spec, "destination")
	server := manifest.Str(manifest.Lookup(dest, "server"))
	name := manifest.Str(manifest.Lookup(dest, "name"))
	switch {
	case server != "" && strings.TrimSuffix(server, "/") != inCluster:
		adopt(fmt.Sprintf("it deploys to the cluster %s, and platc deploys to the one Argo CD runs in", server))
	case name != "" && name != "in-cluster":
		adopt(fmt.Sprintf("it deploys to the cluster %q, and platc deploys to the one Argo CD runs in", name))
	}
	o.namespace = manifest.Str(manifest.Lookup(dest, "namespace"))
	if o.namespace == "" {
		adopt("it has no destination namespace, which platc needs to generate an Application")
	} else if len(o.namespace) > 63 || !k8sLabel.MatchString(o.namespace) {
		adopt(fmt.Sprintf("its destination namespace %q is not a valid namespace name", o.namespace))
	}
	eachKey(manifest.Lookup(spec, "syncPolicy"), func(k, v *yaml.Node) {
		o.hasSync = true
		switch k.Value {
		case "automated":
			o.automated = manifest.Str(manifest.Lookup(v, "enabled")) != "false"
			o.prune = manifest.Str(manifest.Lookup(v, "prune")) == "true"
			o.selfHeal = manifest.Str(manifest.Lookup(v, "selfHeal")) == "true"
			if ak, av := manifest.Entry(v, "allowEmpty"); ak != nil {
				drop(ak, av, "spec.syncPolicy.automated.allowEmpty", "platc cannot express it; with prune, Argo CD will refuse to prune the last resource of the app")
			}
		case "syncOptions":
			for _, s := range manifest.Strings(v) {
				o.syncOptions = append(o.syncOptions, s.Value)
			}
		case "retry":
			drop(k, v, "spec.syncPolicy.retry", "platc retries each app's deploy step itself (retry block, RFC 5.3)")
		default:
			adopt(fmt.Sprintf("it sets spec.syncPolicy.%s", k.Value))
		}
	})
	if o.automated {
		// INV-2: generated Applications are created without automated
		// sync; the deploy workflow turns it on once the app is healthy.
		k, _ := manifest.Entry(manifest.Lookup(spec, "syncPolicy"), "automated")
		im.droppedFields = append(im.droppedFields, dropped{app: o, field: "spec.syncPolicy.automated (at creation)", at: im.loc(f.Range(k)),
			why: "INV-2: platc creates the Application without automated sync and the deploy workflow switches it on (sync { automated = true }) once the app is healthy"})
	}
	if o.adopted {
		im.adopted = append(im.adopted, o)
	}
	return o
}

var k8sLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// convertHelm reads spec.source.helm. values and valuesObject become the
// app's values (valuesObject wins, as in Argo CD), and parameters are
// merged into them with Helm's --set rules; anything else adopts it.
func (im *importer) convertHelm(a *application, o *appOut, h *yaml.Node, adopt func(string)) {
	f := a.obj.File
	var vals map[string]any
	var fromValues *yaml.Node
	eachKey(h, func(k, v *yaml.Node) {
		switch k.Value {
		case "releaseName":
			o.releaseName = v.Value
		case "valueFiles":
			for _, s := range manifest.Strings(v) {
				if strings.HasPrefix(s.Value, "$") || strings.Contains(s.Value, "://") {
					adopt(fmt.Sprintf("its value file %q comes from another source", s.Value))
				}
				o.valueFiles = append(o.valueFiles, s.Value)
			}
		case "valuesObject":
			m, err := nodeValue(v)
			if mm, ok := m.(map[string]any); err == nil && ok {
				vals = mm
			} else {
				im.diags = append(im.diags, diag.Error(im.loc(f.Range(k)), "Unreadable Helm values",
					fmt.Sprintf("spec.source.helm.valuesObject of Application %q must be a map of values: %v. The app was adopted as it is.", a.name, cmp.Or(err, fmt.Errorf("got %s", kindName(v))))))
				adopt("its helm.valuesObject could not be read")
			}
		case "values":
			fromValues = v
		case "parameters":
		default:
			adopt(fmt.Sprintf("it uses spec.source.helm.%s", k.Value))
		}
	})
	if vals == nil && fromValues != nil && strings.TrimSpace(fromValues.Value) != "" {
		m, err := yamlValue([]byte(fromValues.Value))
		if mm, ok := m.(map[string]any); err == nil && ok {
			vals = mm
		} else {
			if err == nil {
				err = fmt.Errorf("it is not a map of values")
			}
			im.diags = append(im.diags, diag.Error(im.loc(f.Range(fromValues)), "Unreadable Helm values",
				fmt.Sprintf("spec.source.helm.values of Application %q is not a YAML map of values (%s), so Helm would fail on it too. The app was adopted as it is; fix the values and import again.", a.name, strings.TrimPrefix(err.Error(), "yaml: "))))
			adopt("its helm.values could not be read")
		}
	}
	params := items(manifest.Lookup(h, "parameters"))
	if len(params) > 0 && vals == nil {
		vals = map[string]any{}
	}
	for _, p := range params {
		name := manifest.Str(manifest.Lookup(p, "name"))
		// A value set into a list by index, or under an escaped dot,
		// would not merge into the values as it does into value files.
		if strings.ContainsAny(name, `[\`) {
			adopt(fmt.Sprintf("its helm parameter %q sets a list element or an escaped key, which values cannot express exactly", name))
			continue
		}
		if err := setParameter(vals, p); err != nil {
			adopt(fmt.Sprintf("its helm parameter %q could not be read: %v", name, err))
			continue
		}
		im.droppedFields = append(im.droppedFields, dropped{app: o, field: "spec.source.helm.parameters." + name, at: im.loc(f.Range(p)),
			why: "carried over into helm.values, which Helm applies the same way (parameters override values)"})
	}
	if vals != nil {
		o.values, o.hasValues = vals, true
	}
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return "a scalar"
	}
	return "something else"
}

// eachKey calls f for each key and value of a mapping node, in order.
func eachKey(n *yaml.Node, f func(k, v *yaml.Node)) {
	n = manifest.Resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		f(n.Content[i], manifest.Resolve(n.Content[i+1]))
	}
}

// nodeValue reads a YAML node as Kubernetes tools and Helm read it:
// through sigs.k8s.io/yaml, whose YAML 1.1 makes yes/no/on/off booleans
// (kubectl and Argo CD read an Application that way, and Helm its values
// files), into maps with string keys, lists, strings, numbers, booleans
// and null.
func nodeValue(n *yaml.Node) (any, error) {
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	return yamlValue([]byte(b.String()))
}

// yamlValue reads YAML text as nodeValue does.
func yamlValue(src []byte) (any, error) {
	j, err := sigsyaml.YAMLToJSON(src)
	if err != nil {
		return nil, errors.New(strings.TrimPrefix(strings.TrimPrefix(err.Error(), "error converting YAML to JSON: "), "yaml: "))
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return numbers(v), nil
}

// numbers turns json.Numbers into int64 when they are integers that
// fit, float64 otherwise.
func numbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = numbers(x)
		}
	case []any:
		for i, x := range t {
			t[i] = numbers(x)
		}
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	}
	return v
}
