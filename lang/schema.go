package lang

import "github.com/hashicorp/hcl/v2"

// Block schemas, one per block type. No attribute is Required here: the
// compiler checks required attributes, so that null is refused exactly
// like a missing attribute and a block's other problems are reported in
// the same run.

var rootSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "platform", LabelNames: []string{"name"}},
		{Type: "environment", LabelNames: []string{"name"}},
		{Type: "defaults"},
		{Type: "class", LabelNames: []string{"name"}},
		{Type: "stack", LabelNames: []string{"name"}},
		{Type: "app", LabelNames: []string{"name"}},
		{Type: "health", LabelNames: []string{"kind"}},
		{Type: "events"},
		{Type: "schedule", LabelNames: []string{"action"}},
		{Type: "alerts"},
	},
}

var platformSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "argocd"}, {Type: "workflows"}, {Type: "git"}, {Type: "bootstrap"},
		{Type: "credential", LabelNames: []string{"name"}},
	},
}

var argocdSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "namespace"}, {Name: "project"}, {Name: "server"}, {Name: "version"},
		{Name: "insecure"}, {Name: "plaintext"}, {Name: "grpc_web"},
		{Name: "reconciliation_timeout"}, {Name: "applications_per_root"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "token_secret"}},
}

var secretRefSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "name"}, {Name: "key"},
	},
}

var workflowsSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "namespace"}, {Name: "service_account"}, {Name: "parallelism"},
		{Name: "image"}, {Name: "timeout"}, {Name: "node_budget"},
	},
}

var gitSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "repo_url"}, {Name: "revision"}, {Name: "path"},
	},
}

var bootstrapSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "argocd_chart"}, {Name: "workflows_chart"}, {Name: "events_chart"},
		{Name: "sealed_secrets_chart"}, {Name: "argo_repo"}, {Name: "sealed_secrets_repo"},
		{Name: "argocd_apps_chart"},
	},
}

var credentialSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "type"}, {Name: "path"}, {Name: "repo_url"}, {Name: "url_prefix"},
		{Name: "namespaces"}, {Name: "key"},
	},
}

// settingsAttrs and settingsBlocks are shared by defaults, class, stack and
// app bodies.
var settingsAttrs = []hcl.AttributeSchema{{Name: "expected_duration"}}

var settingsBlocks = []hcl.BlockHeaderSchema{
	{Type: "timeouts"}, {Type: "retry"}, {Type: "teardown"},
}

// environmentSchema holds the environment's cluster blocks; its arguments
// are open (each is env.NAME), so decodeEnvironment reads the blocks with
// PartialContent and the rest with JustAttributes.
var environmentSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{{Type: "cluster", LabelNames: []string{"name"}}},
}

var clusterSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "server"}},
}

var defaultsSchema = &hcl.BodySchema{Attributes: settingsAttrs, Blocks: settingsBlocks}

var classSchema = &hcl.BodySchema{
	Attributes: append([]hcl.AttributeSchema{{Name: "description"}}, settingsAttrs...),
	Blocks:     settingsBlocks,
}

var stackSchema = &hcl.BodySchema{
	Attributes: append([]hcl.AttributeSchema{
		{Name: "description"}, {Name: "depends_on"}, {Name: "class"},
	}, settingsAttrs...),
	Blocks: append([]hcl.BlockHeaderSchema{{Type: "app", LabelNames: []string{"name"}}}, settingsBlocks...),
}

var appSchema = &hcl.BodySchema{
	Attributes: append([]hcl.AttributeSchema{
		{Name: "namespace"}, {Name: "class"}, {Name: "project"}, {Name: "application"},
		{Name: "custom_resources"}, {Name: "depends_on"},
		{Name: "annotations"}, {Name: "labels"}, {Name: "info"},
		{Name: "revision_history_limit"}, {Name: "finalizer"}, {Name: "cluster"},
	}, settingsAttrs...),
	Blocks: append([]hcl.BlockHeaderSchema{
		{Type: "source"}, {Type: "sync"}, {Type: "hook", LabelNames: []string{"name"}},
		{Type: "ignore_differences"}, {Type: "resource", LabelNames: []string{"name"}},
	}, settingsBlocks...),
}

var resourceSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "kind"}, {Name: "name"}, {Name: "namespace"}},
}

var ignoreDifferencesSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "group"}, {Name: "kind"}, {Name: "name"}, {Name: "namespace"},
		{Name: "json_pointers"}, {Name: "jq_path_expressions"}, {Name: "managed_fields_managers"},
	},
}

var timeoutsSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "sync"}, {Name: "health"}},
}

var retrySchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "limit"}, {Name: "backoff"}, {Name: "factor"}, {Name: "max_backoff"},
	},
}

var teardownSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "volumes"}, {Name: "timeout"}, {Name: "snapshot_class"}},
}

var sourceSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "repo_url"}, {Name: "chart"}, {Name: "version"}, {Name: "path"},
		{Name: "target_revision"}, {Name: "ref"},
	},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "helm"}, {Type: "kustomize"}, {Type: "directory"}, {Type: "plugin"},
	},
}

var helmSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "values"}, {Name: "value_files"}, {Name: "release_name"},
		{Name: "skip_crds"}, {Name: "skip_tests"}, {Name: "ignore_missing_value_files"},
		{Name: "pass_credentials"}, {Name: "api_versions"}, {Name: "kube_version"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "parameter"}, {Type: "file_parameter"}},
}

var helmParameterSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "name"}, {Name: "value"}, {Name: "force_string"}},
}

var helmFileParameterSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "name"}, {Name: "path"}},
}

var kustomizeSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "images"}, {Name: "name_prefix"}, {Name: "name_suffix"},
		{Name: "common_labels"}, {Name: "common_annotations"}, {Name: "namespace"},
		{Name: "components"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "patch"}},
}

var kustomizePatchSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "patch"}, {Name: "path"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "target"}},
}

var patchTargetSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "group"}, {Name: "version"}, {Name: "kind"}, {Name: "name"}, {Name: "namespace"},
		{Name: "label_selector"}, {Name: "annotation_selector"},
	},
}

var directorySchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "recurse"}, {Name: "include"}, {Name: "exclude"}},
	Blocks:     []hcl.BlockHeaderSchema{{Type: "jsonnet"}},
}

var jsonnetSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "ext_vars"}, {Name: "tlas"}, {Name: "libs"}},
}

var pluginSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "name"}, {Name: "env"}, {Name: "parameters"}},
}

var syncSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "automated"}, {Name: "self_heal"}, {Name: "prune"}, {Name: "options"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "retry"}, {Type: "managed_namespace_metadata"}},
}

var managedNamespaceSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "labels"}, {Name: "annotations"}},
}

var hookSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "phase"}, {Name: "purpose"}, {Name: "manifest"},
	},
}

var healthSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "healthy"}, {Name: "degraded"}, {Name: "suspended"}, {Name: "message"},
		{Name: "observed_generation"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "test", LabelNames: []string{"name"}}},
}

var healthTestSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "object"}, {Name: "want"},
		{Name: "want_message"}, {Name: "env"},
	},
}

var eventsSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "type"}, {Name: "namespace"}, {Name: "port"}, {Name: "endpoint"},
		{Name: "branch"}, {Name: "repository"}, {Name: "url"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "secret"}},
}

var scheduleSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "cron"}, {Name: "timezone"}, {Name: "concurrency"}, {Name: "suspend"},
	},
}

var alertsSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "namespace"}, {Name: "labels"}, {Name: "for"}, {Name: "severity"},
	},
}
