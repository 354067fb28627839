package importer

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// AgentFlow's blocks: the registry's definitions, written as block files
// (llm blocks with their prompt; python blocks with their code).

// readBlocks reads the registry's definitions: each file holds one or a
// list of them.
func (a *agentflow) readBlocks(registry []*source) {
	used := map[string]bool{}
	for _, b := range blocks.Builtins() {
		used[b.Name] = true
	}
	for _, src := range registry {
		defs := []*jv{src.Root}
		if src.Root.Kind == 'a' {
			defs = src.Root.Arr
		}
		for _, d := range defs {
			id := d.str("id")
			if id == "" {
				continue
			}
			name := snake(id)
			if used[name] {
				name += "_block"
			}
			name = a.name("block", name, "block")
			b := &afBlock{j: d, id: id, name: name, kind: d.str("execution_type"), trigger: d.str("category") == "trigger"}
			a.blocks[id] = b
		}
	}
}

// writeBlock writes a block's definition once, and returns the message of
// the problem that keeps it from being converted.
func (a *agentflow) writeBlock(b *afBlock, w where) string {
	if b.written {
		return ""
	}
	d := b.j
	bw := where{at: d, what: "block", name: b.id, typ: b.kind}
	b.inputs = a.fields(d.get("input_schema"), bw, true)
	b.outputs = a.fields(d.get("output_schema"), bw, false)
	var def *hclwrite.Block
	var msg string
	switch b.kind {
	case "llm":
		def, msg = a.llmBlock(b, bw)
	case "python":
		def, msg = a.pythonBlock(b, bw)
	default:
		msg = a.problem(bw, d.get("execution_type"), "Unsupported block type",
			fmt.Sprintf("execution_type %q: flowctl import converts python and llm blocks (AgentFlow's mcp and browser blocks are not implemented there either).", b.kind))
	}
	if msg != "" {
		return msg
	}
	b.written = true
	a.file.blockFiles = append(a.file.blockFiles, &blockFile{
		name:   b.name,
		header: []string{fmt.Sprintf("Imported by flowctl import from the AgentFlow block %q.", b.id)},
		blocks: []decl{{block: def}},
	})
	return ""
}

// blockHead starts a block definition with its description and fields.
func (a *agentflow) blockHead(b *afBlock, runtime string) *hclwrite.Block {
	def := hclwrite.NewBlock("block", []string{b.name})
	body := def.Body()
	desc := b.j.str("description")
	if desc == "" {
		desc = b.j.str("name")
	}
	if desc != "" {
		body.SetAttributeRaw("description", clone(str(desc)))
	}
	body.SetAttributeValue("runtime", cty.StringVal(runtime))
	for _, f := range b.inputs {
		ib := body.AppendNewBlock("input", []string{f.flowName}).Body()
		ib.SetAttributeRaw("type", clone(code(f.typ)))
		switch {
		case f.def != nil:
			ib.SetAttributeRaw("default", clone(jsonLiteral(f.def)))
		case !f.required:
			ib.SetAttributeRaw("default", clone(code("null")))
		}
		if f.desc != "" {
			ib.SetAttributeRaw("description", clone(str(f.desc)))
		}
	}
	for _, f := range b.outputs {
		ob := body.AppendNewBlock("output", []string{f.flowName}).Body()
		ob.SetAttributeRaw("type", clone(code(f.typ)))
		if f.desc != "" {
			ob.SetAttributeRaw("description", clone(str(f.desc)))
		}
	}
	return def
}

// placeholder is an llm block's {name} (engine/executor.py's _safe_format).
var placeholder = regexp.MustCompile(`\{(\w+)\}`)

// llmBlock is an llm block: the prompt template with each {input} as
// the input's value (JSON for other values than text; an input without a
// value leaves {input} as it is), the output schema as its outputs.
func (a *agentflow) llmBlock(b *afBlock, w where) (*hclwrite.Block, string) {
	tmpl := b.j.str("prompt_template")
	if tmpl == "" {
		return nil, a.problem(w, b.j, "No prompt template", "an llm block needs a prompt_template.")
	}
	def := a.blockHead(b, lang.RuntimeLLM)
	system := "You are executing the block: " + b.j.str("name") + ".\nTask: " + b.j.str("description")
	def.Body().SetAttributeRaw("system", clone(str(system)))
	var parts []tpart
	last := 0
	for _, m := range placeholder.FindAllStringSubmatchIndex(tmpl, -1) {
		name := tmpl[m[2]:m[3]]
		i := slices.IndexFunc(b.inputs, func(f afField) bool { return f.name == name })
		parts = append(parts, tpart{Lit: tmpl[last:m[0]]})
		last = m[1]
		if i < 0 {
			parts = append(parts, tpart{Lit: tmpl[m[0]:m[1]]})
			continue
		}
		f := b.inputs[i]
		v := ref("input", f.flowName)
		if f.typ != "string" {
			v = call("jsonencode", v)
		}
		if !f.required && f.def == nil {
			v = join(ref("input", f.flowName), " == null ? ", str("{"+name+"}"), " : ", v)
		}
		parts = append(parts, tpart{Expr: v})
	}
	def.Body().SetAttributeRaw("prompt", clone(template(append(parts, tpart{Lit: tmpl[last:]}), false)))
	return def, ""
}

// pythonBlock is a python block (runtime = "python", when this flowctl
// has it): its async def execute(inputs, context) kept as it is, followed
// by a wrapper flowctl calls that gives it what AgentFlow's doer gives:
// the inputs by their names in the schema, only those given (optional
// inputs without a value are left out), and context {"user", "memory"};
// the outputs go back under their flowctl names.
func (a *agentflow) pythonBlock(b *afBlock, w where) (*hclwrite.Block, string) {
	if !slices.Contains(lang.Runtimes, "python") {
		return nil, a.problem(w, b.j.get("execution_type"), "Python blocks not available",
			"python blocks become runtime = \"python\" blocks, which this flowctl does not have.")
	}
	src := b.j.str("source_code")
	if strings.TrimSpace(src) == "" {
		return nil, a.problem(w, b.j, "No source code", "a python block needs its source_code (async def execute(inputs, context)).")
	}
	if !regexp.MustCompile(`(?m)^async\s+def\s+execute\s*\(`).MatchString(src) {
		return nil, a.problem(w, b.j.get("source_code"), "No execute function",
			"AgentFlow awaits the block's async def execute(inputs, context); the source does not define it at the top level.")
	}
	b.context = strings.Contains(src, "context")
	if b.context {
		b.inputs = append(b.inputs,
			afField{name: "", flowName: "agentflow_user", typ: "any", def: &jv{Kind: 'o'}, desc: "AgentFlow's context[\"user\"]: the user's profile"},
			afField{name: "", flowName: "agentflow_memory", typ: "any", def: &jv{Kind: 'o'}, desc: "AgentFlow's context[\"memory\"]: the pipeline's memory keys"})
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
	def.Body().SetAttributeRaw("source", template([]tpart{{Lit: strings.TrimRight(src, "\n") + wrapper}}, true))
	return def, ""
}

// fields reads an input or output schema's properties.
func (a *agentflow) fields(schema *jv, w where, inputs bool) []afField {
	if schema == nil {
		return nil
	}
	props := schema.get("properties")
	if props == nil || props.Kind != 'o' {
		return nil
	}
	required := map[string]bool{}
	for _, r := range schema.items("required") {
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
		name := snake(k)
		if name == "" {
			name = kind
		}
		if inputs && lang.IsMetaArgument(name) || !inputs && (name == "text" || name == "usage") {
			name += "_" + kind
		}
		for i := 2; names[name]; i++ {
			name = fmt.Sprintf("%s_%d", snake(k), i)
		}
		names[name] = true
		f := afField{name: k, flowName: name, typ: a.schemaType(p, w), required: required[k], desc: p.str("description")}
		if d := p.get("default"); d != nil && d.Kind != 'z' {
			f.def = d
		}
		out = append(out, f)
	}
	return out
}
