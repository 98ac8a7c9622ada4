package step

import "encoding/json"

// Application is the part of an Argo CD Application a step reads.
type Application struct {
	Metadata struct {
		Name            string `json:"name"`
		ResourceVersion string `json:"resourceVersion"`
	} `json:"metadata"`
	Spec struct {
		SyncPolicy *struct {
			Automated *Automated `json:"automated,omitempty"`
		} `json:"syncPolicy,omitempty"`
	} `json:"spec"`
	// Operation is the operation requested and not yet finished; the
	// application controller clears it when the operation ends.
	Operation json.RawMessage `json:"operation,omitempty"`
	Status    struct {
		Sync struct {
			Status   string `json:"status"`
			Revision string `json:"revision"`
		} `json:"sync"`
		Health struct {
			Status  string `json:"status"`
			Message string `json:"message"`
		} `json:"health"`
		OperationState *struct {
			Phase   string `json:"phase"`
			Message string `json:"message"`
		} `json:"operationState,omitempty"`
	} `json:"status"`
}

// Automated is spec.syncPolicy.automated.
type Automated struct {
	// Enabled, when false, switches automated sync off with the rest of
	// the block kept (Argo CD 3.1 and later).
	Enabled  *bool `json:"enabled,omitempty"`
	SelfHeal bool  `json:"selfHeal"`
	Prune    bool  `json:"prune"`
}

// automated is the Application's automated sync policy when it is on.
func (a *Application) automated() *Automated {
	if a.Spec.SyncPolicy == nil || a.Spec.SyncPolicy.Automated == nil {
		return nil
	}
	if e := a.Spec.SyncPolicy.Automated.Enabled; e != nil && !*e {
		return nil
	}
	return a.Spec.SyncPolicy.Automated
}

// phase is the last operation's phase, "" when there was none.
func (a *Application) phase() string {
	if a.Status.OperationState == nil {
		return ""
	}
	return a.Status.OperationState.Phase
}

// operating reports an operation requested or running: a sync now would
// fail with "another operation is already in progress".
func (a *Application) operating() bool {
	p := a.phase()
	return len(a.Operation) > 0 && string(a.Operation) != "null" || p == "Running" || p == "Terminating"
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// The idempotence rule of sync-and-wait (INV-6), decided here once: the
// step applies it, and the executor applies Converged to every
// Application before a deploy, to skip the apps with nothing to do
// without a pod each.

// Settled reports an Application that needs no sync for in: no operation
// requested or running, Synced and Healthy, at in.ExpectRevision when
// that is set, and its last operation did not fail.
func (a *Application) Settled(in SyncInput) bool {
	phase := a.phase()
	return !a.operating() && a.Status.Sync.Status == "Synced" && a.Status.Health.Status == "Healthy" &&
		phase != "Failed" && phase != "Error" &&
		(in.ExpectRevision == "" || a.Status.Sync.Revision == in.ExpectRevision)
}

// autoSyncAsWanted reports automated sync already as in asks: nothing to
// switch on. An app that does not ask for it is left as it is (the step
// never switches it off).
func (a *Application) autoSyncAsWanted(in SyncInput) bool {
	if !in.AutoSync {
		return true
	}
	au := a.automated()
	return au != nil && au.SelfHeal == in.SelfHeal && au.Prune == in.Prune
}

// Converged reports an Application with nothing left for sync-and-wait
// to do for in: Settled, and automated sync as in asks. Its step would
// read it once and exit 0.
func (a *Application) Converged(in SyncInput) bool {
	return a.Settled(in) && a.autoSyncAsWanted(in)
}
