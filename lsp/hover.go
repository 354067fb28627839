package lsp

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"go.lsp.dev/protocol"
)

func (s *Server) hover(ctx context.Context, p protocol.HoverParams) (*protocol.Hover, error) {
	v := s.view(p.TextDocument.URI)
	off := v.offset(p.Position)
	c := locate(v.file, off)
	md, rng := v.hoverAt(c)
	if md == "" {
		return nil, nil
	}
	h := &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: md}}
	s.mu.Lock()
	if !s.markdown {
		h.Contents.Kind = protocol.PlainText
	}
	s.mu.Unlock()
	if rng != nil {
		r := v.text.rng(*rng)
		h.Range = &r
	}
	return h, nil
}

func (v *view) hoverAt(c *cursor) (string, *hcl.Range) {
	prog := v.prog(c.off)
	if v.block != nil && c.block != nil && c.block.Type == "block" && c.label == 0 {
		for _, def := range v.block.defs {
			if def.Name == c.blockName() {
				b, _ := blocks.FromDef(def)
				return blockDoc(b), &c.block.LabelRanges[0]
			}
		}
	}
	if prog == nil {
		return "", nil
	}
	switch {
	case c.traversal != nil:
		return refDoc(prog, c, c.traversal.Traversal), rangePtr(c.traversal.SrcRange)
	case c.call != nil:
		if f, ok := prog.Functions[c.call.Name]; ok {
			return funcDoc(c.call.Name, f), rangePtr(c.call.NameRange)
		}
	case c.blockType() == kindStep && c.attr != nil && c.attr.Name == "use" && c.literal != nil && c.inner == nil:
		if st := prog.StepsByName[c.blockName()]; st != nil && st.Block != nil {
			return blockDoc(st.Block), rangePtr(c.attr.Expr.Range())
		}
		if name, ok := stringValue(c.attr.Expr); ok && prog.Registry != nil {
			if b := prog.Registry.Lookup(name); b != nil {
				return blockDoc(b), rangePtr(c.attr.Expr.Range())
			}
		}
	case c.blockType() == kindStep && c.attr != nil && c.onName && c.inner == nil:
		return argDoc(prog, c.blockName(), c.attr.Name), rangePtr(c.attr.NameRange)
	case c.blockType() == kindStep && c.label == 0:
		if st := prog.StepsByName[c.blockName()]; st != nil {
			return stepDoc(st), rangePtr(c.block.LabelRanges[0])
		}
	case c.blockType() == "block" && c.label == 0 && prog.Registry != nil:
		if b := prog.Registry.Lookup(c.blockName()); b != nil {
			return blockDoc(b), rangePtr(c.block.LabelRanges[0])
		}
	case c.blockType() == "test" && c.inner != nil && c.inner.Type == "override" && c.label == 0:
		if path, ok := strings.CutPrefix(c.inner.Labels[0], "step."); ok {
			for _, ts := range compiler.StepTree(prog) {
				if ts.Path == path {
					return stepDoc(ts.Step), rangePtr(c.inner.LabelRanges[0])
				}
			}
		}
	case c.blockType() == "test" && c.inner != nil && c.inner.Type == "mock" && c.label == 0 && prog.Registry != nil:
		if b := prog.Registry.Lookup(c.inner.Labels[0]); b != nil {
			return blockDoc(b), rangePtr(c.inner.LabelRanges[0])
		}
	}
	return "", nil
}

func rangePtr(r hcl.Range) *hcl.Range { return &r }

// blockDoc describes a block: what it does, its inputs and its outputs.
func blockDoc(b *blocks.Block) string {
	var sb strings.Builder
	where := "built-in"
	switch {
	case b.Runtime == blocks.RuntimeFlow:
		where = "flow"
	case b.Def != nil:
		where = b.Runtime + ", " + lang.RangeString(b.Def.NameRange)
	}
	fmt.Fprintf(&sb, "**block `%s`** (%s)\n\n", b.Name, where)
	if b.Description != "" {
		sb.WriteString(b.Description + "\n\n")
	}
	if b.UseWhen != "" {
		sb.WriteString("Use when: " + b.UseWhen + "\n\n")
	}
	if len(b.Inputs) > 0 {
		sb.WriteString("| input | type | default | description |\n| --- | --- | --- | --- |\n")
		for _, in := range b.Inputs {
			fmt.Fprintf(&sb, "| `%s` | `%s` | %s | %s |\n", in.Name, typeName(in.Type.Type), defaultText(in), cell(in.Description))
		}
		sb.WriteString("\n")
	}
	if len(b.Outputs) > 0 {
		sb.WriteString("| output | type | description |\n| --- | --- | --- |\n")
		for _, o := range b.Outputs {
			fmt.Fprintf(&sb, "| `%s` | `%s` | %s |\n", o.Name, typeName(o.Type.Type), cell(o.Description))
		}
	}
	return strings.TrimSpace(sb.String())
}

func cell(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ") }

// defaultText is an input's default as HCL, or "required".
func defaultText(f *lang.Field) string {
	if f.Required() {
		return "required"
	}
	return "`" + valueText(f.Default) + "`"
}

func valueText(v cty.Value) string {
	if v.IsNull() {
		return "null"
	}
	if !v.IsWhollyKnown() {
		return "(known at run time)"
	}
	return strings.TrimSpace(string(hclTokens(v)))
}

// stepDoc describes a step: its block and its outputs.
func stepDoc(st *compiler.Step) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "**step `%s`**", st.Name)
	if st.Block != nil {
		fmt.Fprintf(&sb, " uses `%s`", st.Block.Name)
	}
	if st.ForEach != nil {
		sb.WriteString(" (for_each: one instance per element)")
	}
	sb.WriteString("\n\n")
	if st.Description != "" {
		sb.WriteString(st.Description + "\n\n")
	}
	if len(st.Outputs) > 0 {
		sb.WriteString("| output | type | description |\n| --- | --- | --- |\n")
		for _, o := range st.Outputs {
			fmt.Fprintf(&sb, "| `%s` | `%s` | %s |\n", o.Name, typeName(outputType(st, o)), cell(o.Description))
		}
	}
	return strings.TrimSpace(sb.String())
}

// outputType is the type of a step's output field as the compiler knows
// it: the value block's output has the type of its input, an llm step's
// the type it declares.
func outputType(st *compiler.Step, f *lang.Field) cty.Type {
	if ty := st.OutputType; ty != cty.NilType && ty.IsObjectType() && ty.HasAttribute(f.Name) {
		return ty.AttributeType(f.Name)
	}
	return f.Type.Type
}

// argDoc describes a step's argument: the block's input, or the
// meta-argument.
func argDoc(prog *compiler.Program, step, name string) string {
	if d, ok := metaDocs[name]; ok {
		return fmt.Sprintf("**meta-argument `%s`**\n\n%s", name, d)
	}
	st := prog.StepsByName[step]
	if st == nil || st.Block == nil {
		return ""
	}
	in := st.Block.Input(name)
	if in == nil {
		return ""
	}
	s := fmt.Sprintf("**input `%s`** of block `%s`: `%s`, %s", name, st.Block.Name, typeName(in.Type.Type), strings.Trim(defaultText(in), "`"))
	if !in.Required() {
		s = fmt.Sprintf("**input `%s`** of block `%s`: `%s`, default %s", name, st.Block.Name, typeName(in.Type.Type), defaultText(in))
	}
	if in.Description != "" {
		s += "\n\n" + in.Description
	}
	return s
}

// metaDocs describe the meta-arguments of a step (docs/language.md).
var metaDocs = map[string]string{
	"use":            "The block the step runs: a built-in, a block of `blocks/` or a registry, an inline block, `flow.NAME` or `mcp`.",
	"description":    "Free text about the step.",
	"depends_on":     "Steps this one runs after without using their outputs: `[step.NAME, …]`.",
	"when":           "A bool: false skips the step (its outputs are null).",
	"for_each":       "A list, set or map: one instance of the step per element, with `each.key` and `each.value`.",
	"parallelism":    "At most this many instances of a for_each step at once.",
	"timeout":        "The longest one attempt may take: `\"30s\"`, `\"2m\"`.",
	"retry":          "Retries: `retry { attempts = 3, backoff = \"1s\", max_backoff = \"30s\" }`.",
	"cache":          "Reuse a stored result when the block and the inputs are unchanged.",
	"on_error":       "`\"fail\"` (the default) or `\"continue\"`: on failure the outputs are null and dependents still run.",
	"output":         "Declare a typed output field (llm steps, http's body).",
	"tools":          "What an llm step's model may call: `[flow.NAME, block.NAME, mcp.SERVER.TOOL]`.",
	"max_tool_calls": "The most tool calls an llm step's model may make.",
	"tool_inputs":    "The inputs with a default of a flow tool the model may give too: `{ TOOL = [\"INPUT\", …] }`.",
	"on_timeout":     "What an approval step does when nobody decided within its timeout: `\"approve\"`, `\"reject\"` or `\"fail\"` (the default).",
}

// funcDoc is a function's signature and description.
func funcDoc(name string, f function.Function) string {
	return "```\n" + signature(name, f) + "\n```\n\n" + f.Description()
}

func signature(name string, f function.Function) string {
	var params []string
	var types []cty.Type
	for _, p := range f.Params() {
		params = append(params, p.Name+" "+typeName(p.Type))
		types = append(types, p.Type)
	}
	if vp := f.VarParam(); vp != nil {
		params = append(params, vp.Name+" ..."+typeName(vp.Type))
	}
	ret := "any"
	func() {
		defer func() { recover() }()
		if t, err := f.ReturnType(types); err == nil {
			ret = typeName(t)
		}
	}()
	return fmt.Sprintf("%s(%s) %s", name, strings.Join(params, ", "), ret)
}

// refDoc describes a reference: its type and where it is defined.
func refDoc(prog *compiler.Program, c *cursor, tr hcl.Traversal) string {
	if len(tr) < 2 {
		return ""
	}
	attr, ok := tr[1].(hcl.TraverseAttr)
	if !ok {
		return ""
	}
	name := attr.Name
	switch tr.RootName() {
	case lang.RootInput:
		if in := prog.InputsByName[name]; in != nil {
			s := fmt.Sprintf("**input `%s`**: `%s`", name, typeName(in.Type.Type))
			if in.Required() {
				s += ", required"
			} else {
				s += ", default `" + valueText(in.Default) + "`"
			}
			if in.Sensitive {
				s += ", sensitive"
			}
			return s + describe(in.Description, in.DeclRange)
		}
	case lang.RootProvider:
		if pr := prog.ProvidersByName[name]; pr != nil {
			s := fmt.Sprintf("**provider `%s`**: `%s`", name, pr.BaseURL)
			if k := pr.APIKeySecret(); k != "" {
				s += ", key from `secret." + k + "`"
			}
			for _, l := range []struct {
				name string
				n    int
			}{{"rpm", pr.RPM}, {"tpm", pr.TPM}, {"concurrency", pr.Concurrency}} {
				if l.n > 0 {
					s += fmt.Sprintf(", %s %d", l.name, l.n)
				}
			}
			return s + describe(pr.Description, pr.DeclRange)
		}
	case lang.RootCollection:
		if col := prog.CollectionsByName[name]; col != nil {
			return fmt.Sprintf("**collection `%s`**: %d dimensions, %s distance", name, col.Dimensions, col.Distance) + describe(col.Description, col.DeclRange)
		}
	case lang.RootSecret:
		if sec := prog.SecretsByName[name]; sec != nil {
			return fmt.Sprintf("**secret `%s`**: `string` (sensitive), from `$%s`", name, sec.Env) + describe(sec.Description, sec.DeclRange)
		}
	case lang.RootLocal:
		if l := prog.LocalsByName[name]; l != nil {
			return fmt.Sprintf("**local `%s`**: `%s`", name, typeName(localType(prog, l))) + describe("", l.DeclRange)
		}
	case lang.RootMemory:
		if m := prog.MemoriesByName[name]; m != nil {
			return fmt.Sprintf("**memory `%s`**: `%s`", name, typeName(m.Type.Type)) + describe(m.Description, m.DeclRange)
		}
	case lang.RootStep:
		st := prog.StepsByName[name]
		if st == nil {
			return ""
		}
		if f := fieldOf(st, tr); f != nil {
			return fmt.Sprintf("**`step.%s.%s`**: `%s`, output of step `%s` (block `%s`)", name, f.Name, typeName(outputType(st, f)), name, blockName(st)) +
				describe(f.Description, st.NameRange)
		}
		return fmt.Sprintf("**step `%s`**: `%s`", name, typeName(staticValues{}.Step(st).Type())) + describe("", st.NameRange)
	case lang.RootEach:
		st := prog.StepsByName[c.blockName()]
		if st == nil || st.ForEach == nil {
			return ""
		}
		k, v := eachTypes(prog, st)
		if name == "key" {
			return fmt.Sprintf("**`each.key`**: `%s`, the key of this instance of step `%s`", typeName(k), st.Name)
		}
		return fmt.Sprintf("**`each.value`**: `%s`, the element of step `%s`'s for_each for this instance", typeName(v), st.Name)
	case lang.RootRun:
		return "**`run.id`**: `string`, the run's ID"
	case lang.RootFlow:
		return fmt.Sprintf("**`flow.name`**: `string` (`%q`)", prog.Flow.Name)
	case kindOutput:
		if o := prog.OutputsByName[name]; o != nil {
			return fmt.Sprintf("**output `%s`**: `%s`", name, typeName(prog.OutputTypes[name])) + describe(o.Description, o.DeclRange)
		}
	}
	return ""
}

func blockName(st *compiler.Step) string {
	if st.Block == nil {
		return st.Use
	}
	return st.Block.Name
}

// fieldOf is the output field a step reference names, nil when it names
// the whole step.
func fieldOf(st *compiler.Step, tr hcl.Traversal) *lang.Field {
	rest := tr[2:]
	if len(rest) > 0 {
		switch rest[0].(type) {
		case hcl.TraverseIndex, hcl.TraverseSplat:
			rest = rest[1:]
		}
	}
	if len(rest) == 0 {
		return nil
	}
	a, ok := rest[0].(hcl.TraverseAttr)
	if !ok {
		return nil
	}
	for _, f := range st.Outputs {
		if f.Name == a.Name {
			return f
		}
	}
	return nil
}

func describe(desc string, decl hcl.Range) string {
	s := ""
	if desc != "" {
		s = "\n\n" + desc
	}
	if decl.Filename != "" {
		s += "\n\nDefined at " + lang.RangeString(decl)
	}
	return s
}

// localType is the type of a local's value, evaluated as the compiler
// does.
func localType(prog *compiler.Program, l *compiler.Local) (ty cty.Type) {
	defer func() {
		if recover() != nil {
			ty = cty.DynamicPseudoType
		}
	}()
	v, _ := compiler.NewScope(prog, staticValues{}).Local(l)
	return v.Type()
}

// eachTypes are the types of each.key and each.value in a for_each step.
func eachTypes(prog *compiler.Program, st *compiler.Step) (key, value cty.Type) {
	key, value = cty.DynamicPseudoType, cty.DynamicPseudoType
	defer func() { recover() }()
	v, _, _ := compiler.NewScope(prog, staticValues{}).Eval(st.ForEach, nil)
	ty := v.Type()
	switch {
	case ty.IsListType() || ty.IsSetType():
		return cty.Number, ty.ElementType()
	case ty.IsMapType():
		return cty.String, ty.ElementType()
	case ty.IsObjectType():
		return cty.String, cty.DynamicPseudoType
	case ty.IsTupleType():
		return cty.Number, cty.DynamicPseudoType
	}
	return
}

// stepNames are a program's step names in order.
func stepNames(prog *compiler.Program) []string {
	names := make([]string, 0, len(prog.Steps))
	for _, st := range prog.Steps {
		names = append(names, st.Name)
	}
	sort.Strings(names)
	return names
}
