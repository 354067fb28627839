package lang

import (
	"io/fs"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// File is a decoded flow file. A valid flow file has exactly one Flow; the
// compiler reports files with none or several.
type File struct {
	Filename string
	Flows    []*Flow
	Inputs   []*Input
	Secrets  []*Secret
	Locals   []*Local
	Memories []*Memory
	Blocks   []*BlockDef
	Steps    []*Step
	Outputs  []*Output
	// Schedules are when flowctl serve starts runs of the flow.
	Schedules []*Schedule
	// Triggers are the webhooks and the ends of other flows' runs that
	// start runs of the flow in flowctl serve.
	Triggers []*Trigger
	// MCPServers are the MCP servers whose tools steps may call.
	MCPServers []*MCPServer
	// Providers are the model servers llm steps may name.
	Providers []*Provider
	// Collections are the vector collections vector steps may name.
	Collections []*Collection
	// Limits are the per-key limits on the flow's runs.
	Limits Limits
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
		{Type: "schedule", LabelNames: []string{"name"}},
		{Type: "trigger", LabelNames: []string{"name"}},
		{Type: "mcp_server", LabelNames: []string{"name"}},
		{Type: "provider", LabelNames: []string{"name"}},
		{Type: "collection", LabelNames: []string{"name"}},
		{Type: "concurrency"},
		{Type: "rate_limit"},
		{Type: "debounce"},
	},
}

// TopLevelBlocks are the block types of a flow file, in the docs' order.
func TopLevelBlocks() []string {
	var out []string
	for _, b := range flowFileSchema.Blocks {
		out = append(out, b.Type)
	}
	return out
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
	return decodeFlowFile(f, filename, false)
}

// ConsumeFlowFile is DecodeFlowFile for a file whose syntax tree nothing
// else reads (Parser.ReleaseFile): each step block's tree is dropped once
// the step is decoded, so that for a flow of thousands of steps the trees
// and the steps decoded from them are not all in memory at once.
func ConsumeFlowFile(f *hcl.File, filename string) (*File, hcl.Diagnostics) {
	return decodeFlowFile(f, filename, true)
}

func decodeFlowFile(f *hcl.File, filename string, consume bool) (*File, hcl.Diagnostics) {
	file := &File{Filename: filename}
	if f.Body == nil {
		return file, nil
	}
	content, diags := f.Body.Content(flowFileSchema)
	if body, ok := f.Body.(*hclsyntax.Body); ok && consume {
		// The blocks' bodies are now reached through content alone.
		body.Blocks = nil
	}
	steps := decodeStepBlocks(content.Blocks, consume)
	for i, b := range content.Blocks {
		switch b.Type {
		case "flow":
			file.Flows = collect(file.Flows, &diags)(decodeFlowBlock(b))
		case "input":
			file.Inputs = collect(file.Inputs, &diags)(decodeInputBlock(b))
		case "secret":
			file.Secrets = collect(file.Secrets, &diags)(decodeSecretBlock(b))
		case "locals":
			file.Locals = collectAll(file.Locals, &diags)(decodeLocalsBlock(b))
		case "memory":
			file.Memories = collect(file.Memories, &diags)(decodeMemoryBlock(b))
		case "block":
			file.Blocks = collect(file.Blocks, &diags)(DecodeBlockDef(b))
		case "step":
			file.Steps = collect(file.Steps, &diags)(steps[i].step, steps[i].diags)
		case "output":
			file.Outputs = collect(file.Outputs, &diags)(decodeOutputBlock(b))
		case "schedule":
			file.Schedules = collect(file.Schedules, &diags)(decodeScheduleBlock(b))
		case "trigger":
			file.Triggers = collect(file.Triggers, &diags)(decodeTriggerBlock(b))
		case "mcp_server":
			file.MCPServers = collect(file.MCPServers, &diags)(decodeMCPServerBlock(b))
		case "provider":
			file.Providers = collect(file.Providers, &diags)(decodeProviderBlock(b))
		case "collection":
			file.Collections = collect(file.Collections, &diags)(decodeCollectionBlock(b))
		case "concurrency", "rate_limit", "debounce":
			diags = append(diags, decodeLimitBlock(&file.Limits, b)...)
		}
	}
	return file, diags
}

// parallelStepsMin is how many step blocks a flow file has before
// decodeStepBlocks decodes them on every processor.
const parallelStepsMin = 512

type decodedStep struct {
	step  *Step
	diags hcl.Diagnostics
}

// decodeStepBlocks decodes the step blocks of blocks, by index (the
// others' entries are empty): a step block's decoding reads only its
// own block, so a flow of thousands of steps decodes them on every
// processor. consume drops each step block's body once it is decoded.
func decodeStepBlocks(blocks hcl.Blocks, consume bool) []decodedStep {
	out := make([]decodedStep, len(blocks))
	var idx []int
	for i, b := range blocks {
		if b.Type == "step" {
			idx = append(idx, i)
		}
	}
	decode := func(k int) {
		i := idx[k]
		out[i].step, out[i].diags = decodeStepBlock(blocks[i])
		if consume {
			blocks[i].Body = nil
		}
	}
	if len(idx) < parallelStepsMin {
		for k := range idx {
			decode(k)
		}
	} else {
		onEveryProcessor(len(idx), decode)
	}
	return out
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

// collect appends a decoded item to a list and its diagnostics to diags.
func collect[T any](list []T, diags *hcl.Diagnostics) func(T, hcl.Diagnostics) []T {
	return func(v T, d hcl.Diagnostics) []T {
		*diags = append(*diags, d...)
		return append(list, v)
	}
}

// collectAll is collect for a decoder that yields several items.
func collectAll[T any](list []T, diags *hcl.Diagnostics) func([]T, hcl.Diagnostics) []T {
	return func(v []T, d hcl.Diagnostics) []T {
		*diags = append(*diags, d...)
		return append(list, v...)
	}
}

// PathError is the diagnostic of a path that cannot be read: a file or
// directory named on a command line, or an input file, that is missing or
// not readable.
func PathError(path string, err error) *hcl.Diagnostic {
	reason := err.Error()
	if pe, ok := err.(*fs.PathError); ok {
		reason = pe.Err.Error()
	}
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Cannot read path",
		Detail:   "The path " + path + " cannot be read: " + reason + ".",
	}
}
