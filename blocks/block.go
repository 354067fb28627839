package blocks

import (
	"fmt"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// RuntimeBuiltin is the runtime of the built-in blocks.
const RuntimeBuiltin = "builtin"

// RuntimeFlow is the runtime of a step's block that is a flow (use =
// "flow.NAME"), which the runtime runs as a run of its own.
const RuntimeFlow = "flow"

// Block is a block kind a step can use.
type Block struct {
	Name        string
	Runtime     string // RuntimeBuiltin, lang.RuntimeGo, lang.RuntimeJS or lang.RuntimeLLM
	Description string
	UseWhen     string
	Tags        []string
	Inputs      []*lang.Field
	Outputs     []*lang.Field

	// OpenOutputs lets a step declare extra typed output fields with
	// `output` blocks (the llm built-in).
	OpenOutputs bool
	// TypedOutputs are outputs of type any whose type a step may declare
	// with an `output` block (http's body), checked downstream by the
	// compiler and at run time.
	TypedOutputs []string
	// CacheDefault is whether a step's result is reused when its block and
	// inputs are unchanged, unless the step says otherwise (docs/design.md, "State and cache").
	CacheDefault bool
	// PropagatesSensitive marks the outputs sensitive when any input is: the
	// block's code could echo its inputs (docs/design.md, "Secrets").
	PropagatesSensitive bool
	// OutputTypeFrom maps an output to the input whose value type it has
	// (the value built-in returns its input unchanged).
	OutputTypeFrom map[string]string
	// Remote is what outside the machine a built-in calls when it runs
	// (RemoteModel, RemoteNetwork, RemoteMCP); "" for one that stays on
	// it. Reaches reads it, and adds user blocks of the llm runtime.
	Remote Remote
	// PlanTime is whether plan computes a step of the built-in that
	// would run, when its inputs are known, so that the steps after it
	// plan with its value: only for blocks that stay on the machine,
	// change nothing, and give the same result for the same inputs
	// (document, chunk), so that plan can count embed's texts.
	PlanTime bool

	// Checks validate input values beyond their types; the compiler runs
	// them on values known at compile time, the runtime on every value.
	Checks map[string]func(cty.Value) error

	// Def is the definition of a user block; nil for built-ins.
	Def *lang.BlockDef
}

// CheckInput runs the block's check for an input on a known, non-null value
// of the input's type.
func (b *Block) CheckInput(name string, v cty.Value) error {
	if check := b.Checks[name]; check != nil && v.IsWhollyKnown() && !v.IsNull() {
		return check(v)
	}
	return nil
}

// CheckNull returns the error for v, a value of output f of b, when it is
// null and may not be: the outputs declared in a flow file (those of a
// block defined there, and those a step declares for the llm built-in) are
// not null unless declared `optional = true`. The outputs of the
// built-ins and of sub-flows are what their definitions say, null
// included, and so are those a runtime adds to a block (an llm block's text
// and usage, which a test's mock may leave out).
func (b *Block) CheckNull(f *lang.Field, v cty.Value) error {
	if !v.IsNull() || f.Optional {
		return nil
	}
	if b.Def == nil && b.Output(f.Name) != nil || b.Def != nil && findField(b.Def.Outputs, f.Name) == nil {
		return nil // a built-in's, or one its runtime adds (an llm block's text and usage)
	}
	return fmt.Errorf("output %q of block %q is null, and the output is not optional (declare it with optional = true when the block may return no value)",
		f.Name, b.Name)
}

// Remote is what outside the machine a block calls: what a flow test
// without --live refuses to run unmocked, at any depth.
type Remote string

// The kinds of Remote.
const (
	RemoteModel   Remote = "model"   // a language model's provider
	RemoteNetwork Remote = "network" // any host on the network
	RemoteMCP     Remote = "mcp"     // an MCP server's tool
)

// Reaches is what outside the machine a block calls when it runs: its
// Remote for a built-in, a model for a user block of the llm runtime,
// "" for the others (code blocks run confined, without the network).
func (b *Block) Reaches() Remote {
	if b.Runtime == lang.RuntimeLLM {
		return RemoteModel
	}
	return b.Remote
}

// Builtin reports whether b is a built-in block.
func (b *Block) Builtin() bool { return b.Runtime == RuntimeBuiltin }

// IsLLM reports whether steps of b are llm steps, which alone may call
// tools: the llm built-in and blocks of runtime llm.
func (b *Block) IsLLM() bool { return b.Runtime == lang.RuntimeLLM || (b.Builtin() && b.Name == "llm") }

// DeclRange is where the block is defined; empty for built-ins.
func (b *Block) DeclRange() hcl.Range {
	if b.Def == nil {
		return hcl.Range{}
	}
	return b.Def.DeclRange
}

// Input returns the input named name, or nil.
func (b *Block) Input(name string) *lang.Field { return findField(b.Inputs, name) }

// Output returns the output named name, or nil.
func (b *Block) Output(name string) *lang.Field { return findField(b.Outputs, name) }

// InputNames lists the block's input names in declaration order.
func (b *Block) InputNames() []string { return fieldNames(b.Inputs) }

// OutputNames lists the block's output names in declaration order.
func (b *Block) OutputNames() []string { return fieldNames(b.Outputs) }

// InputType is the object type of all the block's inputs.
func (b *Block) InputType() cty.Type { return ObjectType(b.Inputs) }

// OutputType is the object type of all the block's outputs.
func (b *Block) OutputType() cty.Type { return ObjectType(b.Outputs) }

// ObjectType is the object type with an attribute per field.
func ObjectType(fields []*lang.Field) cty.Type {
	attrs := make(map[string]cty.Type, len(fields))
	for _, f := range fields {
		attrs[f.Name] = f.Type.Type
	}
	return cty.Object(attrs)
}

func findField(fields []*lang.Field, name string) *lang.Field {
	for _, f := range fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

func fieldNames(fields []*lang.Field) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.Name
	}
	return out
}

// MergeOutputs returns base with extra added; an extra field replaces a base
// field of the same name (CheckReservedOutputs reports such names).
func MergeOutputs(base, extra []*lang.Field) []*lang.Field {
	if len(extra) == 0 {
		return base
	}
	out := make([]*lang.Field, 0, len(base)+len(extra))
	for _, f := range base {
		if findField(extra, f.Name) == nil {
			out = append(out, f)
		}
	}
	return append(out, extra...)
}
