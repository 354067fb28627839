package n8n

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2/hclwrite"
	"github.com/zclconf/go-cty/cty"
)

// The AI sub-nodes that shape a step's conversation and reply: the chat
// memories, kept as a memory block of the flow, and the output parsers,
// the step's output blocks.

// aiMemory is a conversation memory: the memory block and how many
// messages a step reads from it.
type aiMemory struct {
	node    *n8nNode
	name    string        // the memory block
	session importer.Expr // the session's key, for the current item
	window  int           // messages kept (n8n's context window length, times two)
	// skipFailed: the step continues on error, and a failed call adds no
	// turn.
	skipFailed bool
}

// chatMemories are the memory nodes converted, and where n8n keeps their
// messages (for the warning); "" keeps them in the n8n process, as the
// flow's memory keeps them in the state.
var chatMemories = map[string]string{
	"memoryBufferWindow": "",
	"memoryPostgresChat": "a PostgreSQL table",
	"memoryRedisChat":    "Redis",
	"memoryMongoDbChat":  "MongoDB",
	"memoryXata":         "Xata",
	"memoryZep":          "Zep",
	"memoryMotorhead":    "Motorhead",
}

// memory converts the memory on a root's ai_memory input, if any: the
// session key as n8n's getSessionId reads it.
func (n *n8n) memory(root *n8nNode, s *n8nScope) (*aiMemory, bool) {
	mems := root.subNodes("ai_memory")
	if len(mems) == 0 {
		return nil, true
	}
	node := mems[0]
	short := strings.TrimPrefix(node.fullType, langchainPrefix)
	where, ok := chatMemories[short]
	if !ok || node.disabled {
		n.Problem(node.where, node.j.Get("type"), "Unsupported memory",
			fmt.Sprintf("flowctl import converts the chat memories %s into a memory block of the flow; not %s.", strings.Join(importer.SortedKeys(chatMemories), ", "), node.fullType))
		return nil, false
	}
	node.conv = true
	p := node.params
	m := &aiMemory{node: node, window: 2 * int(p.Number(5, "contextWindowLength"))}
	if short == "memoryMotorhead" || short == "memoryZep" || short == "memoryXata" {
		m.window = 0 // the whole conversation
	}
	if where != "" {
		n.Warn(node.where, node.j.Get("type"), "Memory kept in the state",
			fmt.Sprintf("n8n keeps this conversation in %s; the flow keeps it in a memory block of its state, keyed by the same session.", where))
	}
	var key *importer.JV
	switch {
	case node.version < 1.2 && short == "memoryBufferWindow":
		key = p.Get("sessionKey")
		if key == nil {
			def := "chat_history"
			if node.version >= 1.1 {
				def = "={{ $json.sessionId }}"
			}
			key = &importer.JV{Kind: 's', Str: def, Ptr: p.Ptr + "/sessionKey", Rng: p.Rng}
		}
	case p.Text("sessionIdType") == "customKey":
		key = p.Get("sessionKey")
		if key == nil || key.Kind == 's' && key.Str == "" {
			n.Problem(node.where, p, "Missing session key", "the memory's key is empty, which n8n fails on too (Key parameter is empty).")
			return nil, false
		}
	default:
		key = &importer.JV{Kind: 's', Str: "={{ $json.sessionId }}", Ptr: p.Ptr + "/sessionIdType", Rng: p.Rng}
	}
	m.session = s.textValue(key, "session_id")
	if key.Str == "={{ $json.sessionId }}" && n.chatTrigger != nil {
		// n8n falls back on the chat trigger's session.
		m.session = importer.Call("try", m.session, importer.Ref("input", "session_id"))
	}
	m.name = n.Name("memory", node.name, "conversation")
	return m, true
}

// declareMemory writes the memory block of a conversation that step
// (for each item of its turn step) adds a turn to when the run succeeds.
func (n *n8n) declareMemory(m *aiMemory, turn, step string, reply importer.Expr) {
	b := hclwrite.NewBlock("memory", []string{m.name})
	body := b.Body()
	body.SetAttributeRaw("type", importer.Clone(importer.Code("map(list(object({ role = string, content = string })))")))
	body.SetAttributeRaw("default", importer.Clone(importer.Code("{}")))
	mem := importer.Ref("memory", m.name)
	// A failed call (the step continues on error) adds no turn, as n8n
	// saves the context only after a reply.
	failed := ""
	if m.skipFailed {
		failed = " if step." + step + "[i] != null"
	}
	turns := importer.Join("{ for i, t in ", importer.Ref("step", turn), " : t.value.session => [{ role = \"user\", content = t.value.prompt }, { role = \"assistant\", content = ",
		reply, " }]..."+failed+" }")
	all := importer.Join("{ for sid, turns in ", turns, " : sid => concat(lookup(", mem, ", sid, []), flatten(turns)) }")
	value := importer.Join("merge(", mem, ", ", all, ")")
	if m.window > 0 {
		value = importer.Join("merge(", mem, ", { for sid, l in ", all, " : sid => slice(l, max(length(l) - ", importer.Code(strconv.Itoa(m.window)), ", 0), length(l)) })")
	}
	body.SetAttributeRaw("value", importer.Clone(value))
	body.SetAttributeValue("description", cty.StringVal(fmt.Sprintf("The conversations of n8n node %q, by session", m.node.name)))
	what := "the whole conversation"
	if m.window > 0 {
		what = fmt.Sprintf("the last %d messages", m.window)
	}
	n.File.Memories = append(n.File.Memories, importer.Decl{Comment: []string{fmt.Sprintf("%s: %s of each session", n.nodeComment(m.node), what)}, Block: b})
}

// outputParser converts the parser on a root's ai_outputParser input, if
// any, into the output blocks of its llm step: n8n's Structured Output
// Parser asks the model for {"output": …} and gives that object, and so
// does the step with one output "output" of the schema's type. Its v1
// asks for {"__structured__output": {"__structured__output__object": …}}
// (or "__structured__output__array", exactly one of the two) instead and
// gives what is inside: wrapped reports it, and the type is the wrapper's.
func (n *n8n) outputParser(root *n8nNode) (typ string, parsed, ok, wrapped bool) {
	parsers := root.subNodes("ai_outputParser")
	if len(parsers) == 0 {
		return "", false, true, false
	}
	node := parsers[0]
	short := strings.TrimPrefix(node.fullType, langchainPrefix)
	if short == "outputParserAutofixing" {
		// It re-asks the model with the parser's error, as the llm step
		// does: its own parser gives the schema.
		node.conv = true
		inner := node.subNodes("ai_outputParser")
		if len(inner) == 0 {
			n.Problem(node.where, node.j, "Missing output parser", "the auto-fixing parser needs an output parser on its input.")
			return "", false, false, false
		}
		for _, mdl := range node.subNodes("ai_languageModel") {
			mdl.conv = true
		}
		node = inner[0]
		short = strings.TrimPrefix(node.fullType, langchainPrefix)
	}
	if short != "outputParserStructured" || node.disabled {
		n.Problem(node.where, node.j.Get("type"), "Unsupported output parser",
			fmt.Sprintf("flowctl import converts the Structured Output Parser (and the auto-fixing one around it) into the step's output; not %s.", node.fullType))
		return "", false, false, false
	}
	p := node.params
	var schema *importer.JV
	required := node.version >= 1.3
	switch {
	case node.version <= 1.1 || p.Text("schemaType") == "manual":
		key := "inputSchema"
		if node.version <= 1.1 {
			key = "jsonSchema"
		}
		raw := p.Get(key)
		text := defaultStateSchema
		if raw != nil {
			text = raw.Str
		}
		schema = n.parseJSONParam(node, raw, text)
		if schema == nil {
			return "", false, false, false
		}
		t, why := importer.JSONSchemaType(schema)
		if why != "" {
			n.Warn(node.where, raw, "Untyped schema", "the schema "+why+": its HCL type is any, checked only at run time.")
		}
		typ = t
	default:
		raw := p.Get("jsonSchemaExample")
		text := defaultStateExample
		if raw != nil {
			text = raw.Str
		}
		example := n.parseJSONParam(node, raw, text)
		if example == nil {
			return "", false, false, false
		}
		typ = exampleType(example, required)
	}
	node.conv = true
	if node.version == 1 {
		typ = fmt.Sprintf("object({ __structured__output__object = optional(%s), __structured__output__array = optional(list(%s)) })", typ, typ)
		return typ, true, true, true
	}
	return typ, true, true, false
}

// The parsers' defaults, which a workflow that keeps them does not hold.
const (
	defaultStateExample = `{"state": "California", "cities": ["Los Angeles", "San Francisco", "San Diego"]}`
	defaultStateSchema  = `{"type": "object", "properties": {"state": {"type": "string"}, "cities": {"type": "array", "items": {"type": "string"}}}}`
)

// parseJSONParam reads a parameter holding JSON text (an example, a
// schema); text is its value or default.
func (n *n8n) parseJSONParam(node *n8nNode, raw *importer.JV, text string) *importer.JV {
	if raw != nil && (raw.Kind != 's' || strings.HasPrefix(raw.Str, "=")) {
		n.Problem(node.where, raw, "Unsupported expression", "the schema is converted when it is written out, not an expression.")
		return nil
	}
	at := node.params
	if raw != nil {
		at = raw
	}
	src, d := importer.ParseSource(n.Src.Name, []byte(text))
	if d.HasErrors() || src == nil {
		n.Problem(node.where, at, "Invalid JSON", "the schema is not JSON, which n8n fails on too: "+d.Error())
		return nil
	}
	return src.Root
}

// exampleType is the HCL type of the values like an example: what n8n's
// generate-schema finds in it. Objects' fields are required from Structured
// Output Parser v1.3 on (optional before).
func exampleType(v *importer.JV, required bool) string {
	switch v.Kind {
	case 's':
		return "string"
	case 'n':
		return "number"
	case 'b':
		return "bool"
	case 'a':
		if len(v.Arr) == 0 {
			return "list(any)"
		}
		t := exampleType(v.Arr[0], required)
		for _, e := range v.Arr[1:] {
			if exampleType(e, required) != t {
				return "list(any)"
			}
		}
		return "list(" + t + ")"
	case 'o':
		if len(v.Keys) == 0 {
			return "any"
		}
		var attrs []string
		for _, k := range v.Keys {
			if !importer.ValidAttrName(k) {
				return "any"
			}
			t := exampleType(v.Obj[k], required)
			if !required {
				t = "optional(" + t + ")"
			}
			attrs = append(attrs, k+" = "+t)
		}
		return "object({ " + strings.Join(attrs, ", ") + " })"
	}
	return "any"
}
