package snapshot

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Change is one difference between a baseline and a later snapshot.
type Change struct {
	// Kind is kubernetes, node, namespace, crd, component or application.
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Change string `json:"change"` // added, removed or changed
	Detail string `json:"detail,omitempty"`
}

// Diff lists what changed from old to new: the Kubernetes version, nodes
// (added, removed, Ready, allocatable, taints), namespaces, CRDs (added,
// removed, versions, owner), the critical components (version,
// readiness) and the platform's Applications (revision, sync, health).
// The order is fixed: by kind in that order, then by name.
func Diff(old, new *Snapshot) []Change {
	var out []Change
	add := func(kind, name, change, format string, args ...any) {
		out = append(out, Change{Kind: kind, Name: name, Change: change, Detail: fmt.Sprintf(format, args...)})
	}
	if old.KubernetesVersion != new.KubernetesVersion {
		add("kubernetes", "version", "changed", "%s → %s", orNone(old.KubernetesVersion), orNone(new.KubernetesVersion))
	}
	diffBy(old.Nodes, new.Nodes, func(n Node) string { return n.Name }, func(name string, a, b *Node) {
		switch {
		case a == nil:
			add("node", name, "added", "%s", readyText(b.Ready))
		case b == nil:
			add("node", name, "removed", "")
		default:
			var d []string
			if a.Ready != b.Ready {
				d = append(d, readyText(a.Ready)+" → "+readyText(b.Ready))
			}
			for _, k := range sortedKeys(a.Allocatable, b.Allocatable) {
				if a.Allocatable[k] != b.Allocatable[k] {
					d = append(d, fmt.Sprintf("allocatable %s %s → %s", k, orNone(a.Allocatable[k]), orNone(b.Allocatable[k])))
				}
			}
			if ta, tb := taintsText(a.Taints), taintsText(b.Taints); ta != tb {
				d = append(d, fmt.Sprintf("taints %s → %s", ta, tb))
			}
			if len(d) > 0 {
				add("node", name, "changed", "%s", strings.Join(d, "; "))
			}
		}
	})
	diffBy(old.Namespaces, new.Namespaces, func(n string) string { return n }, func(name string, a, b *string) {
		switch {
		case a == nil:
			add("namespace", name, "added", "")
		case b == nil:
			add("namespace", name, "removed", "")
		}
	})
	diffBy(old.CRDs, new.CRDs, func(c CRD) string { return c.Name }, func(name string, a, b *CRD) {
		switch {
		case a == nil:
			add("crd", name, "added", "versions %s, %s", strings.Join(b.Versions, ", "), ownerText(b))
		case b == nil:
			add("crd", name, "removed", "")
		default:
			var d []string
			if va, vb := strings.Join(a.Versions, ", "), strings.Join(b.Versions, ", "); va != vb {
				d = append(d, fmt.Sprintf("versions %s → %s", va, vb))
			}
			if oa, ob := ownerText(a), ownerText(b); oa != ob {
				d = append(d, oa+" → "+ob)
			}
			if len(d) > 0 {
				add("crd", name, "changed", "%s", strings.Join(d, "; "))
			}
		}
	})
	diffBy(old.Components, new.Components, func(w Workload) string { return w.Namespace + "/" + w.Component }, func(name string, a, b *Workload) {
		switch {
		case a == nil:
			add("component", name, "added", "%s", workloadText(b))
		case b == nil:
			add("component", name, "removed", "")
		case workloadText(a) != workloadText(b):
			add("component", name, "changed", "%s → %s", workloadText(a), workloadText(b))
		}
	})
	diffBy(old.Applications, new.Applications, func(a Application) string { return a.Name }, func(name string, a, b *Application) {
		switch {
		case a == nil:
			add("application", name, "added", "%s", appText(b))
		case b == nil:
			add("application", name, "removed", "")
		default:
			var d []string
			for _, f := range []struct{ what, a, b string }{{"revision", a.Revision, b.Revision}, {"sync", a.Sync, b.Sync}, {"health", a.Health, b.Health}} {
				if f.a != f.b {
					d = append(d, fmt.Sprintf("%s %s → %s", f.what, orNone(f.a), orNone(f.b)))
				}
			}
			if len(d) > 0 {
				add("application", name, "changed", "%s", strings.Join(d, "; "))
			}
		}
	})
	return out
}

// diffBy calls f for every key of either list, in key order, with the
// element of each (nil where it is absent).
func diffBy[T any](old, new []T, key func(T) string, f func(name string, a, b *T)) {
	om, nm := map[string]*T{}, map[string]*T{}
	for i := range old {
		om[key(old[i])] = &old[i]
	}
	for i := range new {
		nm[key(new[i])] = &new[i]
	}
	keys := slices.Sorted(maps.Keys(om))
	for k := range nm {
		if _, ok := om[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		f(k, om[k], nm[k])
	}
}

func sortedKeys(a, b map[string]string) []string {
	m := maps.Clone(a)
	if m == nil {
		m = map[string]string{}
	}
	maps.Copy(m, b)
	return slices.Sorted(maps.Keys(m))
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func readyText(ok bool) string {
	if ok {
		return "Ready"
	}
	return "not Ready"
}

func taintsText(ts []Taint) string {
	if len(ts) == 0 {
		return "(none)"
	}
	var s []string
	for _, t := range ts {
		v := t.Key
		if t.Value != "" {
			v += "=" + t.Value
		}
		s = append(s, v+":"+t.Effect)
	}
	slices.Sort(s)
	return strings.Join(s, ",")
}

func ownerText(c *CRD) string {
	if c.Owner == OwnerNone || c.OwnedBy == "" {
		return "owner " + c.Owner
	}
	return fmt.Sprintf("owner %s %s", c.Owner, c.OwnedBy)
}

func workloadText(w *Workload) string {
	s := w.Status
	if w.Replicas > 0 || w.Ready > 0 {
		s += fmt.Sprintf(" %d/%d", w.Ready, w.Replicas)
	}
	if w.Version != "" {
		s += " version " + w.Version
	}
	return s
}

func appText(a *Application) string {
	return fmt.Sprintf("revision %s, sync %s, health %s", orNone(a.Revision), orNone(a.Sync), orNone(a.Health))
}

// Text is one line for a change, for people.
func (c Change) Text() string {
	s := fmt.Sprintf("%s %s %s", c.Kind, c.Name, c.Change)
	if c.Detail != "" {
		s += ": " + c.Detail
	}
	return s
}
