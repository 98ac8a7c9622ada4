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
	},
}

var platformSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "argocd"}, {Type: "workflows"}, {Type: "git"}, {Type: "bootstrap"},
	},
}

var argocdSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "namespace"}, {Name: "project"}, {Name: "server"}, {Name: "version"},
		{Name: "insecure"}, {Name: "plaintext"}, {Name: "grpc_web"},
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
		{Name: "image"}, {Name: "timeout"},
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

// settingsAttrs and settingsBlocks are shared by defaults, class, stack and
// app bodies.
var settingsAttrs = []hcl.AttributeSchema{{Name: "expected_duration"}}

var settingsBlocks = []hcl.BlockHeaderSchema{
	{Type: "timeouts"}, {Type: "retry"}, {Type: "teardown"},
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
	}, settingsAttrs...),
	Blocks: append([]hcl.BlockHeaderSchema{
		{Type: "source"}, {Type: "sync"}, {Type: "hook", LabelNames: []string{"name"}},
	}, settingsBlocks...),
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
	Attributes: []hcl.AttributeSchema{{Name: "volumes"}, {Name: "timeout"}},
}

var sourceSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "repo_url"}, {Name: "chart"}, {Name: "version"}, {Name: "path"},
		{Name: "target_revision"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "helm"}},
}

var helmSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "values"}, {Name: "value_files"}, {Name: "release_name"},
	},
}

var syncSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "automated"}, {Name: "self_heal"}, {Name: "prune"}, {Name: "options"},
	},
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
