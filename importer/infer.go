package importer

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/platc/platc/detect"
	"github.com/platc/platc/manifest"
)

// providers indexes what each app's manifests hold, to find the app
// that provides what a wait names.
type providers struct {
	objects map[objKey][]provided // by kind (lower case), namespace, name
	named   map[nsName][]provided // any kind
	crds    map[string][]crdDef   // by CRD name (plural.group)
	kinds   map[string][]crdDef   // by group/Kind
	nsApps  map[string][]*appOut  // apps that deploy into a namespace
	// resources maps what kubectl accepts as a resource type (kind,
	// plural, singular, short name, lower case) to the kind.
	resources map[string]string
	scope     map[string]bool // lower-case kinds that are cluster-scoped
	keys      []objKey
}

type objKey struct{ kind, ns, name string }
type nsName struct{ ns, name string }

type provided struct {
	app *appOut
	obj *manifest.Object
}

type crdDef struct {
	app                     *appOut
	obj                     *manifest.Object
	name, group, kind, plur string
}

// builtinResources are the resource names kubectl accepts for the kinds
// waits name most.
var builtinResources = map[string][]string{
	"Deployment":               {"deployments", "deployment", "deploy"},
	"StatefulSet":              {"statefulsets", "statefulset", "sts"},
	"DaemonSet":                {"daemonsets", "daemonset", "ds"},
	"ReplicaSet":               {"replicasets", "replicaset", "rs"},
	"Pod":                      {"pods", "pod", "po"},
	"Job":                      {"jobs", "job"},
	"CronJob":                  {"cronjobs", "cronjob", "cj"},
	"Service":                  {"services", "service", "svc"},
	"Endpoints":                {"endpoints", "ep"},
	"ConfigMap":                {"configmaps", "configmap", "cm"},
	"Secret":                   {"secrets", "secret"},
	"PersistentVolumeClaim":    {"persistentvolumeclaims", "persistentvolumeclaim", "pvc"},
	"StorageClass":             {"storageclasses", "storageclass", "sc"},
	"Namespace":                {"namespaces", "namespace", "ns"},
	"Ingress":                  {"ingresses", "ingress", "ing"},
	"IngressClass":             {"ingressclasses", "ingressclass"},
	"ServiceAccount":           {"serviceaccounts", "serviceaccount", "sa"},
	"CustomResourceDefinition": {"customresourcedefinitions", "customresourcedefinition", "crd", "crds"},
	"APIService":               {"apiservices", "apiservice"},
	"PriorityClass":            {"priorityclasses", "priorityclass", "pc"},
	"ClusterRole":              {"clusterroles", "clusterrole"},
	"ClusterRoleBinding":       {"clusterrolebindings", "clusterrolebinding"},
	"PersistentVolume":         {"persistentvolumes", "persistentvolume", "pv"},
}

var clusterScoped = []string{
	"Namespace", "CustomResourceDefinition", "StorageClass", "IngressClass", "APIService",
	"PriorityClass", "ClusterRole", "ClusterRoleBinding", "PersistentVolume", "CSIDriver",
	"RuntimeClass", "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "VolumeSnapshotClass",
}

// namespaceOf is where an object lands: the namespace a kustomization
// gives it, its own, or its app's destination; cluster-scoped objects
// have none.
func (p *providers) namespaceOf(o *manifest.Object, dest string) string {
	if p.scope[strings.ToLower(o.Kind)] {
		return ""
	}
	return cmp.Or(o.KustomizeNamespace, o.Namespace, dest)
}

func (im *importer) indexProviders() {
	p := &providers{
		objects: map[objKey][]provided{}, named: map[nsName][]provided{},
		crds: map[string][]crdDef{}, kinds: map[string][]crdDef{},
		nsApps: map[string][]*appOut{}, resources: map[string]string{}, scope: map[string]bool{},
	}
	for kind, names := range builtinResources {
		p.resources[strings.ToLower(kind)] = kind
		for _, n := range names {
			p.resources[n] = kind
		}
	}
	for _, k := range clusterScoped {
		p.scope[strings.ToLower(k)] = true
	}
	// CRDs first: they say which custom kinds exist and their scope.
	for _, o := range im.outApps {
		for _, obj := range o.app.contents {
			if obj.Kind != "CustomResourceDefinition" || !strings.HasPrefix(obj.APIVersion, "apiextensions.k8s.io/") {
				continue
			}
			spec := manifest.Lookup(obj.Node, "spec")
			d := crdDef{app: o, obj: obj, name: obj.Name,
				group: manifest.Str(manifest.Lookup(spec, "group")),
				kind:  manifest.Str(manifest.Lookup(spec, "names", "kind")),
				plur:  manifest.Str(manifest.Lookup(spec, "names", "plural")),
			}
			if d.kind == "" || d.group == "" {
				continue
			}
			p.crds[d.name] = append(p.crds[d.name], d)
			gk := d.group + "/" + d.kind
			p.kinds[gk] = append(p.kinds[gk], d)
			lk := strings.ToLower(d.kind)
			names := []string{lk, d.plur, manifest.Str(manifest.Lookup(spec, "names", "singular"))}
			for _, s := range manifest.Strings(manifest.Lookup(spec, "names", "shortNames")) {
				names = append(names, s.Value)
			}
			for _, n := range names {
				if n != "" {
					p.resources[strings.ToLower(n)] = d.kind
					p.resources[strings.ToLower(n)+"."+d.group] = d.kind
				}
			}
			if manifest.Str(manifest.Lookup(spec, "scope")) == "Cluster" {
				p.scope[lk] = true
			}
		}
	}
	for _, o := range im.outApps {
		if o.namespace != "" && !slices.Contains(p.nsApps[o.namespace], o) {
			p.nsApps[o.namespace] = append(p.nsApps[o.namespace], o)
		}
		for _, obj := range o.app.contents {
			if detect.IsApplication(obj) || detect.IsApplicationSet(obj) || obj.Name == "" {
				continue
			}
			ns := p.namespaceOf(obj, o.namespace)
			k := objKey{strings.ToLower(obj.Kind), ns, obj.Name}
			p.objects[k] = append(p.objects[k], provided{o, obj})
			p.named[nsName{ns, obj.Name}] = append(p.named[nsName{ns, obj.Name}], provided{o, obj})
			if ns != "" && !slices.Contains(p.nsApps[ns], o) {
				p.nsApps[ns] = append(p.nsApps[ns], o)
			}
		}
	}
	im.prov = p
}

// infer collects the evidence: wait Jobs and hooks, CRDs and sync waves.
func (im *importer) infer() {
	im.indexProviders()
	for _, a := range im.apps {
		var owner node
		switch {
		case a.out != nil:
			owner = node{app: a.out}
		case a.stack != nil:
			owner = node{stack: a.stack}
		}
		if a.out == nil && !a.isAppOfApps() {
			continue // skipped
		}
		dest := manifest.Str(manifest.Lookup(a.obj.Node, "spec", "destination", "namespace"))
		seenKinds := map[string]bool{}
		for _, o := range a.contents {
			im.hookOrJob(a, owner, o, dest)
			if a.out != nil {
				im.crdEdge(a.out, o, seenKinds)
			}
		}
	}
	im.waves()
}

// hookOrJob looks at one object of an app's manifests: a hook, or a Job
// that waits for another app.
func (im *importer) hookOrJob(a *application, owner node, o *manifest.Object, dest string) {
	isJob := o.Kind == "Job" && strings.HasPrefix(o.APIVersion, "batch/")
	hk, isHook := detect.HookOf(o)
	if !isJob && !isHook {
		return
	}
	ns := im.prov.namespaceOf(o, dest)
	waits := detect.Waits(o, ns)
	if !isHook && len(waits) == 0 {
		return
	}
	h := &hookOut{obj: o, owner: owner, hook: isHook, at: im.loc(o.File.Range(o.Node))}
	if k, v := manifest.Entry(manifest.Lookup(o.Node, "metadata"), "name"); k != nil {
		h.at = im.loc(o.File.Span(k, v))
	}
	if isHook {
		h.at = im.loc(o.File.Span(hk.Ann.Key, hk.Ann.Value))
		if len(hk.Phases) > 0 {
			h.phase = hk.Phases[0]
		}
	}
	for _, w := range waits {
		wo := waitOut{at: im.loc(w.At), text: w.Text, why: w.Why}
		for _, t := range w.Targets {
			to := im.resolve(t)
			switch {
			case to.provider == nil:
			case slices.Contains(owner.apps(), to.provider):
				to.note = "that is its own app"
				to.provider = nil
			case !owner.valid():
				to.note = fmt.Sprintf("app.%s provides it, but the Job belongs to %q, an app-of-apps that becomes no stack, so there is nothing to attach the dependency to", to.provider.name, a.name)
				to.provider = nil
			default:
				what := "Job"
				if isHook {
					what = hk.Describe() + " " + o.Kind
				}
				im.addEdge(owner, node{app: to.provider}, evidence{kind: kindWait, confidence: to.conf, at: wo.at,
					text: fmt.Sprintf("%s %q waits for %s (%s)", what, o.Name, to.what, to.how)})
			}
			wo.targets = append(wo.targets, to)
		}
		h.waits = append(h.waits, wo)
	}
	h.waitOnly = waitOnly(o, waits)
	h.purpose = purposeOf(o)
	h.name = hclName(strings.TrimRight(cmp.Or(o.Name, manifest.Str(manifest.Lookup(o.Node, "metadata", "generateName"))), "-"))
	switch {
	case h.waitOnly:
		h.action = "delete"
	case isHook && h.purpose != "" && !a.rendered && h.phase != "" && owner.app != nil:
		h.action = "declare"
	case !isHook:
		h.action = "delete-wait"
	default:
		h.action = "review"
	}
	im.hooks = append(im.hooks, h)
	if h.action == "declare" && owner.app != nil {
		// Hook names are unique within an app.
		used := map[string]bool{}
		for _, x := range owner.app.hooks {
			used[x.name] = true
		}
		h.name = unique(h.name, used)
		owner.app.hooks = append(owner.app.hooks, h)
	}
}

// containersOf lists the containers of a Job or Pod, init containers
// first.
func containersOf(o *manifest.Object) []*yaml.Node {
	spec := manifest.Lookup(o.Node, "spec", "template", "spec")
	if o.Kind == "Pod" {
		spec = manifest.Lookup(o.Node, "spec")
	}
	return append(slices.Clone(items(manifest.Lookup(spec, "initContainers"))), items(manifest.Lookup(spec, "containers"))...)
}

// waitOnly reports whether every container of a Job or Pod only waits:
// a wait helper, a wait command in exec form, or a script whose every
// line waits or is loop plumbing (do, done, sleep, echo, ...).
func waitOnly(o *manifest.Object, waits []detect.Wait) bool {
	cs := containersOf(o)
	if len(cs) == 0 || len(waits) == 0 {
		return false
	}
	byContainer := map[int][]detect.Wait{}
	for _, w := range waits {
		byContainer[w.Container] = append(byContainer[w.Container], w)
	}
	for i, c := range cs {
		ws := byContainer[i]
		if len(ws) == 0 {
			return false
		}
		if ws[0].Helper || ws[0].Exec {
			continue
		}
		waiting := map[string]bool{}
		for _, w := range ws {
			waiting[strings.TrimSpace(w.Line)] = true
		}
		argv := append(manifest.Strings(manifest.Lookup(c, "command")), manifest.Strings(manifest.Lookup(c, "args"))...)
		for _, s := range argv {
			if slices.Contains(shells, s.Value) {
				continue
			}
			for _, line := range strings.Split(s.Value, "\n") {
				if t := strings.TrimSpace(line); t != "" && !waiting[t] && !plumbing(t) {
					return false
				}
			}
		}
	}
	return true
}

var shells = []string{"sh", "bash", "/bin/sh", "/bin/bash", "/bin/ash", "-c", "-ec", "-euc", "-e"}

var plumbingWords = []string{"do", "done", "sleep", "echo", "printf", "set", "true", ":", "exit", "fi", "then", "else", "{", "}", "break", "continue"}

// plumbing reports whether a shell line only does what a wait loop
// needs around the wait itself.
func plumbing(line string) bool {
	for _, part := range regexp.MustCompile(`;|&&|\|\|`).Split(line, -1) {
		f := strings.Fields(part)
		if len(f) > 0 && !strings.HasPrefix(f[0], "#") && !slices.Contains(plumbingWords, f[0]) {
			return false
		}
	}
	return true
}

var (
	migrationWords = regexp.MustCompile(`migrat|upgrade-db|db-upgrade|flyway|liquibase|alembic`)
	schemaWords    = regexp.MustCompile(`schema`)
	initWords      = regexp.MustCompile(`(^|[-_])(init|bootstrap|setup|seed|provision)([-_]|$)`)
)

// purposeOf guesses, from the Job's name and images, the app-internal
// work INV-8 still allows a hook to do.
func purposeOf(o *manifest.Object) string {
	text := strings.ToLower(o.Name)
	spec := manifest.Lookup(o.Node, "spec", "template", "spec")
	for _, c := range items(manifest.Lookup(spec, "containers")) {
		text += " " + strings.ToLower(manifest.Str(manifest.Lookup(c, "name"))+" "+manifest.Str(manifest.Lookup(c, "image")))
	}
	switch {
	case migrationWords.MatchString(text):
		return "migration"
	case schemaWords.MatchString(text):
		return "schema"
	case initWords.MatchString(strings.ToLower(o.Name)):
		return "init"
	}
	return ""
}

// resolve finds the app that provides what a wait names.
func (im *importer) resolve(t detect.Target) targetOut {
	p := im.prov
	switch t.Kind {
	case detect.TargetCRD:
		to := targetOut{what: t.String()}
		if ds := p.crds[t.Name]; len(ds) > 0 {
			to.provider, to.conf = ds[0].app, high
			to.how = fmt.Sprintf("app.%s defines it, %s", ds[0].app.name, at(im.loc(ds[0].obj.File.Range(ds[0].obj.Node))))
			return to
		}
		if _, group, ok := strings.Cut(t.Name, "."); ok {
			var apps []*appOut
			for _, name := range sortedKeys(p.crds) {
				for _, d := range p.crds[name] {
					if d.group == group && !slices.Contains(apps, d.app) {
						apps = append(apps, d.app)
					}
				}
			}
			if len(apps) == 1 {
				to.provider, to.conf = apps[0], medium
				to.how = fmt.Sprintf("app.%s defines the other CRDs of %s", apps[0].name, group)
				return to
			}
		}
		to.note = "no app in the tree defines that CRD"
		return to
	case detect.TargetObject:
		kind := p.kind(t.Resource)
		if p.scope[strings.ToLower(kind)] {
			t.Namespace = "" // kubectl ignores -n for cluster-scoped kinds
		}
		ns := t.Namespace
		to := targetOut{what: t.String()}
		if t.Name != "" {
			if ps := p.objects[objKey{strings.ToLower(kind), ns, t.Name}]; len(ps) > 0 {
				to.provider, to.conf = ps[0].app, high
				to.how = fmt.Sprintf("app.%s holds it, %s", ps[0].app.name, at(im.loc(ps[0].obj.File.Range(ps[0].obj.Node))))
				return to
			}
		} else if sel := parseSelector(t.Selector); sel != nil {
			for _, k := range p.objectKeys() {
				if k.ns != ns || k.kind != strings.ToLower(kind) {
					continue
				}
				for _, pr := range p.objects[k] {
					if labelsMatch(pr.obj, sel) {
						to.provider, to.conf = pr.app, high
						to.how = fmt.Sprintf("app.%s holds a %s with those labels, %s", pr.app.name, kind, at(im.loc(pr.obj.File.Range(pr.obj.Node))))
						return to
					}
				}
			}
		}
		return im.byNamespace(to, ns, t.Name)
	case detect.TargetHost:
		to := targetOut{what: t.String()}
		if t.Name == "" {
			to.note = "an IP address names no app"
			return to
		}
		if ps := p.objects[objKey{"service", t.Namespace, t.Name}]; len(ps) > 0 {
			to.provider, to.conf = ps[0].app, high
			to.how = fmt.Sprintf("app.%s holds Service %q, %s", ps[0].app.name, t.Name, at(im.loc(ps[0].obj.File.Range(ps[0].obj.Node))))
			return to
		}
		// Operators name the Services of what they run after the custom
		// resource (a Zalando postgresql, a Vault, a Kafka).
		if ps := p.named[nsName{t.Namespace, t.Name}]; len(ps) > 0 {
			to.provider, to.conf = ps[0].app, high
			to.how = fmt.Sprintf("app.%s holds %s %q, whose operator serves it under that name, %s", ps[0].app.name, ps[0].obj.Kind, t.Name, at(im.loc(ps[0].obj.File.Range(ps[0].obj.Node))))
			return to
		}
		return im.byNamespace(to, t.Namespace, t.Name)
	}
	return targetOut{note: "unknown kind of wait"}
}

// byNamespace is the last resort: the one app that deploys into the
// namespace, or among several the one whose name the target's starts
// with.
func (im *importer) byNamespace(to targetOut, ns, name string) targetOut {
	apps := im.prov.nsApps[ns]
	switch {
	case ns == "":
		to.note = "no app in the tree holds it"
		return to
	case len(apps) == 0:
		to.note = fmt.Sprintf("no app in the tree deploys into namespace %q", ns)
		return to
	case len(apps) > 1:
		var best *appOut
		for _, a := range apps {
			if name != "" && strings.HasPrefix(name, a.app.name) && (best == nil || len(a.app.name) > len(best.app.name)) {
				best = a
			}
		}
		if best == nil {
			var names []string
			for _, a := range apps {
				names = append(names, "app."+a.name)
			}
			to.note = fmt.Sprintf("no app holds it, and %s all deploy into namespace %q", strings.Join(names, ", "), ns)
			return to
		}
		apps = []*appOut{best}
	}
	to.provider, to.conf = apps[0], medium
	to.how = fmt.Sprintf("no manifest in the tree holds it; app.%s deploys into namespace %q", apps[0].name, ns)
	return to
}

// objectKeys lists the indexed objects in a stable order.
func (p *providers) objectKeys() []objKey {
	if p.keys == nil {
		p.keys = make([]objKey, 0, len(p.objects))
		for k := range p.objects {
			p.keys = append(p.keys, k)
		}
		slices.SortFunc(p.keys, func(a, b objKey) int {
			return cmp.Or(strings.Compare(a.kind, b.kind), strings.Compare(a.ns, b.ns), strings.Compare(a.name, b.name))
		})
	}
	return p.keys
}

func (p *providers) kind(resource string) string {
	r := strings.ToLower(resource)
	if k, ok := p.resources[r]; ok {
		return k
	}
	if name, _, ok := strings.Cut(r, "."); ok {
		if k, ok := p.resources[name]; ok {
			return k
		}
	}
	return resource
}

// parseSelector reads an equality-based label selector (a=b,c=d).
func parseSelector(s string) map[string]string {
	if s == "" {
		return nil
	}
	out := map[string]string{}
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(part, "=")
		if !ok || strings.ContainsAny(k, "!<>") {
			return nil
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(strings.TrimPrefix(v, "="))
	}
	return out
}

func labelsMatch(o *manifest.Object, sel map[string]string) bool {
	for _, path := range [][]string{{"metadata", "labels"}, {"spec", "template", "metadata", "labels"}} {
		labels := manifest.Lookup(o.Node, path...)
		ok := labels != nil
		for k, v := range sel {
			if manifest.Str(manifest.Lookup(labels, k)) != v {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func sortedKeys[K comparable, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b K) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	return keys
}

// crdEdge adds an edge from an app that creates a custom resource to the
// app whose manifests define its CRD.
func (im *importer) crdEdge(a *appOut, o *manifest.Object, seen map[string]bool) {
	group, _, _ := strings.Cut(o.APIVersion, "/")
	if !strings.Contains(o.APIVersion, "/") {
		return
	}
	gk := group + "/" + o.Kind
	defs := im.prov.kinds[gk]
	if len(defs) == 0 || seen[gk] {
		return
	}
	seen[gk] = true
	for _, d := range defs {
		if d.app == a {
			return // the app brings its own CRD
		}
	}
	d := defs[0]
	r := im.loc(o.File.Range(o.Node))
	if k, v := manifest.Entry(o.Node, "kind"); k != nil {
		r = im.loc(o.File.Span(k, v))
	}
	im.addEdge(node{app: a}, node{app: d.app}, evidence{kind: kindCRD, confidence: high, at: r,
		text: fmt.Sprintf("creates %s %q; app.%s defines its CRD %s, %s", o.Kind, o.Name, d.app.name, d.name, at(im.loc(d.obj.File.Range(d.obj.Node))))})
}

// nodesOf are the nodes an Application became: its app, its stack, or
// for an app-of-apps of app-of-apps, those of its children.
func nodesOf(a *application) []node {
	switch {
	case a.out != nil:
		return []node{{app: a.out}}
	case a.stack != nil:
		return []node{{stack: a.stack}}
	}
	var out []node
	for _, c := range a.children {
		out = append(out, nodesOf(c)...)
	}
	return out
}

// waves turns the sync waves of siblings (the children of one
// app-of-apps) into candidate edges: each child depends on the siblings
// of the nearest lower wave. Waves are a total order, not dependencies,
// so these edges are marked for review.
func (im *importer) waves() {
	for _, p := range im.apps {
		kids := slices.Clone(p.children)
		if len(kids) < 2 {
			continue
		}
		slices.SortStableFunc(kids, func(x, y *application) int { return cmp.Compare(x.wave, y.wave) })
		for _, c := range kids {
			lower, found := 0, false
			for _, d := range kids {
				if d.wave < c.wave && (!found || d.wave > lower) {
					lower, found = d.wave, true
				}
			}
			if !found {
				continue
			}
			r := im.nameRange(c)
			wave := "no sync wave (0)"
			if c.waveAnn != nil {
				r = im.loc(c.obj.File.Span(c.waveAnn.Key, c.waveAnn.Value))
				wave = fmt.Sprintf("sync wave %q", c.waveAnn.Value.Value)
			}
			for _, d := range kids {
				if d.wave != lower {
					continue
				}
				ev := evidence{kind: kindWave, confidence: low, at: r,
					text: fmt.Sprintf("%s of Application %q comes after wave %d", wave, c.name, d.wave),
					item: fmt.Sprintf("%q, %s", d.name, at(im.nameRange(d)))}
				for _, from := range nodesOf(c) {
					for _, to := range nodesOf(d) {
						im.addEdge(from, to, ev)
					}
				}
			}
		}
	}
}

// addEdge records evidence that from depends on to.
func (im *importer) addEdge(from, to node, ev evidence) {
	if !from.valid() || !to.valid() || from == to {
		return
	}
	key := from.String() + " " + to.String()
	e, ok := im.edgeByKey[key]
	if !ok {
		e = &edge{from: from, to: to, seq: len(im.edges)}
		im.edgeByKey[key] = e
		im.edges = append(im.edges, e)
	}
	for _, x := range e.evidence {
		if x.at == ev.at && x.text == ev.text {
			return
		}
	}
	e.evidence = append(e.evidence, ev)
}

// waitsOf is detect.Waits in the object's own namespace, for tests.
func waitsOf(o *manifest.Object) []detect.Wait { return detect.Waits(o, o.Namespace) }
