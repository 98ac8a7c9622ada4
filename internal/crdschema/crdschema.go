package crdschema

import (
	"bytes"
	"compress/gzip"
	"embed"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed schemas
var files embed.FS

// ErrNoSchema is returned for a kind that has no schema here.
var ErrNoSchema = errors.New("no schema for this kind")

// compiled holds, per schema file, the function that compiles it once.
var compiled = func() map[string]func() (*jsonschema.Schema, error) {
	m := map[string]func() (*jsonschema.Schema, error){}
	for _, file := range []string{
		"workflowtemplate_v1alpha1.json.gz",
		"workflow_v1alpha1.json.gz",
		"cronworkflow_v1alpha1.json.gz",
		"application_v1alpha1.json",
		"appproject_v1alpha1.json",
		"configmap-v1.json",
	} {
		m[file] = sync.OnceValues(func() (*jsonschema.Schema, error) { return compile(file) })
	}
	return m
}()

// kinds maps each kind to its schema file. ClusterWorkflowTemplate's CRD
// converts to the same schema as WorkflowTemplate's.
var kinds = map[string]string{
	"WorkflowTemplate":        "workflowtemplate_v1alpha1.json.gz",
	"ClusterWorkflowTemplate": "workflowtemplate_v1alpha1.json.gz",
	"Workflow":                "workflow_v1alpha1.json.gz",
	"CronWorkflow":            "cronworkflow_v1alpha1.json.gz",
	"Application":             "application_v1alpha1.json",
	"AppProject":              "appproject_v1alpha1.json",
	"ConfigMap":               "configmap-v1.json",
}

func compile(file string) (*jsonschema.Schema, error) {
	data, err := files.ReadFile("schemas/" + file)
	if err != nil {
		return nil, err
	}
	var r io.Reader = bytes.NewReader(data)
	if strings.HasSuffix(file, ".gz") {
		if r, err = gzip.NewReader(r); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	}
	doc, err := jsonschema.UnmarshalJSON(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(file, doc); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return c.Compile(file)
}

// For returns the compiled schema of kind, or an error wrapping
// ErrNoSchema.
func For(kind string) (*jsonschema.Schema, error) {
	file, ok := kinds[kind]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNoSchema, kind)
	}
	return compiled[file]()
}

// Validate checks the JSON document j against the schema of kind. An
// error wrapping ErrNoSchema means there is nothing to check it with; any
// other error is j failing its schema (or not being JSON).
func Validate(kind string, j []byte) error {
	s, err := For(kind)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	if err != nil {
		return err
	}
	return s.Validate(inst)
}
