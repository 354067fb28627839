package thinkevent

import "github.com/zclconf/go-cty/cty"

// The stages (docs/design.md, "The thinker"). Each LLM stage's request is sent with a JSON schema
// whose name is the stage's name.
const (
	StageClarify     = "clarify"
	StageDecompose   = "decompose"
	StageSearch      = "search" // no LLM
	StageCreateBlock = "create_block"
	StageWire        = "wire"
	StageRepair      = "repair"
)

// StageExplain is the stage of flowctl explain's requests.
const StageExplain = "explain"

// BlockSpec is a block the intent needs, as the decompose stage describes
// it.
type BlockSpec struct {
	ID          string      `json:"id"`
	Description string      `json:"description"`
	Runtime     string      `json:"runtime"`
	Inputs      []FieldSpec `json:"inputs"`
	Outputs     []FieldSpec `json:"outputs"`
}

// FieldSpec is an input or output of a BlockSpec or of a created block:
// Type is an HCL type expression.
type FieldSpec struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description"`

	// Parsed is Type parsed, once the thinker checked the reply (a
	// cty.NilType before, and when Type is not a type expression).
	Parsed cty.Type `json:"-"`
}
