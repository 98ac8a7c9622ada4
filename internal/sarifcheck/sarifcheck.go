package sarifcheck

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed sarif-schema-2.1.0.json
var schemaJSON []byte

// SchemaID is the id the embedded schema declares.
const SchemaID = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// Validate checks that log is valid SARIF 2.1.0, formats included.
func Validate(log []byte) error {
	schemaDoc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return fmt.Errorf("embedded schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(SchemaID, schemaDoc); err != nil {
		return fmt.Errorf("embedded schema: %w", err)
	}
	sch, err := c.Compile(SchemaID)
	if err != nil {
		return fmt.Errorf("embedded schema: %w", err)
	}
	if !json.Valid(log) {
		return fmt.Errorf("not JSON")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(log))
	if err != nil {
		return err
	}
	return sch.Validate(inst)
}
