package lang

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

var ctyString = cty.String

// Retry defaults (docs/design.md, "The language").
const (
	DefaultBackoff    = time.Second
	DefaultMaxBackoff = 30 * time.Second
)

// Runtimes a block definition may name.
const (
	RuntimeGo     = "go"
	RuntimeJS     = "js"
	RuntimePython = "python"
	RuntimeLLM    = "llm"
)

// Where code blocks run (the sandbox argument of a block, and flowctl's
// --sandbox flag).
const (
	SandboxIsolated  = "isolated"
	SandboxInProcess = "inprocess"
)

// How a go block's code runs (the engine argument of a go block, and
// flowctl's --go-engine flag): interpreted by yaegi, the default, or built
// by the Go toolchain into a program that runs as a sandbox worker.
const (
	EngineInterpreted = "interpreted"
	EngineCompiled    = "compiled"
)

// Engines lists the engines of go blocks, for messages and suggestions.
var Engines = []string{EngineInterpreted, EngineCompiled}

// Runtimes lists the runtimes, for messages and suggestions.
var Runtimes = []string{RuntimeGo, RuntimeJS, RuntimePython, RuntimeLLM}

// BlockDef is a `block "NAME"` definition, inline in a flow or in a block
// file: a typed function implemented in Go, JavaScript or as an LLM prompt.
type BlockDef struct {
	Name         string
	Description  string
	UseWhen      string
	Tags         []string
	Runtime      string
	RuntimeRange hcl.Range
	Timeout      *Duration
	Inputs       []*Field
	Outputs      []*Field

	// Source is the code of a go, js or python block, read from source_file when
	// that is given. SourceLine is the line of the file (SourceRange's file)
	// on which the code's first line stands, so that errors in the code can
	// be mapped to the file.
	Source      string
	SourceRange hcl.Range
	SourceLine  int
	SourceFile  string // the path given in source_file, if any
	// Sandbox is where a go or js block's code runs: SandboxIsolated
	// (worker processes, the default) or SandboxInProcess (inside flowctl,
	// for code that has been reviewed). Empty when not set.
	Sandbox string
	// Engine is how a go block's code runs: EngineInterpreted or
	// EngineCompiled. Empty when not set (interpreted).
	Engine      string
	EngineRange hcl.Range
	// Requirements are a python block's packages (docs/language.md,
	// "Dependencies"): PEP 508 requirements, locked by flowctl lock.
	Requirements      []string
	RequirementsRange hcl.Range
	// Packages are a js block's npm packages (name → semver range) and
	// Require a compiled go block's modules (path → version), locked by
	// flowctl lock (docs/language.md, "Dependencies").
	Packages      map[string]string
	PackagesRange hcl.Range
	Require       map[string]string
	RequireRange  hcl.Range

	Prompt      hcl.Expression // llm: template over input.*
	System      hcl.Expression // llm: optional template over input.*
	Model       string
	Temperature *float64
	MaxTokens   int
	// TopP, Seed and Stop are sent as given; nil and empty: not sent.
	TopP *float64
	Seed *int64
	Stop []string
	// ToolRefs, ToolsRange and MaxToolCalls are an llm block's tools, as
	// a step's (Step.ToolRefs): every step that uses the block may call
	// them.
	ToolRefs     []hcl.Traversal
	ToolsRange   hcl.Range
	MaxToolCalls int

	Examples  []*Example
	NameRange hcl.Range
	DeclRange hcl.Range
	// BodyRange covers the whole definition, header to closing brace: its
	// text identifies the definition's version for the result cache.
	BodyRange hcl.Range
}

// Field is an input or output of a block, or an output declared on a step.
type Field struct {
	Name    string
	Type    TypeSpec
	Default cty.Value // cty.NilVal: required (inputs) or not applicable
	// Optional is an output's `optional = true`: the block may return
	// null for it. Without it a null output fails the step.
	Optional    bool
	Description string
	// Enum are the values a string output of an llm block may take
	// (`enum = ["a", "b"]`); nil: any. A reply outside them is asked
	// again.
	Enum      []string
	EnumRange hcl.Range
	NameRange hcl.Range
	DeclRange hcl.Range
}

// Example is a block's `example`: inputs and the outputs they must give.
type Example struct {
	Input      cty.Value
	Output     cty.Value
	InputExpr  hcl.Expression
	OutputExpr hcl.Expression
	DeclRange  hcl.Range
}

var blockDefSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "description"}, {Name: "use_when"}, {Name: "tags"},
		{Name: "runtime", Required: true}, {Name: "timeout"},
		{Name: "source"}, {Name: "source_file"}, {Name: "sandbox"}, {Name: "engine"}, {Name: "requirements"}, {Name: "packages"}, {Name: "require"},
		{Name: "prompt"}, {Name: "system"},
		{Name: "model"}, {Name: "temperature"}, {Name: "max_tokens"},
		{Name: "top_p"}, {Name: "seed"}, {Name: "stop"},
		{Name: "tools"}, {Name: "max_tool_calls"},
	},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "input", LabelNames: []string{"name"}},
		{Type: "output", LabelNames: []string{"name"}},
		{Type: "example"},
	},
}

var inputFieldSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "type"}, {Name: "default"}, {Name: "description"}},
}

var outputFieldSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "type"}, {Name: "description"}, {Name: "optional"}, {Name: "enum"}},
}

var exampleSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "input", Required: true}, {Name: "output", Required: true}},
}

// DecodeBlockDef decodes one block definition.
func DecodeBlockDef(b *hcl.Block) (*BlockDef, hcl.Diagnostics) {
	def := &BlockDef{Name: b.Labels[0], NameRange: b.LabelRanges[0], DeclRange: b.DefRange, BodyRange: b.DefRange}
	if body, ok := b.Body.(*hclsyntax.Body); ok {
		def.BodyRange = hcl.RangeBetween(b.DefRange, body.SrcRange)
	}
	diags := checkName("block", def.Name, def.NameRange)
	content, d := b.Body.Content(blockDefSchema)
	diags = append(diags, d...)
	attrs := content.Attributes
	var sourceAttr, sourceFileAttr *hcl.Attribute
	for _, a := range sortedAttributes(attrs) {
		switch a.Name {
		case "description":
			def.Description, d = stringAttr(a)
		case "use_when":
			def.UseWhen, d = stringAttr(a)
		case "tags":
			def.Tags, d = stringListAttr(a)
		case "runtime":
			def.RuntimeRange = a.Expr.Range()
			def.Runtime, d = stringAttr(a)
			if !d.HasErrors() && !slices.Contains(Runtimes, def.Runtime) {
				d = Error(a.Expr.Range(), "Unknown runtime",
					"The runtime %s is not known; a block's runtime is \"go\", \"js\", \"python\" or \"llm\".%s",
					quote(def.Runtime), Suggest(def.Runtime, Runtimes))
			}
		case "timeout":
			var t Duration
			t, d = durationAttr(a)
			if !d.HasErrors() {
				def.Timeout = &t
			}
		case "source":
			sourceAttr = a
			def.Source, d = stringAttr(a)
			for _, diag := range d {
				if diag.Summary == "Variables not allowed" {
					diag.Detail += " Source code is an HCL template: write $${ for a literal ${ (as in a JavaScript template string) and %%{ for %{."
				}
			}
			def.SourceRange = a.Expr.Range()
			def.SourceLine = sourceFirstLine(a.Expr)
		case "source_file":
			sourceFileAttr = a
			def.SourceFile, d = stringAttr(a)
		case "sandbox":
			def.Sandbox, d = stringAttr(a)
			if !d.HasErrors() && def.Sandbox != SandboxIsolated && def.Sandbox != SandboxInProcess {
				d = Error(a.Expr.Range(), "Unknown sandbox",
					"The sandbox %s is not known; a code block runs \"isolated\" (in worker processes, the default) or \"inprocess\" (inside flowctl, for reviewed code).%s",
					quote(def.Sandbox), Suggest(def.Sandbox, []string{SandboxIsolated, SandboxInProcess}))
			}
		case "engine":
			def.EngineRange = a.Expr.Range()
			def.Engine, d = stringAttr(a)
			if !d.HasErrors() && def.Engine != EngineInterpreted && def.Engine != EngineCompiled {
				d = Error(a.Expr.Range(), "Unknown engine",
					"The engine %s is not known; a go block runs \"interpreted\" (by yaegi, the default) or \"compiled\" (built by the Go toolchain).%s",
					quote(def.Engine), Suggest(def.Engine, Engines))
			}
		case "prompt":
			def.Prompt = a.Expr
		case "system":
			def.System = a.Expr
		case "model":
			def.Model, d = stringAttr(a)
		case "temperature":
			var t float64
			t, d = numberAttr(a)
			if !d.HasErrors() {
				if t < 0 || t > 2 {
					d = Error(a.Expr.Range(), "Invalid temperature", "The temperature must be between 0 and 2; got %g.", t)
				} else {
					def.Temperature = &t
				}
			}
		case "max_tokens":
			def.MaxTokens, d = intAttr(a, 1)
		case "top_p":
			var p float64
			p, d = numberAttr(a)
			if !d.HasErrors() {
				if p < 0 || p > 1 {
					d = Error(a.Expr.Range(), "Invalid top_p", "The top_p must be between 0 and 1; got %g.", p)
				} else {
					def.TopP = &p
				}
			}
		case "seed":
			var v cty.Value
			v, d = constOf(a, cty.Number, "seed argument")
			if !d.HasErrors() {
				bf := v.AsBigFloat()
				if n, acc := bf.Int64(); !bf.IsInt() || acc != 0 {
					d = Error(a.Expr.Range(), "Invalid seed", "The seed must be a whole number that fits in 64 bits; got %s.", bf.Text('g', -1))
				} else {
					def.Seed = &n
				}
			}
		case "stop":
			def.Stop, d = stringListAttr(a)
		case "tools":
			def.ToolsRange = a.Expr.Range()
			def.ToolRefs, d = decodeTools(a)
		case "max_tool_calls":
			def.MaxToolCalls, d = intAttr(a, 1)
		case "requirements":
			d = def.decodeRequirements(a)
		case "packages":
			d = def.decodePackages(a)
		case "require":
			d = def.decodeRequire(a)
		}
		diags = append(diags, d...)
	}
	if sourceAttr != nil && sourceFileAttr != nil {
		diags = append(diags, Error(sourceFileAttr.Range, "Conflicting source arguments",
			"Block %s sets both source and source_file; give the code one way only.", quote(def.Name))...)
	} else if sourceFileAttr != nil && def.SourceFile != "" {
		diags = append(diags, def.readSourceFile(sourceFileAttr)...)
	}
	for _, blk := range content.Blocks {
		switch blk.Type {
		case "input":
			f, d := decodeField(blk, "input")
			diags = append(diags, d...)
			if IsMetaArgument(f.Name) {
				diags = append(diags, Error(f.NameRange, "Reserved input name",
					"The input name %s is a step meta-argument, so a step could not set it. Meta-arguments are %s.",
					quote(f.Name), strings.Join(MetaArguments, ", "))...)
			}
			def.Inputs = append(def.Inputs, f)
		case "output":
			f, d := decodeField(blk, "output")
			diags = append(diags, d...)
			def.Outputs = append(def.Outputs, f)
		case "example":
			ex, d := decodeExample(blk)
			diags = append(diags, d...)
			if ex != nil {
				def.Examples = append(def.Examples, ex)
			}
		}
	}
	diags = append(diags, checkDuplicateFields("input", def.Inputs)...)
	diags = append(diags, checkDuplicateFields("output", def.Outputs)...)
	diags = append(diags, def.checkRuntimeFields(attrs, b)...)
	return def, diags
}

// checkRuntimeFields reports arguments that the block's runtime needs but
// lacks, or has but does not use.
func (def *BlockDef) checkRuntimeFields(attrs hcl.Attributes, b *hcl.Block) hcl.Diagnostics {
	var diags hcl.Diagnostics
	switch def.Runtime {
	case RuntimeGo, RuntimeJS, RuntimePython:
		if _, ok := attrs["source"]; !ok {
			if _, ok := attrs["source_file"]; !ok {
				diags = append(diags, Error(def.RuntimeRange, "Missing source",
					"A block with runtime %s needs its code in source (or source_file).", quote(def.Runtime))...)
			}
		}
		if a, ok := attrs["requirements"]; ok && def.Runtime != RuntimePython {
			diags = append(diags, Error(a.NameRange, "Unexpected argument",
				"The requirements argument names the packages of python blocks; block %s has runtime %s.", quote(def.Name), quote(def.Runtime))...)
		}
		diags = append(diags, def.checkDependencyArgs(attrs)...)
		if a, ok := attrs["engine"]; ok && def.Runtime == RuntimeJS {
			diags = append(diags, Error(a.NameRange, "Unexpected argument",
				"The engine argument is only for blocks with runtime \"go\"; js blocks always run on goja.")...)
		}
		if a, ok := attrs["engine"]; ok && def.Runtime == RuntimePython {
			diags = append(diags, Error(a.NameRange, "Unexpected argument",
				"The engine argument is only for blocks with runtime \"go\"; python blocks always run on CPython.")...)
		}
		if a, ok := attrs["sandbox"]; ok && def.Runtime == RuntimePython && def.Sandbox == SandboxInProcess {
			diags = append(diags, Error(a.Expr.Range(), "Python runs isolated",
				"Block %s is a python block, which always runs in a confined sandbox worker process (CPython cannot be confined inside flowctl); remove sandbox = \"inprocess\".", quote(def.Name))...)
		}
		if a, ok := attrs["sandbox"]; ok && def.Engine == EngineCompiled && def.Sandbox == SandboxInProcess {
			diags = append(diags, Error(a.Expr.Range(), "Conflicting engine and sandbox",
				"Block %s is compiled, and a compiled go block always runs in a sandbox worker process of its own; remove sandbox = \"inprocess\" or the engine argument.", quote(def.Name))...)
		}
		for _, f := range def.Outputs {
			if f.Enum != nil {
				diags = append(diags, Error(f.EnumRange, "Unexpected enum",
					"An enum constrains what a model may reply, so it is only for the outputs of blocks with runtime \"llm\"; block %s has runtime %s.", quote(def.Name), quote(def.Runtime))...)
			}
		}
		for _, name := range []string{"prompt", "system", "model", "temperature", "max_tokens", "top_p", "seed", "stop", "tools", "max_tool_calls"} {
			if a, ok := attrs[name]; ok {
				diags = append(diags, Error(a.NameRange, "Unexpected argument",
					"The %s argument is only for blocks with runtime \"llm\"; block %s has runtime %s.", name, quote(def.Name), quote(def.Runtime))...)
			}
		}
	case RuntimeLLM:
		if a, ok := attrs["max_tool_calls"]; ok && def.ToolRefs == nil {
			diags = append(diags, Error(a.Range, "max_tool_calls without tools",
				"The max_tool_calls argument bounds the calls the model makes to its tools; block %s has no tools argument.", quote(def.Name))...)
		}
		if _, ok := attrs["prompt"]; !ok {
			diags = append(diags, Error(def.RuntimeRange, "Missing prompt",
				"A block with runtime \"llm\" needs a prompt: a template over its inputs, such as prompt = \"Summarize: ${input.text}\".")...)
		} else {
			diags = append(diags, def.checkPromptInputs()...)
		}
		if a, ok := attrs["engine"]; ok {
			diags = append(diags, Error(a.NameRange, "Unexpected argument",
				"The engine argument is only for blocks with runtime \"go\"; block %s has runtime \"llm\".", quote(def.Name))...)
		}
		for _, name := range []string{"source", "source_file", "sandbox", "requirements", "packages", "require"} {
			if a, ok := attrs[name]; ok {
				diags = append(diags, Error(a.NameRange, "Unexpected argument",
					"The %s argument is only for blocks with runtime \"go\", \"js\" or \"python\"; block %s has runtime \"llm\".", name, quote(def.Name))...)
			}
		}
	}
	return diags
}

// PromptIgnoresInputs is the summary of the warning for an llm block
// whose prompt and system message use none of its inputs.
const PromptIgnoresInputs = "Prompt does not use the inputs"

// placeholderRE finds {name} and {{name}} in a template's literal text:
// the placeholders of other template languages, which HCL leaves as they
// are.
var placeholderRE = regexp.MustCompile(`\{\{?\s*(?:input\.)?([A-Za-z_][A-Za-z0-9_]*)\s*\}\}?`)

// checkPromptInputs warns when an llm block has inputs and neither its
// prompt nor its system message refers to anything: the model would
// be asked without the data. Placeholders such as {text} or {{text}} for
// an input are named, with what to write instead.
func (def *BlockDef) checkPromptInputs() hcl.Diagnostics {
	if len(def.Inputs) == 0 || def.Prompt == nil {
		return nil
	}
	for _, expr := range []hcl.Expression{def.Prompt, def.System} {
		if expr == nil {
			continue
		}
		if len(expr.Variables()) > 0 {
			return nil // input.NAME, or a reference reported elsewhere
		}
	}
	inputs := map[string]bool{}
	var names []string
	for _, in := range def.Inputs {
		inputs[in.Name] = true
		names = append(names, in.Name)
	}
	detail := fmt.Sprintf("The prompt of block %s refers to none of its inputs (%s), so the model is asked without them.", quote(def.Name), strings.Join(names, ", "))
	if t, ok := def.Prompt.(*hclsyntax.TemplateExpr); ok {
		for _, part := range t.Parts {
			lit, ok := part.(*hclsyntax.LiteralValueExpr)
			if !ok || lit.Val.Type() != cty.String {
				continue
			}
			if m := placeholderRE.FindStringSubmatch(lit.Val.AsString()); m != nil && inputs[m[1]] {
				detail += fmt.Sprintf(" %s is plain text in an HCL template: write ${input.%s}.", m[0], m[1])
				return Warning(def.Prompt.Range(), PromptIgnoresInputs, "%s", detail)
			}
		}
	}
	detail += fmt.Sprintf(" Interpolate them, as in ${input.%s}.", names[0])
	return Warning(def.Prompt.Range(), PromptIgnoresInputs, "%s", detail)
}

func (def *BlockDef) readSourceFile(a *hcl.Attribute) hcl.Diagnostics {
	rel := def.SourceFile
	if filepath.IsAbs(rel) || !filepath.IsLocal(rel) {
		return Error(a.Expr.Range(), "Invalid source_file",
			"The source_file %s must be a relative path inside the directory of %s, with no \"..\" escapes.", quote(rel), a.Range.Filename)
	}
	path := filepath.Join(filepath.Dir(a.Range.Filename), rel)
	src, err := os.ReadFile(path)
	if err != nil {
		return Error(a.Expr.Range(), "Invalid source_file",
			"The source_file %s could not be read: %s.", quote(rel), unwrapPathError(err))
	}
	def.Source = string(src)
	def.SourceRange = hcl.Range{Filename: path, Start: hcl.InitialPos, End: hcl.InitialPos}
	def.SourceLine = 1
	return nil
}

// sourceFirstLine is the line on which a source string's first line stands:
// the line after "<<-GO" for a heredoc, the expression's own line otherwise.
func sourceFirstLine(expr hcl.Expression) int {
	line := expr.Range().Start.Line
	if t, ok := expr.(*hclsyntax.TemplateExpr); ok && len(t.Parts) > 0 {
		if first := t.Parts[0].Range().Start.Line; first > line {
			return first
		}
	}
	return line
}

func decodeField(b *hcl.Block, kind string) (*Field, hcl.Diagnostics) {
	f := &Field{Name: b.Labels[0], NameRange: b.LabelRanges[0], DeclRange: b.DefRange}
	schema := outputFieldSchema
	if kind == "input" {
		schema = inputFieldSchema
	}
	attrs, diags := decodeTyped(b, kind, schema, &f.Type, &f.Default, &f.Description)
	if a, ok := attrs["optional"]; ok {
		var d hcl.Diagnostics
		f.Optional, d = boolAttr(a)
		diags = append(diags, d...)
	}
	if a, ok := attrs["enum"]; ok {
		diags = append(diags, f.decodeEnum(a)...)
	}
	return f, diags
}

// decodeEnum reads an output's enum: the strings a string output may
// be, at least one, each once.
func (f *Field) decodeEnum(a *hcl.Attribute) hcl.Diagnostics {
	f.EnumRange = a.Expr.Range()
	values, diags := stringListAttr(a)
	if diags.HasErrors() {
		return diags
	}
	if f.Type.Type != cty.String {
		return Error(a.NameRange, "Invalid enum",
			"An enum lists the values of a string output; output %s is %s. Declare type = string.", quote(f.Name), FriendlyTypeName(f.Type.Type))
	}
	if len(values) == 0 {
		return Error(a.Expr.Range(), "Invalid enum", "An enum lists at least one value, such as enum = [\"yes\", \"no\"].")
	}
	for i, v := range values {
		if slices.Contains(values[:i], v) {
			return Error(a.Expr.Range(), "Invalid enum", "The enum lists %s twice.", quote(v))
		}
	}
	f.Enum = values
	return nil
}

func checkDuplicateFields(kind string, fields []*Field) hcl.Diagnostics {
	var diags hcl.Diagnostics
	seen := map[string]*Field{}
	for _, f := range fields {
		if prev, ok := seen[f.Name]; ok {
			diags = append(diags, Error(f.NameRange, "Duplicate "+kind,
				"An %s named %s was already declared at %s.", kind, quote(f.Name), RangeString(prev.NameRange))...)
			continue
		}
		seen[f.Name] = f
	}
	return diags
}

func decodeExample(b *hcl.Block) (*Example, hcl.Diagnostics) {
	content, diags := b.Body.Content(exampleSchema)
	if diags.HasErrors() {
		return nil, diags
	}
	ex := &Example{DeclRange: b.DefRange}
	in, out := content.Attributes["input"], content.Attributes["output"]
	ex.InputExpr, ex.OutputExpr = in.Expr, out.Expr
	var d hcl.Diagnostics
	ex.Input, d = constObject(in)
	diags = append(diags, d...)
	ex.Output, d = constObject(out)
	diags = append(diags, d...)
	if diags.HasErrors() {
		return nil, diags
	}
	return ex, diags
}

func constObject(a *hcl.Attribute) (cty.Value, hcl.Diagnostics) {
	v, diags := constValue(a.Expr)
	if diags.HasErrors() {
		return v, diags
	}
	if v.IsNull() || !(v.Type().IsObjectType() || v.Type().IsMapType()) {
		return cty.DynamicVal, Error(a.Expr.Range(), "Invalid example "+a.Name,
			"The example's %s must be an object of field values, such as { text = \"a b\" }.", a.Name)
	}
	return v, nil
}

// Required reports whether an input field has no default.
func (f *Field) Required() bool { return f.Default == cty.NilVal }

// ObjectItemRange returns the range of the item named key in an object
// constructor expression ({ key = value }): the value's range, or the key's
// when keyOnly is set. It falls back to the whole expression's range.
func ObjectItemRange(expr hcl.Expression, key string, keyOnly bool) hcl.Range {
	if obj, ok := expr.(*hclsyntax.ObjectConsExpr); ok {
		for _, item := range obj.Items {
			k, diags := item.KeyExpr.Value(nil)
			if diags.HasErrors() || k.Type() != cty.String || !k.IsKnown() || k.IsNull() || k.AsString() != key {
				continue
			}
			if keyOnly {
				return item.KeyExpr.Range()
			}
			return item.ValueExpr.Range()
		}
	}
	return expr.Range()
}

// Compiled reports whether a go block's code runs compiled, given the
// run's --go-engine (empty: each block's own engine).
func (def *BlockDef) Compiled(override string) bool {
	if def == nil || def.Runtime != RuntimeGo {
		return false
	}
	if override != "" {
		return override == EngineCompiled
	}
	return def.Engine == EngineCompiled
}
