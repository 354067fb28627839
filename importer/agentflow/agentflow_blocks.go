package agentflow

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/importer"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// AgentFlow's blocks: the registry's definitions, written as block files
// (llm blocks with their prompt; python blocks with their code).

// readBlocks reads the registry's definitions: each file holds one or a
// list of them.
func (a *agentflow) readBlocks(registry []*importer.Source) {
	used := map[string]bool{}
	for _, b := range blocks.Builtins() {
		used[b.Name] = true
	}
	for _, src := range registry {
		defs := []*importer.JV{src.Root}
		if src.Root.Kind == 'a' {
			defs = src.Root.Arr
		}
		for _, d := range defs {
			id := d.Text("id")
			if id == "" {
				continue
			}
			name := importer.Snake(id)
			if used[name] {
				name += "_block"
			}
			name = a.Name("block", name, "block")
			b := &afBlock{j: d, id: id, name: name, kind: d.Text("execution_type"), trigger: d.Text("category") == "trigger"}
			a.blocks[id] = b
		}
	}
}

// writeBlock writes a block's definition once, and returns the message of
// the problem that keeps it from being converted.
func (a *agentflow) writeBlock(b *afBlock, w importer.Where) string {
	if b.written {
		return ""
	}
	d := b.j
	bw := importer.Where{At: d, What: "block", Name: b.id, Typ: b.kind}
	b.inputs = a.fields(d.Get("input_schema"), bw, true)
	b.outputs = a.fields(d.Get("output_schema"), bw, false)
	var def *hclwrite.Block
	var msg string
	switch b.kind {
	case "llm":
		def, msg = a.llmBlock(b, bw)
	case "python":
		def, msg = a.pythonBlock(b, bw)
	default:
		msg = a.Problem(bw, d.Get("execution_type"), "Unsupported block type",
			fmt.Sprintf("execution_type %q: flowctl import converts python and llm blocks (AgentFlow's mcp and browser blocks are not implemented there either).", b.kind))
	}
	if msg != "" {
		return msg
	}
	b.written = true
	a.File.BlockFiles = append(a.File.BlockFiles, &importer.BlockFile{
		Name:   b.name,
		Header: []string{fmt.Sprintf("Imported by flowctl import from the AgentFlow block %q.", b.id)},
		Blocks: []importer.Decl{{Block: def}},
	})
	return ""
}

// blockHead starts a block definition with its description and fields.
func (a *agentflow) blockHead(b *afBlock, runtime string) *hclwrite.Block {
	def := hclwrite.NewBlock("block", []string{b.name})
	body := def.Body()
	desc := b.j.Text("description")
	if desc == "" {
		desc = b.j.Text("name")
	}
	if desc != "" {
		body.SetAttributeRaw("description", importer.Clone(importer.Str(desc)))
	}
	body.SetAttributeValue("runtime", cty.StringVal(runtime))
	for _, f := range b.inputs {
		ib := body.AppendNewBlock("input", []string{f.flowName}).Body()
		ib.SetAttributeRaw("type", importer.Clone(importer.Code(f.typ)))
		switch {
		case f.def != nil:
			ib.SetAttributeRaw("default", importer.Clone(importer.JsonLiteral(f.def)))
		case !f.required:
			ib.SetAttributeRaw("default", importer.Clone(importer.Code("null")))
		}
		if f.desc != "" {
			ib.SetAttributeRaw("description", importer.Clone(importer.Str(f.desc)))
		}
	}
	for _, f := range b.outputs {
		ob := body.AppendNewBlock("output", []string{f.flowName}).Body()
		ob.SetAttributeRaw("type", importer.Clone(importer.Code(f.typ)))
		if f.desc != "" {
			ob.SetAttributeRaw("description", importer.Clone(importer.Str(f.desc)))
		}
	}
	return def
}

// placeholder is an llm block's {name} (engine/executor.py's _safe_format).
var placeholder = regexp.MustCompile(`\{(\w+)\}`)

// llmBlock is an llm block: the prompt template with each {input} as
// the input's value (JSON for other values than text; an input without a
// value leaves {input} as it is), the output schema as its outputs.
func (a *agentflow) llmBlock(b *afBlock, w importer.Where) (*hclwrite.Block, string) {
	tmpl := b.j.Text("prompt_template")
	if tmpl == "" {
		return nil, a.Problem(w, b.j, "No prompt template", "an llm block needs a prompt_template.")
	}
	def := a.blockHead(b, lang.RuntimeLLM)
	system := "You are executing the block: " + b.j.Text("name") + ".\nTask: " + b.j.Text("description")
	def.Body().SetAttributeRaw("system", importer.Clone(importer.Str(system)))
	var parts []importer.TPart
	last := 0
	for _, m := range placeholder.FindAllStringSubmatchIndex(tmpl, -1) {
		name := tmpl[m[2]:m[3]]
		i := slices.IndexFunc(b.inputs, func(f afField) bool { return f.name == name })
		parts = append(parts, importer.TPart{Lit: tmpl[last:m[0]]})
		last = m[1]
		if i < 0 {
			parts = append(parts, importer.TPart{Lit: tmpl[m[0]:m[1]]})
			continue
		}
		f := b.inputs[i]
		v := importer.Ref("input", f.flowName)
		if f.typ != "string" {
			v = importer.Call("jsonencode", v)
		}
		if !f.required && f.def == nil {
			v = importer.Join(importer.Ref("input", f.flowName), " == null ? ", importer.Str("{"+name+"}"), " : ", v)
		}
		parts = append(parts, importer.TPart{Expr: v})
	}
	def.Body().SetAttributeRaw("prompt", importer.Clone(importer.Template(append(parts, importer.TPart{Lit: tmpl[last:]}), false)))
	return def, ""
}

// pythonBlock is a python block (runtime = "python", when this flowctl
// has it): its async def execute(inputs, context) kept as it is, followed
// by a wrapper flowctl calls that gives it what AgentFlow's doer gives:
// the inputs by their names in the schema, only those given (optional
// inputs without a value are left out), and context {"user", "memory"};
// the outputs go back under their flowctl names.
func (a *agentflow) pythonBlock(b *afBlock, w importer.Where) (*hclwrite.Block, string) {
	if !slices.Contains(lang.Runtimes, "python") {
		return nil, a.Problem(w, b.j.Get("execution_type"), "Python blocks not available",
			"python blocks become runtime = \"python\" blocks, which this flowctl does not have.")
	}
	src := b.j.Text("source_code")
	if strings.TrimSpace(src) == "" {
		return nil, a.Problem(w, b.j, "No source code", "a python block needs its source_code (async def execute(inputs, context)).")
	}
	if !regexp.MustCompile(`(?m)^async\s+def\s+execute\s*\(`).MatchString(src) {
		return nil, a.Problem(w, b.j.Get("source_code"), "No execute function",
			"AgentFlow awaits the block's async def execute(inputs, context); the source does not define it at the top level.")
	}
	b.context = strings.Contains(src, "context")
	if b.context {
		b.inputs = append(b.inputs,
			afField{name: "", flowName: "agentflow_user", typ: "any", def: &importer.JV{Kind: 'o'}, desc: "AgentFlow's context[\"user\"]: the user's profile"},
			afField{name: "", flowName: "agentflow_memory", typ: "any", def: &importer.JV{Kind: 'o'}, desc: "AgentFlow's context[\"memory\"]: the pipeline's memory keys"})
	}
	def := a.blockHead(b, "python")
	var in, out []string
	for _, f := range b.inputs {
		if f.name != "" {
			in = append(in, fmt.Sprintf("%q: %q", f.flowName, f.name))
		}
	}
	for _, f := range b.outputs {
		out = append(out, fmt.Sprintf("%q: %q", f.name, f.flowName))
	}
	wrapper := fmt.Sprintf(`

# Written by flowctl import: flowctl calls this execute, which calls the
# block's own as AgentFlow's doer does.
_agentflow_execute = execute
_agentflow_inputs = {%s}
_agentflow_outputs = {%s}


async def execute(inputs, context):
    args = {name: inputs[key] for key, name in _agentflow_inputs.items() if inputs.get(key) is not None}
    ctx = {"user": inputs.get("agentflow_user") or {}, "memory": inputs.get("agentflow_memory") or {}}
    result = await _agentflow_execute(args, ctx)
    return {_agentflow_outputs.get(k, k): v for k, v in (result or {}).items()}
`, strings.Join(in, ", "), strings.Join(out, ", "))
	def.Body().SetAttributeRaw("source", importer.Template([]importer.TPart{{Lit: strings.TrimRight(src, "\n") + wrapper}}, true))
	return def, ""
}

// fields reads an input or output schema's properties.
func (a *agentflow) fields(schema *importer.JV, w importer.Where, inputs bool) []afField {
	if schema == nil {
		return nil
	}
	props := schema.Get("properties")
	if props == nil || props.Kind != 'o' {
		return nil
	}
	required := map[string]bool{}
	for _, r := range schema.Items("required") {
		required[r.Str] = true
	}
	kind := "output"
	if inputs {
		kind = "input"
	}
	var out []afField
	names := map[string]bool{}
	for _, k := range props.Keys {
		p := props.Obj[k]
		name := importer.Snake(k)
		if name == "" {
			name = kind
		}
		if inputs && lang.IsMetaArgument(name) || !inputs && (name == "text" || name == "usage") {
			name += "_" + kind
		}
		for i := 2; names[name]; i++ {
			name = fmt.Sprintf("%s_%d", importer.Snake(k), i)
		}
		names[name] = true
		f := afField{name: k, flowName: name, typ: a.schemaType(p, w), required: required[k], desc: p.Text("description")}
		if d := p.Get("default"); d != nil && d.Kind != 'z' {
			f.def = d
		}
		out = append(out, f)
	}
	return out
}
