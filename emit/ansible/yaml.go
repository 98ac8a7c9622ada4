package ansible

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/platc/platc/emit"
)

// Ansible files need their keys in a meaningful order (ansible-lint's
// key-order rule wants name first and block, rescue and always last), so
// they are built from ordered maps rather than through emit.YAML, whose
// key order (emit.CompareKeys) is Kubernetes'; the Kubernetes objects they
// carry keep that order.

// kv is one key of an ordered map.
type kv struct {
	k string
	v any
}

// om is an ordered map.
type om []kv

// with returns o with more keys appended.
func (o om) with(more ...kv) om { return append(slices.Clone(o), more...) }

// yaml11Special matches plain scalars that YAML 1.1, the version PyYAML
// and so Ansible read, turns into something other than a string. yaml.v3
// writes YAML 1.2 and would leave some of them (yes, on, 0o17, 1:20) bare.
var yaml11Special = regexp.MustCompile(`^(?:[yYnN]|[yY]es|YES|[nN]o|NO|[tT]rue|TRUE|[fF]alse|FALSE|[oO]n|ON|[oO]ff|OFF|~|[nN]ull|NULL|[-+]?[0-9][0-9_:.eExXoObB+-]*|[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN))$`)

// jinja is a string platc writes as a Jinja template on purpose, such as
// "{{ inventory_dir }}/...": the one kind of string in the variables
// file that Ansible may template.
type jinja string

// node renders v. With unsafe set, every string is tagged !unsafe, which
// makes Ansible use it as it is and never template it: the variables
// file carries values from the platform, and Ansible templates a
// variable's value wherever a task reads it, so "{{ lookup('pipe', ...) }}"
// in one would run on the bootstrap host. The compiler's grammars keep
// braces out of every value that reaches Ansible today; !unsafe keeps
// that true of any value added later. A jinja string is never tagged.
func node(v any, unsafe bool) (*yaml.Node, error) {
	switch v := v.(type) {
	case om:
		n := &yaml.Node{Kind: yaml.MappingNode}
		for _, e := range v {
			val, err := node(e.v, unsafe)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", e.k, err)
			}
			n.Content = append(n.Content, str(e.k), val)
		}
		return n, nil
	case map[string]any:
		// Helm values from the HCL, or an object plain could not order:
		// in emit's key order, so output is deterministic.
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, emit.CompareKeys)
		o := make(om, 0, len(keys))
		for _, k := range keys {
			o = append(o, kv{k, v[k]})
		}
		return node(o, unsafe)
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode}
		for _, e := range v {
			c, err := node(e, unsafe)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, c)
		}
		return n, nil
	case []om:
		return node(anys(v), unsafe)
	case []string:
		return node(anys(v), unsafe)
	case jinja:
		return str(string(v)), nil
	case string:
		n := str(v)
		if unsafe {
			n.Tag = "!unsafe"
			if v == "" {
				n.Style = yaml.DoubleQuotedStyle // not a bare tag
			}
		}
		return n, nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v)}, nil
	case int:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(v)}, nil
	case json.Number:
		tag := "!!int"
		if _, err := v.Int64(); err != nil {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: v.String()}, nil
	case float64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: strconv.FormatFloat(v, 'g', -1, 64)}, nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
	return nil, fmt.Errorf("emit/ansible: cannot render %T as YAML; this is a platc bug", v)
}

func anys[T any](s []T) []any {
	out := make([]any, len(s))
	for i, e := range s {
		out[i] = e
	}
	return out
}

func str(s string) *yaml.Node {
	n := &yaml.Node{}
	n.SetString(s)
	if n.Style == 0 && yaml11Special.MatchString(s) {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

// yamlFile renders one YAML document for Ansible: the platc header, the
// document start marker, then v. unsafe tags its strings !unsafe (node).
func yamlFile(v any, unsafe bool) ([]byte, error) {
	n, err := node(v, unsafe)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(emit.Header)
	b.WriteString("---\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, fmt.Errorf("emit/ansible: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("emit/ansible: %w", err)
	}
	return b.Bytes(), nil
}
