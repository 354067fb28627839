package n8n

import (
	"fmt"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2/hclwrite"
)

// The AI root nodes that ask a model for fields of a fixed shape: the
// Information Extractor, the Text Classifier and Sentiment Analysis, whose
// schemas become the step's output blocks.

// schemaField is a field of an object a model returns.
type schemaField struct {
	key, name, typ, description string
	required                    bool
}

// objectFields are the fields of a JSON Schema of an object (required
// as its required says), or of an example (all required or none), each
// named as it is.
func objectFields(schema *importer.JV, example bool, allRequired bool) ([]schemaField, string) {
	return schemaFields(schema, example, allRequired, false)
}

// schemaFields are objectFields, each named as an output of a step can be
// when rename is set (the item keeps the key).
func schemaFields(schema *importer.JV, example, allRequired, rename bool) ([]schemaField, string) {
	props := schema
	if !example {
		props = schema.Get("properties")
		if schema.Text("type") != "object" && props == nil || props == nil || props.Kind != 'o' {
			return nil, "is not an object with properties"
		}
	} else if schema.Kind != 'o' {
		return nil, "is not an object"
	}
	required := map[string]bool{}
	for _, r := range schema.Items("required") {
		required[r.Str] = true
	}
	used := map[string]bool{}
	var out []schemaField
	for _, k := range props.Keys {
		f := schemaField{key: k, name: outputName(k, used)}
		if example {
			f.typ, f.required = exampleType(props.Obj[k], allRequired), allRequired
		} else {
			t, why := importer.JSONSchemaType(props.Obj[k])
			if why != "" {
				t = "any"
			}
			f.typ, f.required, f.description = t, required[k], props.Obj[k].Text("description")
		}
		if f.name != k && !rename {
			return nil, fmt.Sprintf("has a property %q that is not an output name of a step", k)
		}
		out = append(out, f)
	}
	return out, ""
}

// fieldsItem is the object of a step instance r's fields, leaving out the
// optional ones the model gave no value (n8n's parser leaves them out).
func fieldsItem(fields []schemaField) importer.Expr {
	var ms []importer.Member
	optional := false
	for _, f := range fields {
		ms = append(ms, importer.Member{Name: f.key, Value: importer.Code("r." + f.name)})
		optional = optional || !f.required
	}
	if !optional {
		return importer.Object(ms)
	}
	return importer.Join("{ for k, v in ", importer.Object(ms), " : k => v if v != null }")
}

// informationExtractorNode asks for the attributes (or the schema) of each
// item's text: each item is {output = the object}.
func (n *n8n) informationExtractorNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	s := n.scope(node, in, true)
	c, ok := n.modelCall(node, in, s)
	if !ok {
		return nil
	}
	text := p.Get("text")
	if text == nil {
		n.Problem(node.where, p, "Missing prompt", "the node has no text to extract from, which n8n fails on too.")
		return nil
	}
	c.prompt = s.textValue(text, "text")
	sys := "You are an expert extraction algorithm.\nOnly extract relevant information from the text.\nIf you do not know the value of an attribute asked to extract, you may omit the attribute's value."
	if v := p.Get("options", "systemPromptTemplate"); v != nil {
		c.system = s.textValue(v, "system")
	} else {
		c.system = importer.Str(sys)
	}
	var fields []schemaField
	switch st := p.Text("schemaType"); st {
	case "", "fromAttributes":
		attrs := p.Items("attributes", "attributes")
		if len(attrs) == 0 {
			n.Problem(node.where, p, "Missing attributes", "the node has no attribute to extract, which n8n fails on too.")
			return nil
		}
		used := map[string]bool{}
		for _, a := range attrs {
			name := a.Text("name")
			if strings.HasPrefix(name, "=") {
				n.Problem(node.where, a.Get("name"), "Unsupported expression", fmt.Sprintf("the attribute's name %q is an expression, which n8n evaluates for each item; the step's outputs are named once.", name))
				return nil
			}
			f := schemaField{key: name, name: outputName(name, used), description: a.Text("description"), required: a.Boolean(false, "required")}
			switch t := a.Text("type"); t {
			case "", "string":
				f.typ = "string"
			case "number":
				f.typ = "number"
			case "boolean":
				f.typ = "bool"
			case "date":
				f.typ = "string"
				n.Warn(node.where, a.Get("type"), "Date as text", fmt.Sprintf("attribute %q is a date: the flow asks for a string and does not check that it is a date (YYYY-MM-DD), as n8n does.", name))
			default:
				f.typ = "any"
			}
			fields = append(fields, f)
		}
	case "fromJson", "manual":
		var schema *importer.JV
		key, def := "jsonSchemaExample", defaultStateExample
		if st == "manual" {
			key, def = "inputSchema", defaultStateSchema
		}
		raw := p.Get(key)
		text := def
		if raw != nil {
			text = raw.Str
		}
		if schema = n.parseJSONParam(node, raw, text); schema == nil {
			return nil
		}
		if st == "manual" && schema.Text("type") == "array" {
			return n.extractList(node, c, in, raw, schema)
		}
		var why string
		fields, why = schemaFields(schema, st == "fromJson", node.version >= 1.2, true)
		if why != "" {
			n.Problem(node.where, raw, "Unsupported schema", "the schema "+why+": the flow asks for an object whose fields are outputs of the step.")
			return nil
		}
	default:
		n.Problem(node.where, p.Get("schemaType"), "Unsupported schema", fmt.Sprintf("schema type %q is none of n8n's.", st))
		return nil
	}
	n.warnRenamed(node, p, fields, "the step's outputs")
	c.outputs = func(body *hclwrite.Body) {
		for _, f := range fields {
			outputBlock(body, f.name, f.typ, f.description, nil, !f.required)
		}
	}
	n.writeLLM(c, "the attributes of each item's text")
	return []n8nItems{llmItems(node, in, "{ output = ", fieldsItem(fields), " }")}
}

// textClassifierNode asks, for each item, which categories its text has
// (a bool for each, as n8n's schema does), and sends the item to the
// output of each category it has.
func (n *n8n) textClassifierNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	s := n.scope(node, in, true)
	c, ok := n.modelCall(node, in, s)
	if !ok {
		return nil
	}
	text := p.Get("inputText")
	if text == nil {
		n.Problem(node.where, p, "Missing prompt", "the node has no text to classify, which n8n fails on too.")
		return nil
	}
	c.prompt = s.textValue(text, "input_text")
	cats := p.Items("categories", "categories")
	if len(cats) == 0 {
		n.Problem(node.where, p, "Missing categories", "the node has no category, which n8n fails on too (At least one category must be defined).")
		return nil
	}
	opts := p.Get("options")
	multi := opts.Boolean(false, "multiClass")
	fallback := opts.Text("fallback")
	if fallback == "" {
		fallback = "discard"
	}
	var names []string
	for _, cat := range cats {
		names = append(names, cat.Text("category"))
	}
	tmpl := "Please classify the text provided by the user into one of the following categories: {categories}, and use the provided formatting instructions below. Don't explain, and only output the json."
	if v := opts.Get("systemPromptTemplate"); v != nil {
		if v.Kind != 's' || strings.HasPrefix(v.Str, "=") {
			n.Problem(node.where, v, "Unsupported expression", "the system prompt template is converted when it is written out.")
			return nil
		}
		tmpl = v.Str
	}
	multiPrompt := "Categories are mutually exclusive, and only one can be true"
	if multi {
		multiPrompt = "Categories are not mutually exclusive, and multiple can be true"
	}
	fallbackPrompt := map[string]string{
		"other":   `If no categories apply, select the "fallback" option.`,
		"discard": "If there is not a very fitting category, select none of the categories.",
	}[fallback]
	c.system = importer.Str(strings.ReplaceAll(tmpl, "{categories}", strings.Join(names, ", ")) + "\n" + multiPrompt + "\n" + fallbackPrompt)
	used := map[string]bool{}
	type out struct{ name, desc string }
	var outs []out
	for _, cat := range cats {
		name := cat.Text("category")
		outs = append(outs, out{outputName(name, used), fmt.Sprintf("Should be true if the input has category %q (description: %s)", name, cat.Text("description"))})
	}
	if fallback == "other" {
		outs = append(outs, out{outputName("fallback", used), "Should be true if none of the other categories apply"})
	}
	c.outputs = func(body *hclwrite.Body) {
		for _, o := range outs {
			outputBlock(body, o.name, "bool", o.desc, nil, false)
		}
	}
	n.writeLLM(c, "the categories of each item's text")
	var items []n8nItems
	for _, o := range outs {
		cond := importer.Join(importer.Ref("step", node.step), "[i].", importer.Code(o.name))
		items = append(items, pairedWith(importer.Join("[for i, item in ", in.e, " : item if ", cond, "]"), in,
			importer.Join("[for i, item in ", in.e, " : i if ", cond, "]")))
	}
	return items
}

// sentimentNode asks for the sentiment of each item's text (one of the
// categories, with its strength and confidence) and sends the item, with
// sentimentAnalysis added, to the output of its category.
func (n *n8n) sentimentNode(node *n8nNode, in n8nItems) []n8nItems {
	p := node.params
	s := n.scope(node, in, true)
	c, ok := n.modelCall(node, in, s)
	if !ok {
		return nil
	}
	text := p.Get("inputText")
	if text == nil {
		n.Problem(node.where, p, "Missing prompt", "the node has no text to analyse, which n8n fails on too.")
		return nil
	}
	c.prompt = s.textValue(text, "input_text")
	opts := p.Get("options")
	catText := "Positive, Neutral, Negative"
	if v := opts.Get("categories"); v != nil {
		if v.Kind != 's' || strings.HasPrefix(v.Str, "=") {
			n.Problem(node.where, v, "Unsupported expression", "the categories are converted when they are written out: they are the node's outputs.")
			return nil
		}
		catText = v.Str
	}
	var cats []string
	for _, c := range strings.Split(catText, ",") {
		if c = strings.TrimSpace(c); c != "" {
			cats = append(cats, c)
		}
	}
	if len(cats) == 0 {
		n.Problem(node.where, opts.Get("categories"), "Missing categories", "the node has no category, which n8n fails on too.")
		return nil
	}
	tmpl := "You are highly intelligent and accurate sentiment analyzer. Analyze the sentiment of the provided text. Categorize it into one of the following: {categories}. Use the provided formatting instructions. Only output the JSON."
	if v := opts.Get("systemPromptTemplate"); v != nil {
		if v.Kind != 's' || strings.HasPrefix(v.Str, "=") {
			n.Problem(node.where, v, "Unsupported expression", "the system prompt template is converted when it is written out.")
			return nil
		}
		tmpl = v.Str
	}
	c.system = importer.Str(strings.ReplaceAll(tmpl, "{categories}", catText))
	c.outputs = func(body *hclwrite.Body) {
		outputBlock(body, "sentiment", "string", "", cats, false)
		outputBlock(body, "strength", "number", "Strength score for sentiment in relation to the category", nil, false)
		outputBlock(body, "confidence", "number", "", nil, false)
	}
	n.writeLLM(c, "the sentiment of each item's text")
	analysis := "{ category = r.sentiment }"
	if opts.Boolean(false, "includeDetailedResults") {
		analysis = "{ category = r.sentiment, strength = r.strength, confidence = r.confidence }"
	}
	var items []n8nItems
	for _, cat := range cats {
		cond := importer.Join("lower(", importer.Ref("step", node.step), "[i].sentiment) == ", importer.Str(strings.ToLower(cat)))
		items = append(items, pairedWith(importer.Join("[for i, item in ", in.e, " : merge(item, { sentimentAnalysis = ", importer.Code(strings.ReplaceAll(analysis, "r.", "step."+node.step+"[i].")), " }) if ", cond, "]"), in,
			importer.Join("[for i, item in ", in.e, " : i if ", cond, "]")))
	}
	return items
}
