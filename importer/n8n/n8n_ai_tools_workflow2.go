package n8n

import (
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// workflowToolV2 is the Workflow tool v2 (ToolWorkflowV2's
// WorkflowToolService): the model's arguments are the $fromAI() calls of
// its Workflow Inputs (a structured tool; without any, its text, input
// `input`), and the called workflow runs on one item, the tool's input
// {query: the arguments} with the mapped inputs set over it (the
// resource mapper's values, each a $fromAI() or written out; those the
// schema marks removed left out). The model is given the first item the
// workflow returns (from v2.1, the json of all of them).
func (n *n8n) workflowToolV2(root, node *n8nNode) (importer.Expr, bool) {
	p := node.params
	name := toolName(node)
	if node.version <= 2.1 {
		name = p.Text("name")
		if name == "" || strings.HasPrefix(name, "=") {
			n.Problem(node.where, p.Get("name"), "Unsupported parameter", "the tool's name is converted when it is written out.")
			return nil, false
		}
	}
	desc, ok := optionalText(p.Get("description"))
	if !ok {
		n.Problem(node.where, p.Get("description"), "Unsupported expression", "the tool's description is converted when it is written out.")
		return nil, false
	}
	if fields := p.Items("fields", "values"); len(fields) > 0 {
		n.Problem(node.where, p.Get("fields"), "Unsupported parameter", "v2's Extra Workflow Inputs (fields) are not converted; its Workflow Inputs are.")
		return nil, false
	}
	var args []fromAIArg
	values, ok := n.fromAIParams(node, p.Get("workflowInputs", "value"), &args)
	if !ok {
		return nil, false
	}
	if len(p.Items("workflowInputs", "schema")) == 0 {
		// Without a schema n8n gives the model a tool of its text alone,
		// and the item is {query}: the values are not read.
		args, values = nil, nil
	}
	removed, types := map[string]bool{}, map[string]string{}
	for _, f := range p.Items("workflowInputs", "schema") {
		if f.Boolean(false, "removed") {
			removed[f.Text("displayName")] = true
		}
		types[f.Text("id")] = f.Text("type")
	}
	argTypes := map[string]string{}
	for _, a := range args {
		argTypes[a.key] = a.typ
	}
	if values != nil && values.Kind == 'o' {
		for _, k := range values.Keys {
			if t := mappedType(values.Obj[k], argTypes); !removed[k] && types[k] != "" && types[k] != "any" && t != types[k] {
				n.Problem(node.where, values.Obj[k], "Unsupported parameter",
					fmt.Sprintf("the Workflow Input %q is of type %s and its value is not (%s): n8n checks it against the type (Attempt to Convert Types off), and fails or converts it as the flow does not.", k, types[k], t))
				return nil, false
			}
		}
	}
	flow, ok := n.calledFlow(node)
	if !ok {
		return nil, false
	}
	return n.toolFlow(root, node, name, desc, func() bool {
		inputs := map[string]string{}
		var query importer.Expr = importer.Code("input.input")
		if len(args) == 0 {
			ib := hclwrite.NewBlock("input", []string{"input"})
			ib.Body().SetAttributeRaw("type", importer.Clone(importer.Code("string")))
			ib.Body().SetAttributeValue("description", cty.StringVal("the model's text, the item's query"))
			n.File.Inputs = append(n.File.Inputs, importer.Decl{Block: ib})
		} else {
			var ms []importer.Member
			if !n.fromAIInputs(node, args, func(key, input string) {
				inputs[key] = input
				ms = append(ms, importer.Member{Name: key, Value: importer.Ref("input", input)})
			}) {
				return false
			}
			query = importer.Object(ms)
		}
		item := []importer.Member{{Name: "query", Value: query}}
		if values != nil && values.Kind == 'o' {
			for _, k := range values.Keys {
				if removed[k] {
					continue
				}
				if k == "query" {
					item = item[1:]
				}
				v, ok := n.mappedInput(node, values.Obj[k], inputs)
				if !ok {
					return false
				}
				item = append(item, importer.Member{Name: k, Value: v})
			}
		}
		b, body := importer.NewStep("run", "flow."+flow)
		body.SetAttributeRaw("items", importer.Clone(importer.Tuple([]importer.Expr{importer.Object(item)})))
		n.Step(n.nodeComment(node)+": runs the workflow with the one item {query, …its inputs}", b)
		ob := hclwrite.NewBlock("output", []string{"response"})
		if node.version > 2 {
			ob.Body().SetAttributeRaw("value", importer.Clone(importer.Code("step.run.items")))
			ob.Body().SetAttributeValue("description", cty.StringVal("The items the workflow returns, which n8n gives the model"))
		} else {
			ob.Body().SetAttributeRaw("value", importer.Clone(importer.Code("step.run.items[0]")))
			ob.Body().SetAttributeValue("description", cty.StringVal("The first item the workflow returns, which n8n gives the model"))
		}
		n.File.Outputs = append(n.File.Outputs, importer.Decl{Block: ob})
		return true
	})
}

// mappedInput is a Workflow Input's value in the tool's flow: written out,
// or made of text and $fromAI() parts (rewritten as $json["key"]).
func (n *n8n) mappedInput(node *n8nNode, v *importer.JV, inputs map[string]string) (importer.Expr, bool) {
	switch v.Kind {
	case 'n':
		return importer.Code(v.Num), true
	case 'b':
		return importer.Code(fmt.Sprint(v.Bool)), true
	case 'z':
		return importer.Code("null"), true
	case 's':
		if !strings.HasPrefix(v.Str, "=") {
			return importer.Str(v.Str), true
		}
		var parts []importer.TPart
		rest := v.Str[1:]
		for {
			m := fromAIRef.FindStringSubmatchIndex(rest)
			if m == nil {
				break
			}
			parts = append(parts, importer.TPart{Lit: rest[:m[0]]}, importer.TPart{Expr: importer.Ref("input", inputs[jsonKey(rest[m[2]:m[3]])])})
			rest = rest[m[1]:]
		}
		if strings.Contains(rest, "{{") {
			n.Problem(node.where, v, "Unsupported expression", "a Workflow Input is converted when it is written out or one $fromAI() call: the tool runs as a flow of its own, on the model's arguments alone.")
			return nil, false
		}
		parts = append(parts, importer.TPart{Lit: rest})
		if len(parts) == 3 && parts[0].Lit == "" && parts[2].Lit == "" {
			return parts[1].Expr, true // the argument's value itself
		}
		return importer.Template(parts, false), true
	}
	n.Problem(node.where, v, "Unsupported parameter", "a Workflow Input that is not text, a number or true/false is not converted.")
	return nil, false
}

// mappedType is the type of a Workflow Input's value as n8n's resource
// mapper types its schema: a number, true/false, text (written out, or
// text around $fromAI() parts), or one $fromAI()'s type (json: "json").
func mappedType(v *importer.JV, argTypes map[string]string) string {
	switch v.Kind {
	case 'n':
		return "number"
	case 'b':
		return "boolean"
	case 's':
		if m := fromAIRef.FindStringSubmatchIndex(v.Str); m != nil && m[0] == 1 && m[1] == len(v.Str) && strings.HasPrefix(v.Str, "=") {
			return argTypes[jsonKey(v.Str[m[2]:m[3]])]
		}
		return "string"
	}
	return "null"
}

// fromAIInputs declares the inputs of a tool's $fromAI() arguments, each
// once (its name in snake_case), and gives each key its input's name.
func (n *n8n) fromAIInputs(node *n8nNode, args []fromAIArg, each func(key, input string)) bool {
	seen, names := map[string]bool{}, map[string]bool{}
	for _, a := range args {
		if seen[a.key] {
			continue
		}
		seen[a.key] = true
		input := importer.Snake(a.key)
		if input == "" {
			input = "argument"
		}
		for i, base := 2, input; names[input]; i++ {
			input = fmt.Sprintf("%s_%d", base, i)
		}
		names[input] = true
		b := hclwrite.NewBlock("input", []string{input})
		b.Body().SetAttributeRaw("type", importer.Clone(importer.Code(fromAITypes[a.typ])))
		if d := strings.TrimSpace(a.description); d != "" {
			b.Body().SetAttributeValue("description", cty.StringVal(d))
		}
		if a.def != nil {
			d, ok := fromAIDefault(*a.def, a.typ)
			if !ok {
				n.Problem(node.where, a.at, "Unsupported parameter",
					fmt.Sprintf("$fromAI's default %q of type %s is converted for text, numbers and true/false.", *a.def, a.typ))
				return false
			}
			b.Body().SetAttributeValue("default", d)
		}
		n.File.Inputs = append(n.File.Inputs, importer.Decl{Block: b})
		each(a.key, input)
	}
	return true
}
