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
