package lang

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// File is a decoded flow file. A valid flow file has exactly one Flow; the
// compiler reports files with none or several.
type File struct {
	Filename string
	Body     hcl.Body
	Flows    []*Flow
	Inputs   []*Input
	Secrets  []*Secret
	Locals   []*Local
	Memories []*Memory
	Blocks   []*BlockDef
	Steps    []*Step
	Outputs  []*Output
}

var flowFileSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "flow", LabelNames: []string{"name"}},
		{Type: "input", LabelNames: []string{"name"}},
		{Type: "secret", LabelNames: []string{"name"}},
		{Type: "locals"},
		{Type: "memory", LabelNames: []string{"name"}},
		{Type: "block", LabelNames: []string{"name"}},
		{Type: "step", LabelNames: []string{"name"}},
		{Type: "output", LabelNames: []string{"name"}},
	},
}

var blockFileSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{{Type: "block", LabelNames: []string{"name"}}},
}

// IsFlowFile reports whether a path names a flow file (*.flow.hcl).
func IsFlowFile(path string) bool { return strings.HasSuffix(path, ".flow.hcl") }

// IsBlockFile reports whether a path names a block file (*.block.hcl).
func IsBlockFile(path string) bool { return strings.HasSuffix(path, ".block.hcl") }

// DecodeFlowFile decodes a parsed flow file. It returns a File even when
// there are errors, holding everything that could be decoded.
func DecodeFlowFile(f *hcl.File, filename string) (*File, hcl.Diagnostics) {
	file := &File{Filename: filename, Body: f.Body}
	if f.Body == nil {
		return file, nil
	}
	content, diags := f.Body.Content(flowFileSchema)
	for _, b := range content.Blocks {
		switch b.Type {
		case "flow":
			v, d := decodeFlowBlock(b)
			diags = append(diags, d...)
			file.Flows = append(file.Flows, v)
		case "input":
			v, d := decodeInputBlock(b)
			diags = append(diags, d...)
			file.Inputs = append(file.Inputs, v)
		case "secret":
			v, d := decodeSecretBlock(b)
			diags = append(diags, d...)
			file.Secrets = append(file.Secrets, v)
		case "locals":
			v, d := decodeLocalsBlock(b)
			diags = append(diags, d...)
			file.Locals = append(file.Locals, v...)
		case "memory":
			v, d := decodeMemoryBlock(b)
			diags = append(diags, d...)
			file.Memories = append(file.Memories, v)
		case "block":
			v, d := DecodeBlockDef(b)
			diags = append(diags, d...)
			file.Blocks = append(file.Blocks, v)
		case "step":
			v, d := decodeStepBlock(b)
			diags = append(diags, d...)
			file.Steps = append(file.Steps, v)
		case "output":
			v, d := decodeOutputBlock(b)
			diags = append(diags, d...)
			file.Outputs = append(file.Outputs, v)
		}
	}
	return file, diags
}

// DecodeBlockFile decodes a parsed block file: one or more block definitions.
func DecodeBlockFile(f *hcl.File) ([]*BlockDef, hcl.Diagnostics) {
	if f.Body == nil {
		return nil, nil
	}
	content, diags := f.Body.Content(blockFileSchema)
	var defs []*BlockDef
	for _, b := range content.Blocks {
		def, d := DecodeBlockDef(b)
		diags = append(diags, d...)
		defs = append(defs, def)
	}
	return defs, diags
}
