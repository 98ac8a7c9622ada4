package graphview

import (
	"encoding/json"
	"io"

	"github.com/platc/platc/plan"
)

type graphJSON struct {
	Platform string           `json:"platform"`
	Apps     []graphAppJSON   `json:"apps"`
	Stacks   []graphStackJSON `json:"stacks"`
	// Edges is every app dependency, whatever --by and --all-edges say.
	Edges []graphEdgeJSON `json:"edges"`
	// CriticalPath is the chain of apps that sets the deploy's duration.
	CriticalPath []string `json:"critical_path"`
	// StackEdges is the stack-level graph (--by stack draws it).
	StackEdges []graphEdgeJSON `json:"stack_edges"`
	// Resources are the resource nodes apps wait for (RFC 5.1), each a
	// wait step between its app and the apps listed.
	Resources []graphResourceJSON `json:"resources,omitempty"`
}

type graphResourceJSON struct {
	// Resource is the reference, app.APP.resource.NAME; Task the wait
	// step's task in the deploy DAG.
	Resource  string   `json:"resource"`
	Task      string   `json:"task"`
	App       string   `json:"app"`
	Kind      string   `json:"kind"`
	Name      string   `json:"name"`
	Namespace string   `json:"namespace,omitempty"`
	Wait      string   `json:"wait"`
	WaitedBy  []string `json:"waited_by"`
}

type graphAppJSON struct {
	Name      string   `json:"name"`
	Stack     string   `json:"stack,omitempty"`
	Wave      int      `json:"wave"`
	DependsOn []string `json:"depends_on"`
}

type graphStackJSON struct {
	Name      string   `json:"name"`
	Apps      []string `json:"apps"`
	DependsOn []string `json:"depends_on"`
}

// graphEdgeJSON is one edge, from the dependency to the dependent.
type graphEdgeJSON struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Implied marks an app dependency that others already imply, left
	// out of the default drawing.
	Implied bool `json:"implied,omitempty"`
	// Critical marks a hop of the critical path.
	Critical bool `json:"critical,omitempty"`
}

func (d *Drawing) JSON(w io.Writer) error {
	p := d.p
	out := graphJSON{Platform: p.Platform.Name, Apps: []graphAppJSON{}, Stacks: []graphStackJSON{}, Edges: []graphEdgeJSON{}, CriticalPath: []string{}, StackEdges: []graphEdgeJSON{}}
	kept := map[plan.Edge]bool{}
	for _, e := range plan.Reduce(p) {
		kept[e] = true
	}
	critical := map[plan.Edge]bool{}
	for _, e := range d.sched.CriticalEdges() {
		critical[e] = true
	}
	for _, a := range p.Apps {
		ga := graphAppJSON{Name: a.Name, Wave: a.Wave, DependsOn: []string{}}
		if a.Stack != nil {
			ga.Stack = a.Stack.Name
		}
		for _, dep := range a.Deps {
			e := plan.Edge{From: dep.App.Index, To: a.Index}
			ga.DependsOn = append(ga.DependsOn, dep.App.Name)
			out.Edges = append(out.Edges, graphEdgeJSON{From: dep.App.Name, To: a.Name, Implied: !kept[e], Critical: critical[e]})
		}
		out.Apps = append(out.Apps, ga)
	}
	for _, s := range p.Stacks {
		gs := graphStackJSON{Name: s.Name, Apps: []string{}, DependsOn: []string{}}
		for _, a := range s.Apps {
			gs.Apps = append(gs.Apps, a.Name)
		}
		for _, dep := range s.DependsOn {
			gs.DependsOn = append(gs.DependsOn, dep.Name)
		}
		out.Stacks = append(out.Stacks, gs)
	}
	for _, st := range d.sched.CriticalPath {
		out.CriticalPath = append(out.CriticalPath, st.App.Name)
	}
	sg := plan.ByStack(p)
	for _, e := range sg.Edges {
		out.StackEdges = append(out.StackEdges, graphEdgeJSON{From: sg.Nodes[e.From].Name(), To: sg.Nodes[e.To].Name()})
	}
	for _, wn := range (&Drawing{p: p}).waits() {
		r := wn.r
		gr := graphResourceJSON{Resource: r.Ref(), Task: r.TaskName(), App: r.App.Name, Kind: r.KindKey(),
			Name: r.ResourceName, Namespace: r.Namespace, Wait: string(r.Wait)}
		for _, a := range wn.dependents {
			gr.WaitedBy = append(gr.WaitedBy, a.Name)
		}
		out.Resources = append(out.Resources, gr)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
