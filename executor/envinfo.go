package executor

import (
	"github.com/platc/platc/executor/config"
	"github.com/platc/platc/internal/english"
)

// EnvInfo records environment.yaml's timeouts and retries (RFC 7.4) and
// how this run applied them.
type EnvInfo struct {
	Path     string   `json:"path"`
	SHA256   string   `json:"sha256_prefix"`
	Settings []string `json:"settings"` // "timeouts.sync=7m", as written
	// Compiled: the run's workflow was compiled on the spot with them.
	Compiled bool   `json:"compiled"`
	Applied  string `json:"applied"`
}

// recordEnvFile puts environment.yaml's timeouts and retries in the
// report, saying where they took effect: the committed WorkflowTemplate
// embeds the platform's own values, so only a workflow compiled here
// carries the file's.
func (r *run) recordEnvFile() {
	ef := r.cfg.EnvFile
	if !ef.ChangesWorkflow() {
		return
	}
	info := &EnvInfo{Path: ef.Path, SHA256: ef.Sum, Settings: ef.Settings()}
	switch {
	case r.cfg.Action == config.Validate:
		info.Applied = "validate runs no workflow; they apply to deploy"
	case r.cfg.Scope.Kind == config.ScopePlatform:
		// Teardown of the whole platform runs the committed template.
		info.Applied = "not applied: a whole-platform teardown runs the committed WorkflowTemplate (its orphan report and primitives' removal are the whole platform's), so its steps keep the retries platc build compiled; run 'platc build' with these defaults in the platform source to change them"
		r.rep.recommend("environment.yaml's timeouts and retries reach a whole-platform teardown only through the committed WorkflowTemplate: set them in the platform's defaults block, run 'platc build' and commit generated/.")
	default:
		info.Compiled = true
		info.Applied = "applied: this run's workflow is compiled on the spot with them (scope " + r.cfg.Scope.String() + ")"
	}
	r.rep.Env = info
	r.log.Infof("start", "environment-config", "environment config %s sets %s; %s", ef.Path, english.List(info.Settings), info.Applied)
}
