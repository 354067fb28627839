package n8n

import (
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2/hclwrite"
)

// extractList is an Information Extractor whose JSON schema is an array
// (of objects, say): n8n's parser (StructuredOutputParser of the schema's
// zod) asks the model for that array and the item is {output = the
// array}. The step has one output "output" of the schema's type, which
// the model is asked for as {"output": …} (as n8n's Structured Output
// Parser asks); the item is the same. A schema whose type is not known
// throughout (no type, unions, references) is refused: its values are not
// checked as n8n's zod checks them.
func (n *n8n) extractList(node *n8nNode, c *llmCall, in n8nItems, raw, schema *importer.JV) []n8nItems {
	typ, why := importer.JSONSchemaType(schema)
	if why != "" || strings.Contains(typ, "any") {
		n.Problem(node.where, raw, "Unsupported schema", "the schema is an array whose items' type is not known throughout (no type, unions, references): the flow asks for a typed list, checked as n8n's zod checks the schema.")
		return nil
	}
	// n8n's zod leaves out an optional property the model gave no value;
	// the step's typed object has it null: each element leaves it out.
	item := "{ output = r.output }"
	if strings.Contains(typ, "optional(") {
		if strings.Count(typ, "object(") > 1 || !strings.HasPrefix(typ, "list(object(") {
			n.Problem(node.where, raw, "Unsupported schema", "the schema's array has optional properties below its items' own, which n8n leaves out when the model gives no value and the flow's typed values hold as null.")
			return nil
		}
		item = "{ output = [for o in r.output : { for k, v in o : k => v if v != null }] }"
	}
	n.Warn(node.where, raw, "List asked as a field",
		"the schema is an array: the model is asked for {\"output\": the array} (n8n asks for the array itself); each item is {output = the array}, as n8n gives it.")
	c.outputs = func(body *hclwrite.Body) { outputBlock(body, "output", typ, schema.Text("description"), nil, false) }
	n.writeLLM(c, "the list extracted from each item's text")
	return []n8nItems{llmItems(node, in, item)}
}

// warnRenamed warns of the fields of a schema that are named otherwise
// for the model (what: the step's outputs, the tool's flow's inputs).
func (n *n8n) warnRenamed(node *n8nNode, at *importer.JV, fields []schemaField, what string) {
	var renamed []string
	for _, f := range fields {
		if f.name != f.key {
			renamed = append(renamed, fmt.Sprintf("%q as %s", f.key, f.name))
		}
	}
	if len(renamed) > 0 {
		n.Warn(node.where, at, "Fields renamed for the model",
			fmt.Sprintf("%s are named in lower-case snake_case, the names the model is asked for: %s; each item has n8n's names.", what, strings.Join(renamed, ", ")))
	}
}
