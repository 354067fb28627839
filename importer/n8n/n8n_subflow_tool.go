package n8n

import (
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// workflowTool is the Workflow tool (v1–1.3): a flow of its own beside
// the workflow's, as the other tools that run steps, whose inputs are
// what the model gives — its text (`input`), or with an input schema
// each of the schema's properties — and whose one step runs the called
// workflow's flow with the one item n8n makes: {query, …the tool's
// fields}, query the text or the object of the properties. Its output
// `response` is the first item the called flow returns, as n8n gives the
// model the first item's json. The schema's properties are required
// inputs: the model sees only those of a flow (n8n's schema makes a JSON
// example's optional).
func (n *n8n) workflowTool(root, node *n8nNode) (importer.Expr, bool) {
	p := node.params
	if node.version >= 2 {
		return n.workflowToolV2(root, node)
	}
	name := p.Text("name")
	if name == "" || strings.HasPrefix(name, "=") {
		n.Problem(node.where, p.Get("name"), "Unsupported parameter", "the tool's name is converted when it is written out.")
		return nil, false
	}
	desc, ok := optionalText(p.Get("description"))
	if !ok {
		n.Problem(node.where, p.Get("description"), "Unsupported expression", "the tool's description is converted when it is written out.")
		return nil, false
	}
	fields, ok := n.toolFields(node)
	if !ok {
		return nil, false
	}
	var schema []schemaField
	if p.Boolean(false, "specifyInputSchema") {
		example := p.Text("schemaType") != "manual"
		key := "jsonSchemaExample"
		if !example {
			key = "inputSchema"
		}
		raw := p.Get(key)
		if raw == nil || raw.Kind != 's' {
			n.Problem(node.where, p, "Missing schema", "the tool specifies an input schema and has none.")
			return nil, false
		}
		s := n.parseJSONParam(node, raw, raw.Str)
		if s == nil {
			return nil, false
		}
		var why string
		if schema, why = schemaFields(s, example, false, true); why != "" {
			n.Problem(node.where, raw, "Unsupported schema", "the schema "+why+": its properties are the inputs of the tool's flow.")
			return nil, false
		}
		n.warnRenamed(node, raw, schema, "the inputs of the tool's flow")
	}
	flow, ok := n.calledFlow(node)
	if !ok {
		return nil, false
	}
	return n.toolFlow(root, node, name, desc, func() bool {
		var query importer.Expr = importer.Code("input.input")
		if schema == nil {
			ib := hclwrite.NewBlock("input", []string{"input"})
			ib.Body().SetAttributeRaw("type", importer.Clone(importer.Code("string")))
			ib.Body().SetAttributeValue("description", cty.StringVal("the model's text, the item's query"))
			n.File.Inputs = append(n.File.Inputs, importer.Decl{Block: ib})
		} else {
			// The model's arguments, as an object of those it gave.
			var ms []importer.Member
			for _, f := range schema {
				ib := hclwrite.NewBlock("input", []string{f.name})
				ib.Body().SetAttributeRaw("type", importer.Clone(importer.Code(f.typ)))
				if f.description != "" {
					ib.Body().SetAttributeValue("description", cty.StringVal(f.description))
				}
				// Every property is an input without a default: a flow's
				// tool shows the model those alone.
				n.File.Inputs = append(n.File.Inputs, importer.Decl{Block: ib})
				ms = append(ms, importer.Member{Name: f.key, Value: importer.Ref("input", f.name)})
			}
			query = importer.Join("{ for k, v in ", importer.Object(ms), " : k => v if v != null }")
		}
		item := append([]importer.Member{{Name: "query", Value: query}}, fields...)
		b, body := importer.NewStep("run", "flow."+flow)
		body.SetAttributeRaw("items", importer.Clone(importer.Tuple([]importer.Expr{importer.Object(item)})))
		n.Step(n.nodeComment(node)+": runs the workflow with the one item {query, …fields}", b)
		ob := hclwrite.NewBlock("output", []string{"response"})
		ob.Body().SetAttributeRaw("value", importer.Clone(importer.Code("step.run.items[0]")))
		ob.Body().SetAttributeValue("description", cty.StringVal("The first item the workflow returns, which n8n gives the model"))
		n.File.Outputs = append(n.File.Outputs, importer.Decl{Block: ob})
		return true
	})
}

// optionalText is literalText of a parameter that may be left out: its
// text, "" when it is.
func optionalText(v *importer.JV) (string, bool) {
	if v == nil {
		return "", true
	}
	return literalText(v)
}

// toolFields are the Workflow tool's Extra Workflow Inputs (fields), set
// on the item as Edit Fields v2 sets them: text and numbers written out.
func (n *n8n) toolFields(node *n8nNode) ([]importer.Member, bool) {
	var out []importer.Member
	for _, f := range node.params.Items("fields", "values") {
		if len(f.Keys) == 0 {
			continue // an empty entry, which n8n's form leaves
		}
		name := f.Text("name")
		typ := f.Text("type")
		if typ == "" {
			typ = "stringValue"
		}
		if name == "" || strings.ContainsAny(name, ".[]") {
			n.Problem(node.where, f.Get("name"), "Unsupported parameter", "a field is converted when its name is written out, without dots or brackets (which n8n reads as a path).")
			return nil, false
		}
		v := f.Get(typ)
		switch {
		case typ == "stringValue":
			s, ok := optionalText(v)
			if !ok {
				n.Problem(node.where, v, "Unsupported expression",
					"the tool's fields are converted when they are written out: the tool runs as a flow of its own, on the model's arguments alone.")
				return nil, false
			}
			out = append(out, importer.Member{Name: name, Value: importer.Str(s)})
		case typ == "numberValue" && v != nil && v.Kind == 'n':
			out = append(out, importer.Member{Name: name, Value: importer.Code(v.Num)})
		default:
			n.Problem(node.where, f, "Unsupported parameter", fmt.Sprintf("a field of type %s is not converted; text and numbers written out are.", strings.TrimSuffix(typ, "Value")))
			return nil, false
		}
	}
	return out, true
}
