package lang

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"
)

var healthFileSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{{Type: "health", LabelNames: []string{"kind"}}},
}

// ParseHealthFiles parses files that hold nothing but health blocks, such
// as platc's built-in health library. No platform block is needed, and
// any other block is an error. The blocks are decoded exactly as in a
// platform, into Module.Health.
func ParseHealthFiles(srcs []SourceFile) (*Module, hcl.Diagnostics) {
	p := hclparse.NewParser()
	m := &Module{}
	d := &decoder{m: m}
	var diags hcl.Diagnostics
	for _, s := range srcs {
		if ds := CheckSource(s.Name, s.Bytes); ds.HasErrors() {
			diags = append(diags, ds...)
			m.FileNames = append(m.FileNames, s.Name)
			continue
		}
		f, ds := p.ParseHCL(s.Bytes, s.Name)
		diags = append(diags, ds...)
		m.FileNames = append(m.FileNames, s.Name)
		if f == nil || ds.HasErrors() {
			continue
		}
		content, ds := f.Body.Content(healthFileSchema)
		d.add(ds)
		for _, b := range content.Blocks {
			m.Health = append(m.Health, d.decodeHealth(b))
		}
	}
	m.Files = p.Files()
	return m, append(diags, d.diags...)
}
