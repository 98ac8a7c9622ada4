package importer

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"go.yaml.in/yaml/v3"

	"github.com/platc/platc/manifest"
)

// This file carries the parts of an Application that platc's language
// says in its own words (issue 22) from YAML to HCL: field by field, by
// a table of what each Argo CD field becomes. A field the table does
// not know, or a value of the wrong shape, is a reason to adopt the
// Application as it is; the values themselves are judged by the
// compiler, which importer.trial asks before it accepts an app.

// fkind is the shape of one field, in YAML and in HCL.
type fkind int

const (
	kString       fkind = iota // scalar → string attribute
	kBool                      // true/false → bool attribute
	kInt                       // integer → number attribute
	kStrings                   // list of scalars → list of strings
	kStrMap                    // map of scalars → map attribute
	kBlock                     // mapping → nested block
	kBlocks                    // list of mappings → one block each
	kNameValues                // list of {name, value} → map attribute
	kJsonnetVars               // list of {name, value, code} → object attribute
	kPluginParams              // plugin parameters → object attribute
)

// field is one Argo CD field and what it becomes.
type field struct {
	argo, hcl string
	kind      fkind
	sub       []field
}

var (
	kustomizeFields = []field{
		{"images", "images", kStrings, nil},
		{"namePrefix", "name_prefix", kString, nil},
		{"nameSuffix", "name_suffix", kString, nil},
		{"commonLabels", "common_labels", kStrMap, nil},
		{"commonAnnotations", "common_annotations", kStrMap, nil},
		{"namespace", "namespace", kString, nil},
		{"components", "components", kStrings, nil},
		{"patches", "patch", kBlocks, []field{
			{"patch", "patch", kString, nil},
			{"path", "path", kString, nil},
			{"target", "target", kBlock, []field{
				{"group", "group", kString, nil},
				{"version", "version", kString, nil},
				{"kind", "kind", kString, nil},
				{"name", "name", kString, nil},
				{"namespace", "namespace", kString, nil},
				{"labelSelector", "label_selector", kString, nil},
				{"annotationSelector", "annotation_selector", kString, nil},
			}},
		}},
	}
	directoryFields = []field{
		{"recurse", "recurse", kBool, nil},
		{"include", "include", kString, nil},
		{"exclude", "exclude", kString, nil},
		{"jsonnet", "jsonnet", kBlock, []field{
			{"extVars", "ext_vars", kJsonnetVars, nil},
			{"tlas", "tlas", kJsonnetVars, nil},
			{"libs", "libs", kStrings, nil},
		}},
	}
	pluginFields = []field{
		{"name", "name", kString, nil},
		{"env", "env", kNameValues, nil},
		{"parameters", "parameters", kPluginParams, nil},
	}
	// helmExtraFields are the helm fields besides releaseName,
	// valueFiles, values and valuesObject, which convertHelm reads.
	helmExtraFields = []field{
		{"skipCrds", "skip_crds", kBool, nil},
		{"skipTests", "skip_tests", kBool, nil},
		{"ignoreMissingValueFiles", "ignore_missing_value_files", kBool, nil},
		{"passCredentials", "pass_credentials", kBool, nil},
		{"apiVersions", "api_versions", kStrings, nil},
		{"kubeVersion", "kube_version", kString, nil},
		{"parameters", "parameter", kBlocks, []field{
			{"name", "name", kString, nil},
			{"value", "value", kString, nil},
			{"forceString", "force_string", kBool, nil},
		}},
		{"fileParameters", "file_parameter", kBlocks, []field{
			{"name", "name", kString, nil},
			{"path", "path", kString, nil},
		}},
	}
	ignoreDifferencesFields = []field{
		{"group", "group", kString, nil},
		{"kind", "kind", kString, nil},
		{"name", "name", kString, nil},
		{"namespace", "namespace", kString, nil},
		{"jsonPointers", "json_pointers", kStrings, nil},
		{"jqPathExpressions", "jq_path_expressions", kStrings, nil},
		{"managedFieldsManagers", "managed_fields_managers", kStrings, nil},
	}
	managedNamespaceFields = []field{
		{"labels", "labels", kStrMap, nil},
		{"annotations", "annotations", kStrMap, nil},
	}
)

// hclOf writes the fields of mapping n (at YAML path at) as HCL lines by
// fields, and returns them with the reasons it could not.
func hclOf(n *yaml.Node, at string, fields []field) (lines []string, why []string) {
	eachKey(n, func(k, v *yaml.Node) {
		i := slices.IndexFunc(fields, func(f field) bool { return f.argo == k.Value })
		if i < 0 {
			why = append(why, fmt.Sprintf("it uses %s.%s", at, k.Value))
			return
		}
		l, w := hclField(v, at+"."+k.Value, fields[i])
		lines = append(lines, l...)
		why = append(why, w...)
	})
	return lines, why
}

// hclField writes one field.
func hclField(v *yaml.Node, at string, f field) (lines []string, why []string) {
	bad := func(what string) ([]string, []string) {
		return nil, []string{fmt.Sprintf("its %s is not %s", at, what)}
	}
	switch f.kind {
	case kString:
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			return bad("a string")
		}
		return []string{f.hcl + " = " + str(v.Value)}, nil
	case kBool:
		b, ok := yamlBool(v)
		if !ok {
			return bad("true or false")
		}
		return []string{f.hcl + " = " + strconv.FormatBool(b)}, nil
	case kInt:
		n, err := strconv.ParseInt(v.Value, 10, 64)
		if v.Kind != yaml.ScalarNode || err != nil {
			return bad("a whole number")
		}
		return []string{f.hcl + " = " + strconv.FormatInt(n, 10)}, nil
	case kStrings:
		list, ok := scalars(v)
		if !ok {
			return bad("a list of strings")
		}
		return []string{f.hcl + " = " + strList(list)}, nil
	case kStrMap:
		m, ok := scalarMap(v)
		if !ok {
			return bad("a map of strings")
		}
		return []string{f.hcl + " = " + valueText(strMapValue(m))}, nil
	case kNameValues:
		m := map[string]string{}
		for _, it := range items(v) {
			name := manifest.Str(manifest.Lookup(it, "name"))
			val := manifest.Lookup(it, "value")
			if _, dup := m[name]; dup || name == "" || val == nil || val.Kind != yaml.ScalarNode || len(it.Content) > 6 {
				return bad("a list of distinct names with string values")
			}
			m[name] = val.Value
		}
		if v.Kind != yaml.SequenceNode {
			return bad("a list of names and values")
		}
		return []string{f.hcl + " = " + valueText(strMapValue(m))}, nil
	case kJsonnetVars:
		obj := map[string]cty.Value{}
		for _, it := range items(v) {
			name := manifest.Str(manifest.Lookup(it, "name"))
			val := manifest.Lookup(it, "value")
			code := false
			if c := manifest.Lookup(it, "code"); c != nil {
				b, ok := yamlBool(c)
				if !ok {
					return bad("a list of names and values with code true or false")
				}
				code = b
			}
			if _, dup := obj[name]; dup || name == "" || val == nil || val.Kind != yaml.ScalarNode || len(it.Content) > 6 {
				return bad("a list of distinct names with string values")
			}
			if !code {
				obj[name] = cty.StringVal(val.Value)
				continue
			}
			cv, why := jsonnetData(val.Value)
			if why != "" {
				return nil, []string{fmt.Sprintf("its %s %q is Jsonnet code, %s: platc passes Argo CD no code that an author or a repository wrote, since nothing user-supplied may run as code (docs/security.md)", at, name, why)}
			}
			obj[name] = cv
		}
		if v.Kind != yaml.SequenceNode {
			return bad("a list of names and values")
		}
		return []string{f.hcl + " = " + valueText(cty.ObjectVal(obj))}, nil
	case kPluginParams:
		obj := map[string]cty.Value{}
		for _, it := range items(v) {
			name := manifest.Str(manifest.Lookup(it, "name"))
			if _, dup := obj[name]; dup || name == "" {
				return bad("a list of parameters with distinct names")
			}
			s, sk := manifest.Entry(it, "string")
			a, ak := manifest.Entry(it, "array")
			m, mk := manifest.Entry(it, "map")
			switch {
			case s != nil && a == nil && m == nil && sk.Kind == yaml.ScalarNode:
				obj[name] = cty.StringVal(sk.Value)
			case a != nil && s == nil && m == nil:
				list, ok := scalars(ak)
				if !ok {
					return bad("a list of string, array or map parameters")
				}
				obj[name] = strTuple(list)
			case m != nil && s == nil && a == nil:
				mm, ok := scalarMap(mk)
				if !ok {
					return bad("a list of string, array or map parameters")
				}
				obj[name] = strMapValue(mm)
			default:
				return bad("a list of string, array or map parameters")
			}
		}
		if v.Kind != yaml.SequenceNode {
			return bad("a list of parameters")
		}
		return []string{f.hcl + " = " + valueText(cty.ObjectVal(obj))}, nil
	case kBlock:
		if v.Kind != yaml.MappingNode {
			return bad("a mapping")
		}
		inner, w := hclOf(v, at, f.sub)
		return []string{block(f.hcl, inner)}, w
	case kBlocks:
		if v.Kind != yaml.SequenceNode {
			return bad("a list")
		}
		for i, it := range v.Content {
			it = manifest.Resolve(it)
			if it == nil || it.Kind != yaml.MappingNode {
				return bad("a list of mappings")
			}
			inner, w := hclOf(it, fmt.Sprintf("%s[%d]", at, i), f.sub)
			lines = append(lines, block(f.hcl, inner))
			why = append(why, w...)
		}
		return lines, why
	}
	return nil, []string{fmt.Sprintf("its %s cannot be read", at)}
}

// jsonnetData reads the value of a Jsonnet variable with code: true as
// the data it is, or says why it is code: JSON (a subset of Jsonnet) is
// data, with no duplicate key (Jsonnet refuses those) and no "$", which
// Argo CD substitutes from its build environment before Jsonnet reads
// the text, so the result would depend on more than the value.
func jsonnetData(text string) (cty.Value, string) {
	notJSON := "not JSON data"
	if strings.Contains(text, "$") {
		return cty.NilVal, "substituted from Argo CD's build environment (\"$\") before Jsonnet reads it"
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	v, ok := jsonToCty(dec, 0)
	if !ok {
		return cty.NilVal, notJSON
	}
	if _, err := dec.Token(); err != io.EOF {
		return cty.NilVal, notJSON
	}
	return v, ""
}

// jsonToCty reads one JSON value from dec as an HCL value, refusing
// duplicate keys and nesting deeper than 64.
func jsonToCty(dec *json.Decoder, depth int) (cty.Value, bool) {
	tok, err := dec.Token()
	if err != nil || depth > 64 {
		return cty.NilVal, false
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := map[string]cty.Value{}
			for dec.More() {
				kt, err := dec.Token()
				k, ok := kt.(string)
				if err != nil || !ok {
					return cty.NilVal, false
				}
				if _, dup := obj[k]; dup {
					return cty.NilVal, false
				}
				v, ok := jsonToCty(dec, depth+1)
				if !ok {
					return cty.NilVal, false
				}
				obj[k] = v
			}
			if _, err := dec.Token(); err != nil {
				return cty.NilVal, false
			}
			if len(obj) == 0 {
				return cty.EmptyObjectVal, true
			}
			return cty.ObjectVal(obj), true
		case '[':
			var list []cty.Value
			for dec.More() {
				v, ok := jsonToCty(dec, depth+1)
				if !ok {
					return cty.NilVal, false
				}
				list = append(list, v)
			}
			if _, err := dec.Token(); err != nil {
				return cty.NilVal, false
			}
			if len(list) == 0 {
				return cty.EmptyTupleVal, true
			}
			return cty.TupleVal(list), true
		}
		return cty.NilVal, false
	case string:
		return cty.StringVal(t), true
	case bool:
		return cty.BoolVal(t), true
	case json.Number:
		n, err := cty.ParseNumberVal(t.String())
		return n, err == nil
	case nil:
		return cty.NullVal(cty.DynamicPseudoType), true
	}
	return cty.NilVal, false
}

// block is an HCL block of the given lines.
func block(name string, lines []string) string {
	return name + " {\n" + strings.Join(lines, "\n") + "\n}"
}

// yamlBool reads a YAML 1.1 boolean, as Argo CD reads one.
func yamlBool(n *yaml.Node) (bool, bool) {
	if n == nil || n.Kind != yaml.ScalarNode {
		return false, false
	}
	switch strings.ToLower(n.Value) {
	case "true", "yes", "on":
		return true, true
	case "false", "no", "off":
		return false, true
	}
	return false, false
}

// scalars reads a list of scalars.
func scalars(n *yaml.Node) ([]string, bool) {
	n = manifest.Resolve(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil, false
	}
	out := []string{}
	for _, c := range n.Content {
		c = manifest.Resolve(c)
		if c == nil || c.Kind != yaml.ScalarNode || c.Tag == "!!null" {
			return nil, false
		}
		out = append(out, c.Value)
	}
	return out, true
}

// scalarMap reads a map of scalars.
func scalarMap(n *yaml.Node) (map[string]string, bool) {
	n = manifest.Resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, false
	}
	m := map[string]string{}
	ok := true
	eachKey(n, func(k, v *yaml.Node) {
		if v == nil || v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			ok = false
			return
		}
		m[k.Value] = v.Value
	})
	return m, ok
}

func strTuple(list []string) cty.Value {
	if len(list) == 0 {
		return cty.EmptyTupleVal
	}
	vals := make([]cty.Value, len(list))
	for i, s := range list {
		vals[i] = cty.StringVal(s)
	}
	return cty.TupleVal(vals)
}

func strList(list []string) string { return valueText(strTuple(list)) }

// strMapValue is an HCL object of strings; keys that are not HCL
// identifiers are quoted by hclwrite.
func strMapValue(m map[string]string) cty.Value {
	if len(m) == 0 {
		return cty.EmptyObjectVal
	}
	obj := make(map[string]cty.Value, len(m))
	for k, v := range m {
		obj[k] = cty.StringVal(v)
	}
	return cty.ObjectVal(obj)
}

// platcMeta are the labels and annotations platc writes itself: the
// migration drops them from an Application (platc writes its own).
var platcMeta = regexp.MustCompile(`^(app\.kubernetes\.io/(managed-by|part-of)|platc\.io/.*)$`)

// argoDuration reads an Argo CD backoff duration ("5s", "2m", or a
// number of seconds) as platc writes durations.
func argoDuration(s string) string {
	if n, err := strconv.Atoi(s); err == nil {
		return strconv.Itoa(n) + "s"
	}
	return s
}
