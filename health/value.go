package health

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/platc/platc/internal/safefile"
	"github.com/platc/platc/internal/safeyaml"
)

// Values are what Argo CD hands a health script, in Go: nil, bool,
// float64, string, []any and map[string]any. The model follows the way
// Argo CD turns an object into Lua (util/lua decodeValue) and the way
// gopher-lua stores it:
//
//   - every number is a float64 (Lua has one number type), so integers
//     beyond 2^53 lose precision exactly as they do in Argo CD;
//   - a null list element is dropped (LTable.Append ignores nil), so
//     [null, "a"] is ["a"] and its length is 1;
//   - an object key whose value is null is absent (setting nil in a Lua
//     table removes the key).
//
// platc does not use cty values here on purpose: cty normalises every
// string to Unicode NFC and keeps numbers at arbitrary precision, and
// either would make platc's answer differ from the Lua Argo CD runs.

// DecodeJSON parses one JSON document into the value model.
func DecodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return Normalize(v)
}

// DecodeYAML parses one YAML (or JSON) document into the value model.
func DecodeYAML(b []byte) (any, error) {
	// sigs.k8s.io/yaml expands aliases as it decodes: bound them first.
	if err := safeyaml.Check(b); err != nil {
		return nil, err
	}
	j, err := yaml.YAMLToJSON(b)
	if err != nil {
		return nil, err
	}
	return DecodeJSON(j)
}

// MaxObjectSize is the largest sample object file platc reads. The API
// server stores objects of at most about 1.5 MiB.
const MaxObjectSize = 4 << 20

// LoadObject reads a sample object from a .yaml, .yml or .json file.
func LoadObject(path string) (any, error) {
	b, err := safefile.Read(path, MaxObjectSize)
	if err != nil {
		return nil, err
	}
	return DecodeObject(b, path)
}

// DecodeObject parses a sample object that came from the file name; it
// must be a mapping, since Argo CD only ever evaluates objects.
func DecodeObject(b []byte, name string) (any, error) {
	var (
		v   any
		err error
	)
	if strings.EqualFold(filepath.Ext(name), ".json") {
		v, err = DecodeJSON(b)
	} else {
		v, err = DecodeYAML(b)
	}
	if err != nil {
		return nil, err
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fmt.Errorf("the document is %s, not a Kubernetes object (a mapping with apiVersion, kind, metadata...)", typeName(v))
	}
	return v, nil
}

// Normalize converts decoded JSON (json.Number or float64 numbers, Go
// integers) into the value model. It fails only on numbers a float64
// cannot hold.
func Normalize(v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, string, float64:
		return x, nil
	case json.Number:
		// Kubernetes decodes integral numbers to int64 and everything
		// else to float64; Argo CD then makes a Lua number of either.
		if i, err := x.Int64(); err == nil {
			return float64(i), nil
		}
		f, err := x.Float64()
		if err != nil {
			return nil, fmt.Errorf("number %s is out of range", x)
		}
		return f, nil
	case int:
		return float64(x), nil
	case int32:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case []any:
		out := make([]any, 0, len(x))
		for _, e := range x {
			if e == nil {
				continue
			}
			n, err := Normalize(e)
			if err != nil {
				return nil, err
			}
			out = append(out, n)
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if e == nil {
				continue
			}
			n, err := Normalize(e)
			if err != nil {
				return nil, err
			}
			out[k] = n
		}
		return out, nil
	}
	return nil, fmt.Errorf("unsupported value of Go type %T", v)
}

// FormatNumber renders a number the way gopher-lua's tostring and ".."
// do (LNumber.String): whole numbers without a fraction, everything else
// in Go's shortest %v form. The integer test is gopher-lua's own, so the
// result matches the Lua on the machine it runs on.
func FormatNumber(f float64) string {
	if f == float64(int64(f)) {
		return fmt.Sprint(int64(f))
	}
	return fmt.Sprint(f)
}

// ToString is how a value appears in a message or a string template:
// strings as they are, numbers as FormatNumber, booleans as true/false,
// and null, lists and objects as nothing at all (a Lua table has no
// stable text form).
func ToString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return FormatNumber(x)
	case bool:
		if x {
			return "true"
		}
		return "false"
	}
	return ""
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a bool"
	case float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func yamlToJSON(b []byte) ([]byte, error) { return yaml.YAMLToJSON(b) }
