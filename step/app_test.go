package step

import "testing"

// TestConverged is the idempotence rule the step and the executor share:
// an app is skipped only when its step would read it once and exit 0.
func TestConverged(t *testing.T) {
	auto := SyncInput{App: "web", ExpectRevision: "1.2.3", AutoSync: true, SelfHeal: true, Prune: false}
	disabled := withAutomated(state("Synced", "Healthy", "1.2.3", "Succeeded", false), true, false)
	off := false
	disabled.Spec.SyncPolicy.Automated.Enabled = &off
	for _, c := range []struct {
		name              string
		app               Application
		in                SyncInput
		settled, converge bool
	}{
		{"synced, healthy, at the revision", state("Synced", "Healthy", "1.2.3", "Succeeded", false), input, true, true},
		{"never synced by an operation", state("Synced", "Healthy", "1.2.3", "", false), input, true, true},
		{"no expected revision: any", state("Synced", "Healthy", "0.9", "Succeeded", false), SyncInput{App: "web"}, true, true},
		{"another revision", state("Synced", "Healthy", "1.2.2", "Succeeded", false), input, false, false},
		{"out of sync", state("OutOfSync", "Healthy", "1.2.3", "Succeeded", false), input, false, false},
		{"progressing", state("Synced", "Progressing", "1.2.3", "Succeeded", false), input, false, false},
		{"degraded", state("Synced", "Degraded", "1.2.3", "Succeeded", false), input, false, false},
		{"last operation failed", state("Synced", "Healthy", "1.2.3", "Failed", false), input, false, false},
		{"last operation errored", state("Synced", "Healthy", "1.2.3", "Error", false), input, false, false},
		{"operation requested", state("Synced", "Healthy", "1.2.3", "Succeeded", true), input, false, false},
		{"operation running", state("Synced", "Healthy", "1.2.3", "Running", false), input, false, false},
		{"operation terminating", state("Synced", "Healthy", "1.2.3", "Terminating", false), input, false, false},
		{"wants automated sync, has none", state("Synced", "Healthy", "1.2.3", "Succeeded", false), auto, true, false},
		{"wants automated sync, has it", withAutomated(state("Synced", "Healthy", "1.2.3", "Succeeded", false), true, false), auto, true, true},
		{"wants automated sync, other prune", withAutomated(state("Synced", "Healthy", "1.2.3", "Succeeded", false), true, true), auto, true, false},
		{"wants automated sync, other self-heal", withAutomated(state("Synced", "Healthy", "1.2.3", "Succeeded", false), false, false), auto, true, false},
		{"wants automated sync, switched off", disabled, auto, true, false},
		{"does not ask for automated sync, has it", withAutomated(state("Synced", "Healthy", "1.2.3", "Succeeded", false), true, true), input, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.app.Settled(c.in); got != c.settled {
				t.Errorf("Settled = %t, want %t", got, c.settled)
			}
			if got := c.app.Converged(c.in); got != c.converge {
				t.Errorf("Converged = %t, want %t", got, c.converge)
			}
		})
	}
}
