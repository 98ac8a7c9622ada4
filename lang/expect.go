package lang

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/platc/platc/diag"
	"github.com/platc/platc/internal/english"
)

// A blockKind names one body schema for people: the phrase diagnostics
// use for where something is not expected, and the section of
// docs/language.md that describes it. A schema shared by several blocks
// (the settings blocks, the secret references) has one entry.
type blockKind struct {
	schema *hcl.BodySchema
	// in completes "is not expected ...": "in an app block".
	in string
	// section is the heading of docs/language.md that documents the
	// schema.
	section string
}

// blockKinds lists every schema lang decodes with, in the order
// docs/language.md documents them.
var blockKinds = []blockKind{
	{rootSchema, "at the top level of a platform file", "Top level"},
	{platformSchema, "in a platform block", "platform"},
	{argocdSchema, "in a platform's argocd block", "argocd"},
	{secretRefSchema, "in a secret reference (token_secret, secret)", "token_secret, secret"},
	{workflowsSchema, "in a platform's workflows block", "workflows"},
	{gitSchema, "in a platform's git block", "git"},
	{bootstrapSchema, "in a platform's bootstrap block", "bootstrap"},
	{credentialSchema, "in a platform's credential block", "credential"},
	{environmentSchema, "in an environment block", "environment"},
	{clusterSchema, "in an environment's cluster block", "cluster"},
	{defaultsSchema, "in the defaults block", "defaults"},
	{classSchema, "in a class block", "class"},
	{stackSchema, "in a stack block", "stack"},
	{appSchema, "in an app block", "app"},
	{sourceSchema, "in an app's source block", "source"},
	{helmSchema, "in a source's helm block", "helm"},
	{helmParameterSchema, "in a helm parameter block", "parameter"},
	{helmFileParameterSchema, "in a helm file_parameter block", "file_parameter"},
	{kustomizeSchema, "in a source's kustomize block", "kustomize"},
	{kustomizePatchSchema, "in a kustomize patch block", "patch"},
	{patchTargetSchema, "in a patch's target block", "target"},
	{directorySchema, "in a source's directory block", "directory"},
	{jsonnetSchema, "in a directory's jsonnet block", "jsonnet"},
	{pluginSchema, "in a source's plugin block", "plugin"},
	{syncSchema, "in an app's sync block", "sync"},
	{managedNamespaceSchema, "in a sync's managed_namespace_metadata block", "managed_namespace_metadata"},
	{ignoreDifferencesSchema, "in an ignore_differences block", "ignore_differences"},
	{hookSchema, "in a hook block", "hook"},
	{resourceSchema, "in an app's resource block", "resource"},
	{timeoutsSchema, "in a timeouts block", "timeouts"},
	{retrySchema, "in a retry block", "retry"},
	{teardownSchema, "in a teardown block", "teardown"},
	{healthSchema, "in a health block", "health"},
	{healthTestSchema, "in a health rule's test block", "test"},
	{eventsSchema, "in the events block", "events"},
	{scheduleSchema, "in a schedule block", "schedule"},
	{alertsSchema, "in the alerts block", "alerts"},
}

func kindOf(schema *hcl.BodySchema) *blockKind {
	for i := range blockKinds {
		if blockKinds[i].schema == schema {
			return &blockKinds[i]
		}
	}
	return nil
}

// content decodes body against schema and rewrites HCL's "not expected
// here" diagnostics so they say where, suggest the nearest name, and
// list what is expected.
func (d *decoder) content(body hcl.Body, schema *hcl.BodySchema) *hcl.BodyContent {
	c, ds := body.Content(schema)
	for _, x := range ds {
		explainUnexpected(x, schema)
	}
	d.add(ds)
	return c
}

var unexpected = regexp.MustCompile(`^(?:An argument named|Blocks of type) "([^"]*)"`)

// explainUnexpected replaces the detail of HCL's "Unsupported argument"
// and "Unsupported block type" diagnostics. HCL suggests only names of
// the same kind within a small edit distance; people write timeout for
// the timeouts block, application for app, and want to know what is
// allowed instead.
func explainUnexpected(x *hcl.Diagnostic, schema *hcl.BodySchema) {
	var isBlock bool
	switch x.Summary {
	case "Unsupported argument":
	case "Unsupported block type":
		isBlock = true
	default:
		return
	}
	m := unexpected.FindStringSubmatch(x.Detail)
	k := kindOf(schema)
	if m == nil || k == nil {
		return
	}
	name := m[1]
	var attrs, blocks []string
	for _, a := range schema.Attributes {
		attrs = append(attrs, a.Name)
	}
	for _, b := range schema.Blocks {
		if !slices.Contains(blocks, b.Type) {
			blocks = append(blocks, b.Type)
		}
	}
	var b strings.Builder
	if isBlock {
		fmt.Fprintf(&b, "A block of type %q is not expected %s.", name, k.in)
	} else {
		fmt.Fprintf(&b, "An argument named %q is not expected %s.", name, k.in)
	}
	b.WriteString(suggestion(name, isBlock, attrs, blocks))
	b.WriteString(" " + expected(k, attrs, blocks))
	x.Detail = b.String()
}

// suggestion proposes the nearest name, saying when it is of the other
// kind (an argument written as a block, or the reverse).
func suggestion(name string, isBlock bool, attrs, blocks []string) string {
	same, other := attrs, blocks
	if isBlock {
		same, other = blocks, attrs
	}
	if slices.Contains(other, name) {
		if isBlock {
			return fmt.Sprintf(" %s is an argument here: write %s = <value>, with an equals sign.", name, name)
		}
		return fmt.Sprintf(" %s is a block here: write %s { ... }, without an equals sign.", name, name)
	}
	if s := nearest(name, same); s != "" {
		return fmt.Sprintf(" Did you mean %q?", s)
	}
	if s := nearest(name, other); s != "" {
		if isBlock {
			return fmt.Sprintf(" Did you mean the argument %q (%s = <value>)?", s, s)
		}
		return fmt.Sprintf(" Did you mean the block %q (%s { ... })?", s, s)
	}
	if k := elsewhere(name, isBlock); k != nil {
		return fmt.Sprintf(" %s is expected %s, not here.", name, k.in)
	}
	return ""
}

// nearest is diag.Suggest, plus the longest candidate that the name
// starts with ("application" for app, "stacks" for stack): people spell
// out what the language abbreviates.
func nearest(name string, candidates []string) string {
	// Synonyms take part as names of their own, so a typo of one
	// ("aplication") still leads to what platc calls it.
	pool := slices.Clone(candidates)
	for syn, real := range synonyms {
		if slices.Contains(candidates, real) {
			pool = append(pool, syn)
		}
	}
	slices.Sort(pool)
	s := diag.Suggest(name, pool)
	if s == "" {
		for _, c := range pool {
			if len(c) >= 3 && strings.HasPrefix(name, c) && len(c) > len(s) {
				s = c
			}
		}
	}
	if real, ok := synonyms[s]; ok && !slices.Contains(candidates, s) {
		return real
	}
	return s
}

// synonyms are names other tools use for what platc calls otherwise.
var synonyms = map[string]string{
	"application":   "app",
	"service":       "app",
	"component":     "app",
	"group":         "stack",
	"layer":         "stack",
	"dependencies":  "depends_on",
	"depends":       "depends_on",
	"needs":         "depends_on",
	"requires":      "depends_on",
	"after":         "depends_on",
	"timeout":       "timeouts",
	"retries":       "retry",
	"chart_version": "version",
	"revision":      "target_revision",
	"repo":          "repo_url",
	"repository":    "repo_url",
}

// elsewhere finds the block where name is expected, for a name written
// in the wrong block (values in source rather than in its helm block).
func elsewhere(name string, isBlock bool) *blockKind {
	for i := range blockKinds {
		k := &blockKinds[i]
		if isBlock {
			if slices.ContainsFunc(k.schema.Blocks, func(b hcl.BlockHeaderSchema) bool { return b.Type == name }) {
				return k
			}
			continue
		}
		if slices.ContainsFunc(k.schema.Attributes, func(a hcl.AttributeSchema) bool { return a.Name == name }) {
			return k
		}
	}
	return nil
}

// expected lists what the schema allows, and where it is documented.
func expected(k *blockKind, attrs, blocks []string) string {
	var parts []string
	if len(attrs) > 0 {
		parts = append(parts, english.Plural(len(attrs), "the argument")+" "+english.List(attrs))
	}
	if len(blocks) > 0 {
		parts = append(parts, english.Plural(len(blocks), "the block")+" "+english.List(blocks))
	}
	what := "nothing"
	if len(parts) > 0 {
		what = strings.Join(parts, ", and ")
	}
	return fmt.Sprintf("Expected %s: %s. docs/language.md, section %q, describes each.", k.in, what, k.section)
}

// list joins names as "a, b and c".
