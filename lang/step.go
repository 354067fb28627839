package lang

import (
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// MetaArguments are the step arguments that are not block inputs. No block
// may declare an input with one of these names.
var MetaArguments = []string{
	"use", "description", "depends_on", "when", "for_each", "parallelism",
	"timeout", "retry", "cache", "on_error", "output", "tools", "max_tool_calls",
	"tool_inputs",
	"provider", "collection", "on_timeout",
}

// IsMetaArgument reports whether name is one of MetaArguments.
func IsMetaArgument(name string) bool {
	for _, m := range MetaArguments {
		if m == name {
			return true
		}
	}
	return false
}

// Step is a `step "NAME"` block: one use of a block, with its inputs given as
// expressions and its meta-arguments.
type Step struct {
	Name        string
	Use         string
	UseRange    hcl.Range
	Description string
	DependsOn   []hcl.Traversal // each a step.NAME reference
	When        hcl.Expression  // nil when absent
	ForEach     hcl.Expression  // nil when absent
	Parallelism int             // 0: no limit of its own
	Timeout     *Duration       // per attempt; nil: the block's default
	Retry       *Retry
	Cache       *bool // nil: the block's default
	OnError     string
	// Tools are what an llm step may call (`tools`): each a flow.NAME or
	// block.NAME reference; MaxToolCalls bounds the calls (0: the
	// default, DefaultMaxToolCalls).
	ToolRefs     []hcl.Traversal
	ToolsRange   *hcl.Range // nil without tools
	MaxToolCalls int
	// ToolInputs (`tool_inputs`) name, for a flow tool, the inputs with a
	// default that the model may give too; the model sees only a flow's
	// inputs without a default otherwise.
	ToolInputs []*ToolInputs
	// ProviderRef is an llm step's provider = provider.NAME; nil: the
	// environment's provider.
	ProviderRef   hcl.Traversal
	ProviderRange hcl.Range
	// CollectionRef is a vector step's collection = collection.NAME; nil
	// when the step names none.
	CollectionRef   hcl.Traversal
	CollectionRange hcl.Range
	// ApprovalInputs are the `input "NAME"` fields of an approval step,
	// which the person deciding fills in (approval.go); OnTimeout is what
	// a timed-out approval does (`on_timeout`), "" when not said.
	ApprovalInputs []*Field
	OnTimeout      string
	OnTimeoutRange hcl.Range
	Outputs        []*Field         // declared output fields (blocks with open outputs only)
	OutputRange    *hcl.Range       // the first output block, for "not allowed here"; nil without one
	Args           []*hcl.Attribute // the block inputs, in source order
	NameRange      hcl.Range
	DeclRange      hcl.Range
	// SrcEnd is the byte offset just past the block's closing brace: the
	// block's source is from DeclRange.Start to there.
	SrcEnd int
}

// Arg returns the step's argument (block input) name, nil when the step
// does not set it.
func (s *Step) Arg(name string) *hcl.Attribute {
	for _, a := range s.Args {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// OnError values.
const (
	OnErrorFail     = "fail"
	OnErrorContinue = "continue"
)

// Retry is a step's `retry` block.
type Retry struct {
	Attempts   int
	Backoff    Duration
	MaxBackoff Duration
	DeclRange  hcl.Range
}

var stepMetaSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "use", Required: true},
		{Name: "description"},
		{Name: "depends_on"},
		{Name: "when"},
		{Name: "for_each"},
		{Name: "parallelism"},
		{Name: "timeout"},
		{Name: "cache"},
		{Name: "on_error"},
		{Name: "tools"},
		{Name: "max_tool_calls"},
		{Name: "tool_inputs"},
		{Name: "provider"},
		{Name: "collection"},
		{Name: "on_timeout"},
	},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "retry"},
		{Type: "output", LabelNames: []string{"name"}},
		{Type: "input", LabelNames: []string{"name"}},
	},
}

var retryBlockSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "attempts"}, {Name: "backoff"}, {Name: "max_backoff"}},
}

func decodeStepBlock(b *hcl.Block) (*Step, hcl.Diagnostics) {
	s := &Step{
		Name: b.Labels[0], NameRange: b.LabelRanges[0], DeclRange: b.DefRange,
		OnError: OnErrorFail, SrcEnd: b.DefRange.End.Byte,
	}
	if body, ok := b.Body.(*hclsyntax.Body); ok {
		s.SrcEnd = body.SrcRange.End.Byte
	}
	diags := checkName("step", s.Name, s.NameRange)
	content, _, d := b.Body.PartialContent(stepMetaSchema)
	diags = append(diags, d...)
	attrs := content.Attributes

	if a, ok := attrs["use"]; ok {
		s.UseRange = a.Expr.Range()
		v, d := constValue(a.Expr)
		if d.HasErrors() || v.IsNull() || !v.IsKnown() || !v.Type().Equals(ctyString) {
			diags = append(diags, Error(a.Expr.Range(), "Invalid use",
				"The use argument must be a string literal naming a built-in or registry block, such as use = \"http\".")...)
		} else {
			s.Use = v.AsString()
		}
	}
	if a, ok := attrs["description"]; ok {
		s.Description, d = stringAttr(a)
		diags = append(diags, d...)
	}
	if a, ok := attrs["depends_on"]; ok {
		s.DependsOn, d = decodeDependsOn(a)
		diags = append(diags, d...)
	}
	if a, ok := attrs["when"]; ok {
		s.When = a.Expr
	}
	if a, ok := attrs["tools"]; ok {
		s.ToolsRange = a.Expr.Range().Ptr()
		s.ToolRefs, d = decodeTools(a)
		diags = append(diags, d...)
	}
	if a, ok := attrs["max_tool_calls"]; ok {
		s.MaxToolCalls, d = intAttr(a, 1)
		diags = append(diags, d...)
		if s.ToolRefs == nil && !d.HasErrors() {
			diags = append(diags, Error(a.Range, "max_tool_calls without tools",
				"The max_tool_calls argument bounds the calls an llm step makes to its tools; step %s has no tools argument.", quote(s.Name))...)
		}
	}
	if a, ok := attrs["tool_inputs"]; ok {
		s.ToolInputs, d = decodeToolInputs(a)
		diags = append(diags, d...)
		if s.ToolRefs == nil && !d.HasErrors() {
			diags = append(diags, Error(a.NameRange, "tool_inputs without tools",
				"The tool_inputs argument names inputs of the flows an llm step's model may call; step %s has no tools argument.", quote(s.Name))...)
		}
	}
	if a, ok := attrs["provider"]; ok {
		s.ProviderRange = a.Expr.Range()
		s.ProviderRef, d = decodeProviderRef(a)
		diags = append(diags, d...)
	}
	if a, ok := attrs["collection"]; ok {
		s.CollectionRange = a.Expr.Range()
		s.CollectionRef, d = decodeCollectionRef(a)
		diags = append(diags, d...)
	}
	if a, ok := attrs["for_each"]; ok {
		s.ForEach = a.Expr
	}
	if a, ok := attrs["on_timeout"]; ok {
		diags = append(diags, s.decodeOnTimeout(a)...)
	}
	if a, ok := attrs["parallelism"]; ok {
		s.Parallelism, d = intAttr(a, 1)
		diags = append(diags, d...)
		if s.ForEach == nil && !d.HasErrors() {
			diags = append(diags, Error(a.Range, "Parallelism without for_each",
				"The parallelism argument limits how many instances of a for_each step run at once; step %s has no for_each.", quote(s.Name))...)
		}
	}
	if a, ok := attrs["timeout"]; ok {
		t, d := durationAttr(a)
		diags = append(diags, d...)
		if !d.HasErrors() {
			s.Timeout = &t
		}
	}
	if a, ok := attrs["cache"]; ok {
		c, d := boolAttr(a)
		diags = append(diags, d...)
		if !d.HasErrors() {
			s.Cache = &c
		}
	}
	if a, ok := attrs["on_error"]; ok {
		v, d := stringAttr(a)
		diags = append(diags, d...)
		if !d.HasErrors() {
			if v != OnErrorFail && v != OnErrorContinue {
				diags = append(diags, Error(a.Expr.Range(), "Invalid on_error",
					"The on_error argument must be \"fail\" or \"continue\", not %s.%s", quote(v),
					Suggest(v, []string{OnErrorFail, OnErrorContinue}))...)
			} else {
				s.OnError = v
			}
		}
	}
	for _, blk := range content.Blocks {
		switch blk.Type {
		case "retry":
			if s.Retry != nil {
				diags = append(diags, Error(blk.DefRange, "Duplicate retry block",
					"Step %s already has a retry block at %s; a step takes at most one.", quote(s.Name), RangeString(s.Retry.DeclRange))...)
				continue
			}
			s.Retry, d = decodeRetryBlock(blk)
			diags = append(diags, d...)
		case "output":
			if len(s.Outputs) == 0 {
				s.OutputRange = blk.DefRange.Ptr()
			}
			f, d := decodeField(blk, "output")
			diags = append(diags, d...)
			s.Outputs = append(s.Outputs, f)
		case "input":
			f, d := decodeField(blk, "input")
			diags = append(diags, d...)
			s.ApprovalInputs = append(s.ApprovalInputs, f)
		}
	}
	diags = append(diags, checkDuplicateFields("output", s.Outputs)...)
	diags = append(diags, checkDuplicateFields("input", s.ApprovalInputs)...)

	s.Args, d = stepArguments(b.Body)
	diags = append(diags, d...)
	return s, diags
}

// stepArguments returns the attributes of a step body that are not
// meta-arguments (the block's inputs), and reports nested blocks other than
// retry and output.
func stepArguments(body hcl.Body) ([]*hcl.Attribute, hcl.Diagnostics) {
	syn, ok := body.(*hclsyntax.Body)
	if !ok {
		return nil, nil
	}
	var diags hcl.Diagnostics
	attrs := hcl.Attributes{}
	for name, a := range syn.Attributes {
		switch {
		case name == "retry" || name == "output" || name == "input":
			diags = append(diags, Error(a.NameRange, "Unsupported argument",
				"%s is a nested block, not an argument: write %s without the equals sign.", quote(name), blockExample(name))...)
		case !IsMetaArgument(name):
			attrs[name] = a.AsHCLAttribute()
		}
	}
	for _, blk := range syn.Blocks {
		if blk.Type == "retry" || blk.Type == "output" || blk.Type == "input" {
			continue
		}
		diags = append(diags, Error(blk.TypeRange, "Unsupported block type",
			"Blocks of type %s are not expected in a step; a step takes only retry, output and (an approval step) input blocks.%s",
			quote(blk.Type), Suggest(blk.Type, []string{"retry", "output", "input"}))...)
	}
	return sortedAttributes(attrs), diags
}

func decodeRetryBlock(b *hcl.Block) (*Retry, hcl.Diagnostics) {
	r := &Retry{Attempts: 1, DeclRange: b.DefRange}
	r.Backoff.Duration = DefaultBackoff
	r.MaxBackoff.Duration = DefaultMaxBackoff
	content, diags := b.Body.Content(retryBlockSchema)
	var d hcl.Diagnostics
	if a, ok := content.Attributes["attempts"]; ok {
		r.Attempts, d = intAttr(a, 1)
		diags = append(diags, d...)
	}
	if a, ok := content.Attributes["backoff"]; ok {
		r.Backoff, d = durationAttr(a)
		diags = append(diags, d...)
	}
	maxAttr, hasMax := content.Attributes["max_backoff"]
	if !hasMax && r.Backoff.Duration > r.MaxBackoff.Duration {
		r.MaxBackoff.Duration = r.Backoff.Duration // the default cap never lowers a given backoff
	}
	if a, ok := maxAttr, hasMax; ok {
		r.MaxBackoff, d = durationAttr(a)
		diags = append(diags, d...)
		if !d.HasErrors() && r.MaxBackoff.Duration < r.Backoff.Duration {
			diags = append(diags, Error(a.Expr.Range(), "Invalid max_backoff",
				"The max_backoff (%s) must not be shorter than the backoff (%s).", r.MaxBackoff.Duration, r.Backoff.Duration)...)
		}
	}
	return r, diags
}

func decodeDependsOn(a *hcl.Attribute) ([]hcl.Traversal, hcl.Diagnostics) {
	exprs, diags := hcl.ExprList(a.Expr)
	if diags.HasErrors() {
		return nil, Error(a.Expr.Range(), "Invalid depends_on",
			"The depends_on argument must be a list of step references, such as [step.fetch].")
	}
	var out []hcl.Traversal
	for _, e := range exprs {
		tr, d := hcl.AbsTraversalForExpr(e)
		if d.HasErrors() || tr.RootName() != RootStep || len(tr) != 2 {
			diags = append(diags, Error(e.Range(), "Invalid depends_on entry",
				"Each depends_on entry must be a reference to a whole step, such as step.fetch, with no attributes or keys after it.")...)
			continue
		}
		if _, ok := tr[1].(hcl.TraverseAttr); !ok {
			diags = append(diags, Error(e.Range(), "Invalid depends_on entry",
				"Each depends_on entry must be a reference to a whole step, such as step.fetch.")...)
			continue
		}
		out = append(out, tr)
	}
	return out, diags
}

// DefaultMaxToolCalls is how many tool calls an llm step may make when
// it does not say (max_tool_calls).
const DefaultMaxToolCalls = 10

// Roots of the references in a tools argument.
const (
	ToolFlow  = "flow"
	ToolBlock = "block"
	ToolMCP   = "mcp" // mcp.SERVER.TOOL
)

// decodeTools reads a tools argument: a list of flow.NAME and block.NAME
// references, which name flows and blocks rather than values.
func decodeTools(a *hcl.Attribute) ([]hcl.Traversal, hcl.Diagnostics) {
	exprs, diags := hcl.ExprList(a.Expr)
	if diags.HasErrors() {
		return nil, Error(a.Expr.Range(), "Invalid tools",
			"The tools argument must be a list of flows and blocks, such as [flow.search_docs, block.word_count].")
	}
	out := []hcl.Traversal{}
	for _, e := range exprs {
		tr, d := hcl.AbsTraversalForExpr(e)
		want := 2
		if tr.RootName() == ToolMCP {
			want = 3
		}
		ok := !d.HasErrors() && len(tr) == want
		for i := 1; ok && i < len(tr); i++ {
			_, ok = tr[i].(hcl.TraverseAttr)
		}
		if !ok || (tr.RootName() != ToolFlow && tr.RootName() != ToolBlock && tr.RootName() != ToolMCP) {
			diags = append(diags, Error(e.Range(), "Invalid tool",
				"Each tool must be flow.NAME (a flow in this flow's directory or a registry), block.NAME (a built-in or registry block) or mcp.SERVER.TOOL (a tool of an mcp_server of the flow), such as flow.search_docs.")...)
			continue
		}
		out = append(out, tr)
	}
	return out, diags
}

// ToolInputs is one entry of a step's tool_inputs: the flow tool Tool,
// and the inputs with a default its model may give as well.
type ToolInputs struct {
	Tool        string
	ToolRange   hcl.Range
	Inputs      []string
	InputRanges []hcl.Range
}

// decodeToolInputs decodes tool_inputs = { TOOL = ["INPUT", ...], ... }:
// an object whose keys are tool names and whose values are lists of
// string literals.
func decodeToolInputs(a *hcl.Attribute) ([]*ToolInputs, hcl.Diagnostics) {
	invalid := func(rng hcl.Range) hcl.Diagnostics {
		return Error(rng, "Invalid tool_inputs",
			"The tool_inputs argument must be an object of a flow tool's name and the list of its inputs the model may give, such as { search_docs = [\"limit\"] }.")
	}
	pairs, diags := hcl.ExprMap(a.Expr)
	if diags.HasErrors() {
		return nil, invalid(a.Expr.Range())
	}
	var out []*ToolInputs
	seen := map[string]bool{}
	for _, kv := range pairs {
		name := hcl.ExprAsKeyword(kv.Key)
		if name == "" {
			if v, d := constValue(kv.Key); !d.HasErrors() && v.IsKnown() && !v.IsNull() && v.Type().Equals(ctyString) {
				name = v.AsString()
			}
		}
		if name == "" {
			diags = append(diags, invalid(kv.Key.Range())...)
			continue
		}
		if seen[name] {
			diags = append(diags, Error(kv.Key.Range(), "Duplicate tool_inputs entry",
				"The tool_inputs argument already names the inputs of tool %s.", quote(name))...)
			continue
		}
		seen[name] = true
		ti := &ToolInputs{Tool: name, ToolRange: kv.Key.Range()}
		exprs, d := hcl.ExprList(kv.Value)
		if d.HasErrors() {
			diags = append(diags, invalid(kv.Value.Range())...)
			continue
		}
		for _, e := range exprs {
			v, d := constValue(e)
			if d.HasErrors() || !v.IsKnown() || v.IsNull() || !v.Type().Equals(ctyString) {
				diags = append(diags, Error(e.Range(), "Invalid tool_inputs entry",
					"Each input in tool_inputs is the name of an input of the flow as a string literal, such as \"limit\".")...)
				continue
			}
			ti.Inputs = append(ti.Inputs, v.AsString())
			ti.InputRanges = append(ti.InputRanges, e.Range())
		}
		out = append(out, ti)
	}
	return out, diags
}

// sortedAttributes returns attributes in source order.
func sortedAttributes(attrs hcl.Attributes) []*hcl.Attribute {
	out := make([]*hcl.Attribute, 0, len(attrs))
	for _, a := range attrs {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Range.Filename != out[j].Range.Filename {
			return out[i].Range.Filename < out[j].Range.Filename
		}
		return out[i].Range.Start.Byte < out[j].Range.Start.Byte
	})
	return out
}

func blockExample(name string) string {
	switch name {
	case "output":
		return `output "NAME" { type = ... }`
	case "input":
		return `input "NAME" { type = ... }`
	}
	return "retry { attempts = 3 }"
}

// decodeProviderRef reads a step's provider argument: provider.NAME, a
// reference to a provider block of the flow.
func decodeProviderRef(a *hcl.Attribute) (hcl.Traversal, hcl.Diagnostics) {
	tr, d := hcl.AbsTraversalForExpr(a.Expr)
	if !d.HasErrors() && tr.RootName() == RootProvider && len(tr) == 2 {
		if _, ok := tr[1].(hcl.TraverseAttr); ok {
			return tr, nil
		}
	}
	return nil, Error(a.Expr.Range(), "Invalid provider",
		"The provider of an llm step is a reference to a provider block of the flow, such as provider = provider.local, not a value of another kind.")
}
