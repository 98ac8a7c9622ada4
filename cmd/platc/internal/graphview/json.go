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
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
