package lang

import "github.com/hashicorp/hcl/v2"

// blockSchemas maps each schema to the schemas of the blocks it holds,
// by block type: the shape decode.go follows. environment's arguments
// are open (every one becomes env.NAME); its schema lists only its
// cluster blocks. The reference
// in docs/language.md is checked against this tree, and the tree against
// the schemas, by the tests.
var blockSchemas = map[*hcl.BodySchema]map[string]*hcl.BodySchema{
	rootSchema: {
		"platform": platformSchema, "environment": environmentSchema, "defaults": defaultsSchema,
		"class": classSchema, "stack": stackSchema, "app": appSchema,
		"health": healthSchema, "events": eventsSchema,
		"schedule": scheduleSchema, "alerts": alertsSchema,
	},
	platformSchema: {
		"argocd": argocdSchema, "workflows": workflowsSchema, "git": gitSchema,
		"bootstrap": bootstrapSchema, "credential": credentialSchema,
	},
	argocdSchema:      {"token_secret": secretRefSchema},
	environmentSchema: {"cluster": clusterSchema},
	defaultsSchema:    settingsSchemas(),
	classSchema:       settingsSchemas(),
	stackSchema:       settingsSchemas("app", appSchema),
	appSchema: settingsSchemas(
		"source", sourceSchema, "sync", syncSchema, "hook", hookSchema,
		"ignore_differences", ignoreDifferencesSchema, "resource", resourceSchema),
	sourceSchema: {
		"helm": helmSchema, "kustomize": kustomizeSchema,
		"directory": directorySchema, "plugin": pluginSchema,
	},
	helmSchema:           {"parameter": helmParameterSchema, "file_parameter": helmFileParameterSchema},
	kustomizeSchema:      {"patch": kustomizePatchSchema},
	kustomizePatchSchema: {"target": patchTargetSchema},
	directorySchema:      {"jsonnet": jsonnetSchema},
	syncSchema:           {"retry": retrySchema, "managed_namespace_metadata": managedNamespaceSchema},
	healthSchema:         {"test": healthTestSchema},
	eventsSchema:         {"secret": secretRefSchema},
}

// settingsSchemas is the settings blocks plus the given type, schema
// pairs.
func settingsSchemas(more ...any) map[string]*hcl.BodySchema {
	m := map[string]*hcl.BodySchema{
		"timeouts": timeoutsSchema, "retry": retrySchema, "teardown": teardownSchema,
	}
	for i := 0; i+1 < len(more); i += 2 {
		m[more[i].(string)] = more[i+1].(*hcl.BodySchema)
	}
	return m
}

// allSchemas lists every schema reachable from the top level, each
// once, in the order of blockKinds.
func allSchemas() []*hcl.BodySchema {
	seen := map[*hcl.BodySchema]bool{}
	var walk func(*hcl.BodySchema)
	walk = func(s *hcl.BodySchema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		for _, child := range blockSchemas[s] {
			walk(child)
		}
	}
	walk(rootSchema)
	var out []*hcl.BodySchema
	for _, k := range blockKinds {
		if seen[k.schema] {
			out = append(out, k.schema)
			delete(seen, k.schema)
		}
	}
	for s := range seen { // not in blockKinds: TestEverySchemaHasAKind reports it
		out = append(out, s)
	}
	return out
}
