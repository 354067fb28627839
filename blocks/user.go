package blocks

import (
	"path/filepath"
	"strings"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// llmOutputs are the outputs every llm block has besides its declared ones.
func llmOutputs() []*lang.Field {
	return []*lang.Field{
		out("text", cty.String, "The model's reply"),
		out("usage", UsageType, "Tokens used"),
	}
}

// FromDef checks a user block definition and returns its Block.
func FromDef(def *lang.BlockDef) (*Block, hcl.Diagnostics) {
	b := &Block{
		Name:                def.Name,
		Runtime:             def.Runtime,
		Description:         def.Description,
		UseWhen:             def.UseWhen,
		Tags:                def.Tags,
		Inputs:              def.Inputs,
		Outputs:             def.Outputs,
		CacheDefault:        def.Runtime != lang.RuntimeLLM,
		PropagatesSensitive: true,
		Def:                 def,
	}
	var diags hcl.Diagnostics
	if def.Runtime == lang.RuntimeLLM {
		diags = append(diags, CheckReservedOutputs(llmOutputs(), def.Outputs)...)
		b.Outputs = MergeOutputs(llmOutputs(), def.Outputs)
		diags = append(diags, checkTemplate(b, def.Prompt, "prompt")...)
		diags = append(diags, checkTemplate(b, def.System, "system")...)
	}
	for _, ex := range def.Examples {
		diags = append(diags, checkExample(b, ex)...)
	}
	return b, diags
}

// checkTemplate checks that an llm block's prompt or system template refers
// only to the block's inputs and produces a string.
func checkTemplate(b *Block, expr hcl.Expression, what string) hcl.Diagnostics {
	if expr == nil {
		return nil
	}
	var diags hcl.Diagnostics
	inputs := map[string]cty.Value{}
	for _, in := range b.Inputs {
		inputs[in.Name] = cty.UnknownVal(in.Type.Type)
	}
	for _, tr := range expr.Variables() {
		ref, d := lang.ParseRef(tr)
		if d.HasErrors() {
			diags = append(diags, d...)
			continue
		}
		if ref.Root != lang.RootInput {
			diags = append(diags, lang.Error(tr.SourceRange(), "Invalid reference in "+what,
				"A block's %s can refer only to the block's inputs, as input.NAME; %s is not available here.", what, lang.TraversalString(tr))...)
			continue
		}
		if _, ok := inputs[ref.Name]; !ok {
			diags = append(diags, lang.Error(ref.NameRange(), "Unknown input",
				"Block %q has no input named %q.%s", b.Name, ref.Name, lang.Suggest(ref.Name, b.InputNames()))...)
		}
	}
	if diags.HasErrors() {
		return diags
	}
	ctx := &hcl.EvalContext{
		Variables: map[string]cty.Value{lang.RootInput: cty.ObjectVal(inputs)},
		Functions: lang.Functions(filepath.Dir(expr.Range().Filename)),
	}
	v, d := expr.Value(ctx)
	if d.HasErrors() {
		return d
	}
	if _, err := convert.Convert(v, cty.String); err != nil {
		return lang.Error(expr.Range(), "Invalid "+what, "The %s must produce a string: %s.", what, err)
	}
	return nil
}

// checkExample checks that an example's input and output fit the block's
// inputs and outputs.
func checkExample(b *Block, ex *lang.Example) hcl.Diagnostics {
	var diags hcl.Diagnostics
	check := func(val cty.Value, expr hcl.Expression, fields []*lang.Field, what string, needAll bool) {
		given := map[string]cty.Value{}
		for it := val.ElementIterator(); it.Next(); {
			k, v := it.Element()
			given[k.AsString()] = v
		}
		var names []string
		for _, f := range fields {
			names = append(names, f.Name)
		}
		for _, k := range lang.SortedKeys(given) {
			f := findField(fields, k)
			if f == nil {
				diags = append(diags, lang.Error(lang.ObjectItemRange(expr, k, true), "Unknown example "+what,
					"The example gives %s %q, which block %q does not have.%s", what, k, b.Name, lang.Suggest(k, names))...)
				continue
			}
			v := given[k]
			if f.Type.Defaults != nil {
				v = f.Type.Defaults.Apply(v)
			}
			if _, err := convert.Convert(v, f.Type.Type); err != nil {
				diags = append(diags, lang.Error(lang.ObjectItemRange(expr, k, false), "Invalid example "+what,
					"The example's %s %q must be %s: %s.", what, k, lang.FriendlyTypeName(f.Type.Type), lang.FormatConvertError(err))...)
			}
		}
		if !needAll {
			return
		}
		var missing []string
		for _, f := range fields {
			if _, ok := given[f.Name]; !ok && f.Required() {
				missing = append(missing, f.Name)
			}
		}
		if len(missing) > 0 {
			diags = append(diags, lang.Error(expr.Range(), "Missing example "+what,
				"The example must give the required %s %s of block %q.", what, quoteList(missing), b.Name)...)
		}
	}
	check(ex.Input, ex.InputExpr, b.Inputs, "input", true)
	check(ex.Output, ex.OutputExpr, b.Outputs, "output", false)
	return diags
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = `"` + n + `"`
	}
	return strings.Join(q, ", ")
}

// CheckReservedOutputs reports declared output fields that take the name of
// an output the block always has (text and usage of llm blocks).
func CheckReservedOutputs(fixed, declared []*lang.Field) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, f := range declared {
		if findField(fixed, f.Name) != nil {
			diags = append(diags, lang.Error(f.NameRange, "Reserved output name",
				"Every llm block has the outputs %s; a declared output field needs another name.", quoteList(fieldNames(fixed)))...)
		}
	}
	return diags
}
