package config

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/platc/platc/internal/safefile"
	"github.com/platc/platc/internal/safeyaml"
	"github.com/platc/platc/lang"
)

// EnvFile is /config/environment.yaml (RFC 7.4). Its values override the
// platform's own: domain and clusterName the environment block's domain and
// cluster_name, gitRepository and gitRevision platform.git, the two
// namespaces platform.argocd.namespace and platform.workflows.namespace,
// and timeouts and retries the defaults block (so an app, class or stack
// that sets its own value keeps it).
type EnvFile struct {
	Name               string         `json:"name"`
	Domain             string         `json:"domain"`
	GitRepository      string         `json:"gitRepository"`
	GitRevision        string         `json:"gitRevision"`
	ClusterName        string         `json:"clusterName,omitempty"`
	ArgoCDNamespace    string         `json:"argocdNamespace,omitempty"`
	WorkflowsNamespace string         `json:"workflowsNamespace,omitempty"`
	Timeouts           *EnvTimeouts   `json:"timeouts,omitempty"`
	Retries            *EnvRetries    `json:"retries,omitempty"`
	Path               string         `json:"-"`
	parsed             parsedDuration `json:"-"`
}

// EnvTimeouts is the timeouts section of environment.yaml.
type EnvTimeouts struct {
	Sync   string `json:"sync,omitempty"`
	Health string `json:"health,omitempty"`
}

// EnvRetries is the retries section of environment.yaml.
type EnvRetries struct {
	MaxAttempts *int   `json:"maxAttempts,omitempty"`
	Backoff     string `json:"backoff,omitempty"`
}

// override is what the file changes in the platform, for lang to write
// into the module: the merging is lang's, the meaning of the file's fields
// (RFC 7.4) is this package's.
func (ef *EnvFile) override(env string) lang.Override {
	o := lang.Override{
		Source:             ef.Path,
		Environment:        env,
		Domain:             ef.Domain,
		ClusterName:        ef.ClusterName,
		GitRepository:      ef.GitRepository,
		GitRevision:        ef.GitRevision,
		ArgoCDNamespace:    ef.ArgoCDNamespace,
		WorkflowsNamespace: ef.WorkflowsNamespace,
	}
	if t := ef.Timeouts; t != nil {
		o.SyncTimeout, o.HealthTimeout = t.Sync, t.Health
	}
	if r := ef.Retries; r != nil {
		if r.MaxAttempts != nil {
			// RFC 7.4 counts attempts; the language counts retries.
			limit := *r.MaxAttempts - 1
			o.RetryLimit = &limit
		}
		o.Backoff = r.Backoff
	}
	return o
}

type parsedDuration struct {
	sync, health, backoff time.Duration
}

// readEnvFile reads and checks the environment file at path. A missing
// file is not a problem when the path is the default one (the mount is
// optional); it is when the operator named the file.
func readEnvFile(path string, explicit bool, environment string) (*EnvFile, []string) {
	data, err := safefile.Read(path, MaxEnvFileSize)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		return nil, nil
	}
	if err != nil {
		return nil, []string{fmt.Sprintf("environment config %s: %v", path, safefile.Unwrap(err))}
	}
	var ef EnvFile
	// sigs.k8s.io/yaml expands aliases as it decodes: bound them first.
	if err := safeyaml.Check(data); err != nil {
		return nil, []string{fmt.Sprintf("environment config %s is not valid: %v", path, err)}
	}
	if err := yaml.UnmarshalStrict(data, &ef); err != nil {
		return nil, []string{fmt.Sprintf("environment config %s is not valid: %v", path, err)}
	}
	ef.Path = path
	var probs []string
	bad := func(format string, args ...any) {
		probs = append(probs, fmt.Sprintf("environment config %s: ", path)+fmt.Sprintf(format, args...))
	}
	for _, f := range []struct{ name, val string }{
		{"name", ef.Name}, {"domain", ef.Domain}, {"gitRepository", ef.GitRepository}, {"gitRevision", ef.GitRevision},
	} {
		if strings.TrimSpace(f.val) == "" {
			bad("the required field %q is missing or empty (RFC 7.4)", f.name)
		}
	}
	if ef.Name != "" && environment != "" && ef.Name != environment {
		bad("it describes environment %q but ENVIRONMENT is %q; mount the file for %q or fix ENVIRONMENT", ef.Name, environment, environment)
	}
	dur := func(field, s string) time.Duration {
		if s == "" {
			return 0
		}
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			bad("%s %q is not a positive duration such as \"90s\" or \"10m\"", field, s)
			return 0
		}
		return d
	}
	if t := ef.Timeouts; t != nil {
		ef.parsed.sync = dur("timeouts.sync", t.Sync)
		ef.parsed.health = dur("timeouts.health", t.Health)
	}
	if r := ef.Retries; r != nil {
		if r.MaxAttempts != nil && *r.MaxAttempts < 1 {
			bad("retries.maxAttempts is %d; it counts every attempt, the first included, so it must be at least 1", *r.MaxAttempts)
		}
		ef.parsed.backoff = dur("retries.backoff", r.Backoff)
	}
	return &ef, probs
}
