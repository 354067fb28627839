package lang

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// IsTestFile reports whether a path names a test file (*.test.hcl).
func IsTestFile(path string) bool { return strings.HasSuffix(path, ".test.hcl") }

// TestDef is a `test "NAME"` block of a test file: a run of a flow with
// some steps replaced, and what must hold afterwards.
type TestDef struct {
	Name      string
	NameRange hcl.Range
	DeclRange hcl.Range
	// Flow is the flow file the test runs, relative to the test file's
	// directory; empty when the directory holds one flow.
	Flow      string
	FlowRange hcl.Range
	// Inputs is the object of the flow's input values; nil for none.
	Inputs hcl.Expression
	// Secrets is the object of the flow's secret values (name → string),
	// so that a test needs no environment; nil for none.
	Secrets hcl.Expression
	// Mocks replace every step that uses a block, in the test's flow and
	// in the flows it uses, or those at or under a step path; Overrides
	// one step, by its path.
	Mocks     []*Replacement
	Overrides []*Replacement
	Asserts   []*Assert
	// ExpectFailures are the steps that must fail, as written.
	ExpectFailures []hcl.Traversal
	ExpectRange    hcl.Range
}

// Replacement is a mock "BLOCK" or override "step.PATH": what the steps
// it replaces give instead of running.
//
// A step path names a step of the tree of flows a test runs: a step of
// the test's flow ("fetch"), then, through a step that uses a flow, a
// step of that flow ("summarize.ask"), and so on; through an llm step,
// the flow tool it may call, then a step of that flow
// ("agent.lookup.fetch").
type Replacement struct {
	// Target is the block's name (a mock) or the step's path (an
	// override).
	Target      string
	TargetRange hcl.Range
	DeclRange   hcl.Range
	// Step, for a mock, is the step path it is confined to (its step
	// argument): the mock replaces that step, or the steps under it that
	// use the block; "" for every step that uses the block.
	Step      string
	StepRange hcl.Range
	// Outputs is an object expression over args (the step's arguments);
	// nil when Error is set.
	Outputs hcl.Expression
	// Error, when set, fails the step with it at once (no retries).
	Error      string
	ErrorRange hcl.Range
	HasError   bool
}

// Assert is a condition that must hold after the test's run.
type Assert struct {
	Condition    hcl.Expression
	ErrorMessage hcl.Expression
	DeclRange    hcl.Range
}

var testFileSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{{Type: "test", LabelNames: []string{"name"}}},
}

var testSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "flow"}, {Name: "inputs"}, {Name: "secrets"}, {Name: "expect_failures"}},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "mock", LabelNames: []string{"block"}},
		{Type: "override", LabelNames: []string{"step"}},
		{Type: "assert"},
	},
}

var replacementSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "outputs"}, {Name: "error"}},
}

var mockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "outputs"}, {Name: "error"}, {Name: "step"}},
}

var assertSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "condition", Required: true}, {Name: "error_message", Required: true}},
}

// DecodeTestFile decodes a parsed test file into its tests, as far as it
// can.
func DecodeTestFile(f *hcl.File) ([]*TestDef, hcl.Diagnostics) {
	if f == nil || f.Body == nil {
		return nil, nil
	}
	content, diags := f.Body.Content(testFileSchema)
	var out []*TestDef
	seen := map[string]hcl.Range{}
	for _, b := range content.Blocks {
		t, d := decodeTest(b)
		diags = append(diags, d...)
		if prev, ok := seen[t.Name]; ok {
			diags = append(diags, Error(t.NameRange, "Duplicate test",
				"A test named %s is already defined at %s.", quote(t.Name), prev)...)
			continue
		}
		seen[t.Name] = t.NameRange
		out = append(out, t)
	}
	return out, diags
}

func decodeTest(b *hcl.Block) (*TestDef, hcl.Diagnostics) {
	t := &TestDef{Name: b.Labels[0], NameRange: b.LabelRanges[0], DeclRange: b.DefRange}
	content, diags := b.Body.Content(testSchema)
	for _, a := range sortedAttributes(content.Attributes) {
		switch a.Name {
		case "flow":
			var d hcl.Diagnostics
			t.Flow, d = stringAttr(a)
			t.FlowRange = a.Expr.Range()
			diags = append(diags, d...)
		case "inputs":
			t.Inputs = a.Expr
		case "secrets":
			t.Secrets = a.Expr
		case "expect_failures":
			t.ExpectRange = a.Expr.Range()
			exprs, d := hcl.ExprList(a.Expr)
			diags = append(diags, d...)
			for _, e := range exprs {
				tr, d := hcl.AbsTraversalForExpr(e)
				if d.HasErrors() || len(tr) != 2 || tr.RootName() != "step" {
					diags = append(diags, Error(e.Range(), "Invalid expect_failures",
						"expect_failures lists steps, as step.NAME.")...)
					continue
				}
				t.ExpectFailures = append(t.ExpectFailures, tr)
			}
		}
	}
	for _, blk := range content.Blocks {
		switch blk.Type {
		case "mock", "override":
			r, d := decodeReplacement(blk)
			diags = append(diags, d...)
			if r == nil {
				continue
			}
			if blk.Type == "mock" {
				t.Mocks = append(t.Mocks, r)
			} else {
				t.Overrides = append(t.Overrides, r)
			}
		case "assert":
			c, d := blk.Body.Content(assertSchema)
			diags = append(diags, d...)
			if d.HasErrors() {
				continue
			}
			t.Asserts = append(t.Asserts, &Assert{
				Condition: c.Attributes["condition"].Expr, ErrorMessage: c.Attributes["error_message"].Expr, DeclRange: blk.DefRange,
			})
		}
	}
	return t, diags
}

func decodeReplacement(b *hcl.Block) (*Replacement, hcl.Diagnostics) {
	r := &Replacement{Target: b.Labels[0], TargetRange: b.LabelRanges[0], DeclRange: b.DefRange}
	var diags hcl.Diagnostics
	schema := mockSchema
	if b.Type == "override" {
		schema = replacementSchema
		path, ok := strings.CutPrefix(r.Target, "step.")
		if !ok || !ValidStepPath(path) {
			return nil, Error(r.TargetRange, "Invalid override",
				"An override names one step: override \"step.NAME\", or, in a flow a step uses, override \"step.NAME.NAME\" (its path), not %s.", quote(r.Target))
		}
		r.Target = path
	}
	content, d := b.Body.Content(schema)
	diags = append(diags, d...)
	if a, ok := content.Attributes["step"]; ok {
		r.Step, d = stringAttr(a)
		r.StepRange = a.Expr.Range()
		diags = append(diags, d...)
		if !d.HasErrors() && !ValidStepPath(r.Step) {
			diags = append(diags, Error(r.StepRange, "Invalid step path",
				"The step of a mock is a step's path: its name (\"ask\"), or, in a flow a step uses, the names from the test's flow down, joined by dots (\"summarize.ask\"); not %s.", quote(r.Step))...)
			r.Step = ""
		}
	}
	if a, ok := content.Attributes["outputs"]; ok {
		r.Outputs = a.Expr
	}
	if a, ok := content.Attributes["error"]; ok {
		r.Error, d = stringAttr(a)
		r.ErrorRange, r.HasError = a.Expr.Range(), true
		diags = append(diags, d...)
	}
	switch {
	case r.Outputs != nil && r.HasError:
		diags = append(diags, Error(r.ErrorRange, "Conflicting arguments",
			"A %s gives outputs or an error, not both.", b.Type)...)
	case r.Outputs == nil && !r.HasError:
		diags = append(diags, Error(b.DefRange, "Missing outputs",
			"A %s gives the step's outputs (outputs = { ... }) or makes it fail (error = \"...\").", b.Type)...)
	}
	return r, diags
}

// ValidStepPath reports whether path is a step path: step names joined
// by dots (see Replacement).
func ValidStepPath(path string) bool {
	if path == "" {
		return false
	}
	for _, name := range strings.Split(path, ".") {
		if !hclsyntax.ValidIdentifier(name) {
			return false
		}
	}
	return true
}
