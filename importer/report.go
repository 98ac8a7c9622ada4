package importer

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/platc/platc/internal/english"
	"github.com/platc/platc/report"
)

// Report is what an import did, for people (WriteText) and tools
// (WriteJSON). Lists are in output order; locations are "file:line".
type Report struct {
	Platform string   `json:"platform"`
	Roots    []string `json:"roots"`
	// Counts sums up the import.
	Counts Counts `json:"counts"`
	// Stacks are the app-of-apps that became stacks.
	Stacks []ReportStack `json:"stacks"`
	// Replaced are the app-of-apps Applications platc's own root
	// Application and stacks take the place of.
	Replaced []ReportObject `json:"replaced_app_of_apps"`
	// ApplicationSets are the sets whose Applications became apps.
	ApplicationSets []ReportSet `json:"application_sets"`
	// Hooks are the hooks and waiting Jobs, and what to do with each.
	Hooks []ReportHook `json:"hooks"`
	// Waves are the sync-wave annotations on Applications to remove.
	Waves []ReportWave `json:"sync_waves"`
	// Edges are the inferred dependencies, with evidence.
	Edges []ReportEdge `json:"edges"`
	// Cycles are the cycles in the evidence and how each was broken.
	Cycles []ReportCycle `json:"cycles"`
	// Unresolved are waits for which no providing app was found.
	Unresolved []ReportUnresolved `json:"unresolved_waits"`
	// NoDependencies lists the apps that depend on nothing.
	NoDependencies []string `json:"apps_without_dependencies"`
	// Adopted are the apps kept as existing Applications.
	Adopted []ReportAdopted `json:"adopted"`
	// Dropped are fields of imported Applications the generated ones
	// do not carry, and why.
	Dropped []ReportDropped `json:"dropped_fields"`
	// Unknown are apps whose manifests are not in the tree, so nothing
	// was inferred from their contents.
	Unknown []ReportUnknown `json:"contents_unknown"`
	// Lint is what platc lint says about the imported platform.
	Lint []ReportLint `json:"lint"`
}

// Counts sums up an import.
type Counts struct {
	Applications int `json:"applications"`
	Apps         int `json:"apps"`
	Stacks       int `json:"stacks"`
	Adopted      int `json:"adopted"`
	Edges        int `json:"edges"`
	Review       int `json:"edges_to_review"`
	Disabled     int `json:"edges_commented_out"`
	Implied      int `json:"edges_implied"`
	HooksDelete  int `json:"hooks_to_delete"`
	Waves        int `json:"sync_waves"`
}

// ReportStack is an app-of-apps that became a stack, and its apps.
type ReportStack struct {
	Name        string   `json:"name"`
	Application string   `json:"application"`
	At          string   `json:"at"`
	Apps        []string `json:"apps"`
}

// ReportObject is an app-of-apps Application platc's structure replaces.
type ReportObject struct {
	Object string `json:"object"`
	At     string `json:"at"`
	// Also lists other objects the app-of-apps deploys, which nothing
	// deploys once it is gone.
	Also []string `json:"also_deploys,omitempty"`
}

// ReportSet is an ApplicationSet and the apps its Applications became.
type ReportSet struct {
	Name string   `json:"name"`
	At   string   `json:"at"`
	Apps []string `json:"apps"`
}

// ReportHook is a hook or waiting Job and what to do with it.
type ReportHook struct {
	Object string `json:"object"`
	At     string `json:"at"`
	Owner  string `json:"owner,omitempty"`
	// Action is delete (it only waits: delete the object), declare (its
	// own work stays, declared in a hook block; delete its waits),
	// delete-wait (a Job that also does other work: delete its waits),
	// or review (a hook whose purpose could not be told).
	Action  string       `json:"action"`
	Purpose string       `json:"purpose,omitempty"`
	Why     string       `json:"why"`
	Waits   []ReportWait `json:"waits,omitempty"`
}

// ReportWait is one wait of a hook or Job, and what it waits for.
type ReportWait struct {
	At      string         `json:"at"`
	Text    string         `json:"text"`
	Targets []ReportTarget `json:"targets"`
}

// ReportTarget is one thing a wait names, and the app that provides it
// (Provider) or why none was found (Note).
type ReportTarget struct {
	What     string `json:"what"`
	Provider string `json:"provider,omitempty"`
	How      string `json:"how,omitempty"`
	Note     string `json:"note,omitempty"`
}

// ReportWave is a sync-wave annotation on an Application to remove.
type ReportWave struct {
	Object string `json:"object"`
	At     string `json:"at"`
	Wave   string `json:"wave"`
}

// ReportEdge is an inferred dependency: From depends on To.
type ReportEdge struct {
	From       string           `json:"from"`
	To         string           `json:"to"`
	Kind       string           `json:"kind"`
	Confidence string           `json:"confidence"`
	Review     bool             `json:"review"`
	Disabled   bool             `json:"commented_out"`
	ImpliedBy  string           `json:"implied_by,omitempty"`
	Evidence   []ReportEvidence `json:"evidence"`
}

// ReportEvidence is one observation behind an edge.
type ReportEvidence struct {
	Kind       string `json:"kind"`
	Confidence string `json:"confidence"`
	At         string `json:"at"`
	Text       string `json:"text"`
}

// ReportCycle is a cycle in the evidence and the edge commented out to
// break it.
type ReportCycle struct {
	Hops   []ReportHop `json:"hops"`
	Broken string      `json:"commented_out"`
}

// ReportHop is one step of a cycle and the edges that give it.
type ReportHop struct {
	From string       `json:"from"`
	To   string       `json:"to"`
	Via  []ReportEdge `json:"via"`
}

// ReportUnresolved is a wait for which no providing app was found.
type ReportUnresolved struct {
	Object string `json:"object"`
	At     string `json:"at"`
	Owner  string `json:"owner,omitempty"`
	What   string `json:"what"`
	Note   string `json:"note"`
}

// ReportAdopted is an app kept as its existing Application, and why.
type ReportAdopted struct {
	App     string   `json:"app"`
	At      string   `json:"at"`
	Reasons []string `json:"reasons"`
	File    string   `json:"file"`
}

// ReportDropped is a field the generated Application does not carry.
type ReportDropped struct {
	App   string `json:"app"`
	Field string `json:"field"`
	At    string `json:"at"`
	Why   string `json:"why"`
}

// ReportUnknown is an app whose manifests are not in the tree.
type ReportUnknown struct {
	App string `json:"app"`
	Why string `json:"why"`
}

// ReportLint is a finding of platc lint on the imported platform, and
// why it is there.
type ReportLint struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	At       string `json:"at"`
	Message  string `json:"message"`
	Why      string `json:"explanation"`
}

// WriteJSON writes the report as one indented JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// WriteText writes the report for people: one section per list, each
// saying what to do.
func (r *Report) WriteText(w io.Writer) error {
	t := &textReport{}
	r.textSummary(t)
	r.textStructure(t)
	r.textHooks(t)
	r.textEdges(t)
	r.textApps(t)
	_, err := io.WriteString(w, t.b.String())
	return err
}

// textReport is the text of a report being written.
type textReport struct{ b strings.Builder }

// p writes one formatted piece. The format is platc's own; every string
// argument may come from a file name or a file, so it is escaped for
// one line of a terminal (an ESC in a directory name reached the
// terminal, a line break forged report lines).
func (t *textReport) p(format string, args ...any) {
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = report.Inline(s)
		}
	}
	fmt.Fprintf(&t.b, format, args...)
}

// section starts a section titled title when it has n > 0 entries.
func (t *textReport) section(title string, n int) bool {
	if n == 0 {
		return false
	}
	t.p("\n%s\n", title)
	return true
}

// textSummary writes the counts.
func (r *Report) textSummary(t *textReport) {
	c := r.Counts
	t.p("platc import: %s in %s from %s (%s)\n", n(c.Apps, "app"), n(c.Stacks, "stack"), n(c.Applications, "Application"), strings.Join(r.Roots, ", "))
	t.p("  %s inferred: %d to review (waves only), %d commented out to break cycles, %d already implied by others\n",
		n(c.Edges, "dependency"), c.Review, c.Disabled, c.Implied)
	t.p("  %s to delete or trim, %s to remove, %s adopted as %s\n", n(c.HooksDelete, "hook or Job"), n(c.Waves, "sync wave"), n(c.Adopted, "app"), english.Agree(c.Adopted, "it is", "they are"))
}

// textStructure writes the stacks, the app-of-apps replaced and the
// ApplicationSets expanded.
func (r *Report) textStructure(t *textReport) {
	if t.section("Stacks, from the app-of-apps hierarchy:", len(r.Stacks)) {
		for _, s := range r.Stacks {
			t.p("  stack.%s  Application %q  %s  (%d apps)\n", s.Name, s.Application, s.At, len(s.Apps))
		}
	}
	if t.section("App-of-apps Applications platc's root Application and stacks replace (delete them once the platform is deployed by platc):", len(r.Replaced)) {
		for _, o := range r.Replaced {
			t.p("  %s  %s\n", o.At, o.Object)
			for _, a := range o.Also {
				t.p("      also deploys %s: move it into an app, or nothing will deploy it\n", a)
			}
		}
	}
	expanded := 0
	for _, s := range r.ApplicationSets {
		if len(s.Apps) > 0 {
			expanded++
		}
	}
	if t.section("ApplicationSets whose Applications became apps (delete them; platc generates the Applications):", expanded) {
		for _, s := range r.ApplicationSets {
			if len(s.Apps) > 0 {
				t.p("  %s  ApplicationSet %q: %s\n", s.At, s.Name, strings.Join(s.Apps, ", "))
			}
		}
	}
}

// textHooks writes each hook and Job with its waits.
func (r *Report) textHooks(t *textReport) {
	if t.section("Hooks and Jobs (INV-8: hooks may only do an app's own work; the dependencies replace the waits):", len(r.Hooks)) {
		for _, h := range r.Hooks {
			owner := ""
			if h.Owner != "" {
				owner = " of " + h.Owner
			}
			t.p("  %s  %s%s: %s\n", h.At, h.Object, owner, h.Why)
			for _, wt := range h.Waits {
				var to []string
				for _, t := range wt.Targets {
					if t.Provider != "" {
						to = append(to, t.What+" → "+t.Provider)
					} else {
						to = append(to, t.What+" → ? ("+t.Note+")")
					}
				}
				if len(to) == 0 {
					to = []string{"nothing the import could name"}
				}
				t.p("      %s  %s: %s\n", wt.At, wt.Text, strings.Join(to, "; "))
			}
		}
	}
}

// textEdges writes the waves, the edges with their evidence, the cycles
// and the implied edges.
func (r *Report) textEdges(t *textReport) {
	if t.section("Sync waves on Applications to remove (RFC 5.4: waves order resources inside an app, not apps):", len(r.Waves)) {
		for _, wv := range r.Waves {
			t.p("  %s  %s  wave %q\n", wv.At, wv.Object, wv.Wave)
		}
	}
	if t.section("Inferred dependencies, with their evidence:", len(r.Edges)) {
		for _, e := range r.Edges {
			tag := e.Kind + ", " + e.Confidence + " confidence"
			if e.Review {
				tag = "inferred from waves — review"
			}
			if e.Disabled {
				tag += "; commented out to break a cycle"
			}
			t.p("  %s → %s  (%s)\n", e.From, e.To, tag)
			for _, ev := range e.Evidence {
				t.p("      %s  %s\n", ev.At, ev.Text)
			}
		}
	}
	if t.section("Cycles in the evidence (each broken by commenting out its weakest edge):", len(r.Cycles)) {
		for _, cy := range r.Cycles {
			var names []string
			for _, h := range cy.Hops {
				names = append(names, h.From)
			}
			names = append(names, cy.Hops[0].From)
			t.p("  %s\n", strings.Join(names, " → "))
			for _, h := range cy.Hops {
				for _, e := range h.Via {
					t.p("      %s depends on %s through %s → %s (%s)", h.From, h.To, e.From, e.To, e.Kind)
					if len(e.Evidence) > 0 {
						t.p(": %s %s", e.Evidence[0].At, e.Evidence[0].Text)
					}
					t.p("\n")
				}
			}
			t.p("    commented out: %s\n", cy.Broken)
		}
	}
	implied := 0
	for _, e := range r.Edges {
		if e.ImpliedBy != "" {
			implied++
		}
	}
	if t.section("Dependencies other dependencies already imply (drop them, or keep them on purpose):", implied) {
		for _, e := range r.Edges {
			if e.ImpliedBy != "" {
				t.p("  %s → %s  implied: %s\n", e.From, e.To, e.ImpliedBy)
			}
		}
	}
}

// textApps writes unresolved waits, apps without dependencies or known
// contents, adopted apps, dropped fields and lint's findings.
func (r *Report) textApps(t *textReport) {
	if t.section("Waits no providing app was found for (add the dependency by hand):", len(r.Unresolved)) {
		for _, u := range r.Unresolved {
			t.p("  %s  %s waits for %s: %s\n", u.At, u.Object, u.What, u.Note)
		}
	}
	if t.section("Apps with no inferred dependency (check that they need none):", len(r.NoDependencies)) {
		t.p("  %s\n", strings.Join(r.NoDependencies, ", "))
	}
	if t.section("Apps whose manifests are not in the tree (nothing was inferred from what they deploy):", len(r.Unknown)) {
		for _, u := range r.Unknown {
			t.p("  %s: %s\n", u.App, u.Why)
		}
	}
	if t.section("Apps adopted as they are (platc syncs the existing Application but cannot generate it):", len(r.Adopted)) {
		for _, a := range r.Adopted {
			t.p("  %s  %s: %s; keep applying %s\n", a.At, a.App, strings.Join(a.Reasons, "; "), a.File)
		}
	}
	if t.section("Fields the generated Applications do not carry:", len(r.Dropped)) {
		for _, d := range r.Dropped {
			t.p("  %s  %s %s: %s\n", d.At, d.App, d.Field, d.Why)
		}
	}
	if t.section("What platc lint says about the imported platform, and why:", len(r.Lint)) {
		for _, l := range r.Lint {
			t.p("  %s  %s %s: %s\n      %s\n", l.At, l.Severity, l.Rule, l.Message, l.Why)
		}
	}
}

// n counts things in English: "1 app", "2 apps", "1 dependency".
func n(count int, thing string) string {
	if count == 1 {
		return fmt.Sprintf("%d %s", count, thing)
	}
	switch {
	case strings.HasSuffix(thing, "y"):
		thing = strings.TrimSuffix(thing, "y") + "ies"
	case strings.HasSuffix(thing, "Job"):
		thing = "hooks and Jobs"
	default:
		thing += "s"
	}
	return fmt.Sprintf("%d %s", count, thing)
}
