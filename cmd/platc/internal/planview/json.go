package planview

import (
	"encoding/json"
	"io"
)

type planJSON struct {
	Platform     string     `json:"platform"`
	Environment  string     `json:"environment"`
	Apps         int        `json:"apps"`
	Stacks       int        `json:"stacks"`
	Dependencies int        `json:"dependencies"`
	Waves        [][]string `json:"waves"`
	// AppDetails is every app in deploy order with what the plan is
	// computed from: its class, timeouts, retries, expected duration and
	// scheduled start and finish.
	AppDetails   []planAppJSON  `json:"app_details"`
	CriticalPath []planStepJSON `json:"critical_path"`
	// EstimatedSeconds is the makespan of the deploy DAG.
	EstimatedSeconds float64 `json:"estimated_seconds"`
	// DeployDAG is how the DAG fits the orchestrator's limits (nested
	// beyond 200 apps in Argo).
	DeployDAG *deployDAGJSON `json:"deploy_dag"`
	// Deadlines are the workflows' activeDeadlineSeconds; absent when
	// the workflows cannot be built.
	Deadlines *deadlinesJSON `json:"deadlines,omitempty"`
	// Workflows is how deploy, teardown and validate are laid out within
	// the node budget; absent when the workflows cannot be built.
	Workflows *workflowsJSON `json:"workflows,omitempty"`
	// GroupRoots are the group roots of a platform of more Applications
	// than one root holds; absent when the root holds them all.
	GroupRoots []rootJSON `json:"group_roots,omitempty"`
	// Simulation is there with --simulate.
	Simulation *simulationJSON `json:"simulation,omitempty"`
}

type rootJSON struct {
	Name string   `json:"name"`
	Apps []string `json:"apps"`
}

type planAppJSON struct {
	Name  string `json:"name"`
	Stack string `json:"stack,omitempty"`
	// Class is the resolved class, "" when the app has none.
	Class     string   `json:"class"`
	Wave      int      `json:"wave"`
	DependsOn []string `json:"depends_on"`
	// WaitsFor are the resources of other apps the app waits for (RFC
	// 5.1 resource nodes), each a wait step of the deploy.
	WaitsFor []planWaitJSON `json:"waits_for,omitempty"`
	// SyncTimeoutSeconds and HealthTimeoutSeconds bound the deploy step.
	SyncTimeoutSeconds      float64 `json:"sync_timeout_seconds"`
	HealthTimeoutSeconds    float64 `json:"health_timeout_seconds"`
	ExpectedDurationSeconds float64 `json:"expected_duration_seconds"`
	Retries                 int     `json:"retries"`
	StartSeconds            float64 `json:"start_seconds"`
	FinishSeconds           float64 `json:"finish_seconds"`
	Critical                bool    `json:"critical"`
}

type planWaitJSON struct {
	// Resource is the reference, app.APP.resource.NAME.
	Resource  string `json:"resource"`
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	// Wait is "healthy" or "exists", as the compiler decided for the kind.
	Wait           string  `json:"wait"`
	TimeoutSeconds float64 `json:"timeout_seconds"`
}

type deadlinesJSON struct {
	DeploySeconds   float64 `json:"deploy_seconds"`
	TeardownSeconds float64 `json:"teardown_seconds"`
	// Fixed: platform.workflows.timeout sets them, not the derivation.
	Fixed bool `json:"fixed"`
}

type workflowsJSON struct {
	NodeBudget int `json:"node_budget"`
	// Largest is the largest object emitted ("Kind name") and its size.
	LargestObject      string         `json:"largest_object"`
	LargestObjectBytes int            `json:"largest_object_bytes"`
	Layouts            []workflowJSON `json:"layouts"`
}

type workflowJSON struct {
	Name string `json:"name"`
	// Workflows is 1, or 1 plus the children of a split workflow.
	Workflows int `json:"workflows"`
	// Nodes are the parent's own (or the single workflow's).
	Nodes    int         `json:"nodes"`
	Children []childJSON `json:"children"`
}

type childJSON struct {
	Name  string   `json:"name"`
	Apps  []string `json:"apps"`
	Nodes int      `json:"nodes"`
	Waits []string `json:"waits"`
}

type planStepJSON struct {
	App           string  `json:"app"`
	StartSeconds  float64 `json:"start_seconds"`
	FinishSeconds float64 `json:"finish_seconds"`
}

// deployDAGJSON is how the deploy DAG is laid out within the limits and
// what that costs.
type deployDAGJSON struct {
	Nested   bool   `json:"nested"`
	Groups   int    `json:"groups"`
	Strategy string `json:"strategy"`
	// EstimatedSeconds is the makespan of the DAG as emitted; with groups
	// it can exceed the plan's estimated_seconds (the flat DAG).
	EstimatedSeconds float64 `json:"estimated_seconds"`
	Error            string  `json:"error,omitempty"`
}

type simulationJSON struct {
	Parallelism int `json:"parallelism"`
	// EnoughParallelism is the least parallelism at which the deploy DAG
	// takes its unlimited makespan (absent when the grouping failed).
	EnoughParallelism int `json:"enough_parallelism,omitempty"`
	// CriticalPathSeconds is the length of the critical path: the flat
	// DAG with any parallelism, and a lower bound for every model.
	CriticalPathSeconds float64     `json:"critical_path_seconds"`
	Models              []modelJSON `json:"models"`
	Error               string      `json:"error,omitempty"`
}

type modelJSON struct {
	// Model is "dag", "waves" or "serial".
	Model string `json:"model"`
	// Groups is the deploy DAG's number of groups (1 when flat); Waves the
	// number of waves of the wave model.
	Groups int `json:"groups,omitempty"`
	Waves  int `json:"waves,omitempty"`
	// ChildWorkflows is, for a deploy split within the node budget, its
	// number of child workflows; the dag model is then that split.
	ChildWorkflows int `json:"child_workflows,omitempty"`
	// UnlimitedSeconds is the makespan with any number of apps at once,
	// ParallelismSeconds with the workflow's parallelism.
	UnlimitedSeconds   float64 `json:"unlimited_seconds"`
	ParallelismSeconds float64 `json:"parallelism_seconds"`
}

// WriteJSON writes the plan as one indented JSON object.
func (v *View) WriteJSON(w io.Writer) error {
	p, s := v.Program, v.Schedule
	out := planJSON{
		Platform: p.Platform.Name, Environment: p.Env.Name,
		Apps: len(p.Apps), Stacks: len(p.Stacks), Dependencies: p.EdgeCount(),
		Waves: make([][]string, len(p.Waves)), CriticalPath: []planStepJSON{},
		EstimatedSeconds: s.Makespan.Seconds(),
		DeployDAG:        v.deployDAG(),
		Simulation:       v.simulationJSON(),
	}
	if d := v.Deadlines; d != nil {
		out.Deadlines = &deadlinesJSON{DeploySeconds: d.Deploy.Seconds(), TeardownSeconds: d.Teardown.Seconds(), Fixed: d.Fixed}
	}
	if wf := v.Workflows; wf != nil {
		out.Workflows = &workflowsJSON{NodeBudget: wf.Budget, LargestObject: wf.Largest, LargestObjectBytes: wf.LargestBytes, Layouts: []workflowJSON{}}
		for _, l := range wf.Layouts {
			lj := workflowJSON{Name: l.Name, Workflows: 1 + len(l.Children), Nodes: l.Nodes, Children: []childJSON{}}
			for _, c := range l.Children {
				lj.Children = append(lj.Children, childJSON{Name: c.Name, Apps: c.Apps, Nodes: c.Nodes, Waits: append([]string{}, c.Waits...)})
			}
			out.Workflows.Layouts = append(out.Workflows.Layouts, lj)
		}
	}
	for _, r := range v.Roots {
		out.GroupRoots = append(out.GroupRoots, rootJSON(r))
	}
	for i, wave := range p.Waves {
		for _, a := range wave {
			out.Waves[i] = append(out.Waves[i], a.Name)
		}
	}
	critical := map[string]bool{}
	for _, st := range s.CriticalPath {
		critical[st.App.Name] = true
		out.CriticalPath = append(out.CriticalPath, planStepJSON{App: st.App.Name, StartSeconds: st.Start.Seconds(), FinishSeconds: st.Finish.Seconds()})
	}
	out.AppDetails = make([]planAppJSON, 0, len(p.Apps))
	for _, a := range p.Apps {
		d := planAppJSON{
			Name: a.Name, Class: a.Class, Wave: a.Wave, DependsOn: make([]string, 0, len(a.Deps)),
			SyncTimeoutSeconds:      a.Timeouts.Sync.Seconds(),
			HealthTimeoutSeconds:    a.Timeouts.Health.Seconds(),
			ExpectedDurationSeconds: a.ExpectedDuration.Seconds(),
			Retries:                 a.Retry.Limit,
			StartSeconds:            s.Start[a.Index].Seconds(),
			FinishSeconds:           s.Finish[a.Index].Seconds(),
			Critical:                critical[a.Name],
		}
		if a.Stack != nil {
			d.Stack = a.Stack.Name
		}
		for _, dep := range a.Deps {
			d.DependsOn = append(d.DependsOn, dep.App.Name)
		}
		for _, rd := range a.ResourceDeps {
			r := rd.Resource
			d.WaitsFor = append(d.WaitsFor, planWaitJSON{Resource: r.Ref(), Kind: r.KindKey(), Name: r.ResourceName,
				Namespace: r.Namespace, Wait: string(r.Wait), TimeoutSeconds: r.Timeout.Seconds()})
		}
		out.AppDetails = append(out.AppDetails, d)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	// Detail text quotes HCL and shell; "<" stays "<" for readers of the
	// JSON, which is not embedded in HTML.
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

func (v *View) deployDAG() *deployDAGJSON {
	if v.GroupingErr != nil {
		return &deployDAGJSON{Error: v.GroupingErr.Error()}
	}
	gr := v.Grouping
	return &deployDAGJSON{Nested: gr.Nested(), Groups: len(gr.Groups), Strategy: gr.Strategy, EstimatedSeconds: gr.Makespan.Seconds()}
}

func (v *View) simulationJSON() *simulationJSON {
	if v.Simulation == nil {
		return nil
	}
	s := *v.Simulation
	out := &simulationJSON{Parallelism: s.Parallelism, CriticalPathSeconds: s.Schedule.Makespan.Seconds()}
	if v.GroupingErr != nil {
		out.Error = v.GroupingErr.Error()
	} else {
		out.EnoughParallelism = s.Enough
		out.Models = append(out.Models, modelJSON{Model: "dag", Groups: s.Groups, ChildWorkflows: v.SplitDeploy, UnlimitedSeconds: s.DAG.Unlimited.Seconds(), ParallelismSeconds: s.DAG.Limited.Seconds()})
	}
	out.Models = append(out.Models,
		modelJSON{Model: "waves", Waves: len(v.Program.Waves), UnlimitedSeconds: s.Waves.Unlimited.Seconds(), ParallelismSeconds: s.Waves.Limited.Seconds()},
		modelJSON{Model: "serial", UnlimitedSeconds: s.Serial.Unlimited.Seconds(), ParallelismSeconds: s.Serial.Limited.Seconds()},
	)
	return out
}
