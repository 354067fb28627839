package lang

import "github.com/hashicorp/hcl/v2"

// DecodeFlowBlockDefs decodes the block definitions of a flow file, and nothing
// else of it: the blocks' examples are tested even when a step is wrong.
func DecodeFlowBlockDefs(parser *Parser, path string) ([]*BlockDef, hcl.Diagnostics) {
	f, diags := parser.ParseFile(path)
	if diags.HasErrors() || f == nil || f.Body == nil {
		return nil, diags
	}
	content, _, d := f.Body.PartialContent(&hcl.BodySchema{
		Blocks: []hcl.BlockHeaderSchema{{Type: "block", LabelNames: []string{"name"}}},
	})
	diags = append(diags, d...)
	defs := []*BlockDef{}
	for _, b := range content.Blocks {
		def, d := DecodeBlockDef(b)
		diags = append(diags, d...)
		defs = append(defs, def)
	}
	return defs, diags
}
