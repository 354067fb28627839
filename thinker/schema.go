package thinker

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
)

// A stageSchema is what a stage's reply must look like. Send is the schema
// sent as response_format, as exact as the request allows (the blocks a
// wire reply may use, the example fields of a block to create); Shape is
// the general shape every reply of the stage has, which the reply is
// checked against before it is used. A reply that does not have the
// shape is malformed; one that has it but says something wrong (a bad
// type expression, an unknown block) goes back to the model.
type stageSchema struct {
	Name   string
	Send   json.RawMessage
	Strict bool
	Shape  json.RawMessage
}

// Replies.

type clarifyReply struct {
	Ready         bool   `json:"ready"`
	Question      string `json:"question"`
	RefinedIntent string `json:"refined_intent"`
}

type decomposeReply struct {
	Blocks []BlockSpec `json:"blocks"`
}

type createReply struct {
	ID          string      `json:"id"`
	Description string      `json:"description"`
	Runtime     string      `json:"runtime"`
	Source      *string     `json:"source"`
	Prompt      *string     `json:"prompt"`
	Inputs      []FieldSpec `json:"inputs"`
	Outputs     []FieldSpec `json:"outputs"`
	// Requirements are a python block's packages, when the run allows
	// them (Options.AllowPackages).
	Requirements []string `json:"requirements"`
	Example      struct {
		Input  json.RawMessage `json:"input"`
		Output json.RawMessage `json:"output"`
	} `json:"example"`
}

// wireReply is the reply of wire and of repair: the whole flow the
// thinker can write (docs/thinker.md, "What the thinker writes").
type wireReply struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Inputs      []wireInput    `json:"inputs"`
	Secrets     []wireSecret   `json:"secrets"`
	Memory      []wireMemory   `json:"memory"`
	Steps       []wireStep     `json:"steps"`
	Outputs     []wireOutput   `json:"outputs"`
	Schedules   []wireSchedule `json:"schedules"`
	// given are the fields the reply has; one it leaves out (secrets,
	// memory, schedules) is kept as the edited flow has it.
	given map[string]bool
}

type wireInput struct {
	Name        string          `json:"name"`
	Type        string          `json:"type"`
	Description string          `json:"description"`
	Default     json.RawMessage `json:"default"`
}

// wireSecret is a secret block: a credential read from the environment.
type wireSecret struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// wireMemory is a memory block; Default and Value are HCL expressions.
type wireMemory struct {
	Name        string  `json:"name"`
	Type        string  `json:"type"`
	Default     *string `json:"default"`
	Value       *string `json:"value"`
	Description string  `json:"description"`
}

// wireSchedule is a schedule block; Inputs is an HCL object expression.
type wireSchedule struct {
	Name     string  `json:"name"`
	Cron     string  `json:"cron"`
	Timezone *string `json:"timezone"`
	Inputs   *string `json:"inputs"`
}

type wireStep struct {
	Name      string             `json:"name"`
	Use       string             `json:"use"`
	Args      map[string]*string `json:"args"`
	DependsOn []string           `json:"depends_on"`
	Retry     *wireRetry         `json:"retry"`
	Timeout   *string            `json:"timeout"`
	OnError   *string            `json:"on_error"`
	// Tools are what an llm step's model may call: flow.NAME, block.NAME.
	Tools []string `json:"tools"`
	// given are the fields the reply has; a meta-argument it leaves out
	// is kept as the edited flow has it.
	given map[string]bool
}

// given lists the fields of a JSON object that are there (null
// included), for the parts of a flow a reply to think --edit may leave
// out to keep them as they are.
func given(data []byte) map[string]bool {
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil {
		return nil
	}
	out := make(map[string]bool, len(fields))
	for k := range fields {
		out[k] = true
	}
	return out
}

func (s *wireStep) UnmarshalJSON(data []byte) error {
	type plain wireStep
	if err := json.Unmarshal(data, (*plain)(s)); err != nil {
		return err
	}
	s.given = given(data)
	return nil
}

func (r *wireReply) UnmarshalJSON(data []byte) error {
	type plain wireReply
	if err := json.Unmarshal(data, (*plain)(r)); err != nil {
		return err
	}
	r.given = given(data)
	return nil
}

// wireRetry is a step's retry block.
type wireRetry struct {
	Attempts float64 `json:"attempts"`
	Backoff  *string `json:"backoff"`
}

type wireOutput struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Schemas. They are built as ordered objects, since models write the
// fields in the order the schema gives them.

// obj and member are llm's ordered JSON object.
type (
	obj    = llm.Object
	member = llm.Member
)

// object is a closed object schema whose properties are all required, as
// strict structured outputs want.
func object(props ...member) obj {
	properties := make(obj, len(props))
	required := make([]string, len(props))
	for i, p := range props {
		properties[i] = p
		required[i] = p.Key
	}
	return obj{{Key: "type", Value: "object"}, {Key: "properties", Value: properties}, {Key: "required", Value: required}, {Key: "additionalProperties", Value: false}}
}

func prop(name string, schema any) member { return member{Key: name, Value: schema} }

func str(desc string) obj {
	if desc == "" {
		return obj{{Key: "type", Value: "string"}}
	}
	return obj{{Key: "type", Value: "string"}, {Key: "description", Value: desc}}
}

func nullableStr(desc string) obj {
	return obj{{Key: "type", Value: []string{"string", "null"}}, {Key: "description", Value: desc}}
}

func boolean(desc string) obj {
	return obj{{Key: "type", Value: "boolean"}, {Key: "description", Value: desc}}
}

func array(items any) obj { return obj{{Key: "type", Value: "array"}, {Key: "items", Value: items}} }

func enum(desc string, values ...string) obj {
	return obj{{Key: "type", Value: "string"}, {Key: "enum", Value: values}, {Key: "description", Value: desc}}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only the schema types above
	}
	return b
}

const typeDesc = "An HCL type expression: string, number, bool, list(string), map(number), object({ title = string, url = string }) or any"

func fieldSchema() obj {
	return object(
		prop("name", str("A snake_case name: [a-z_][a-z0-9_]*")),
		prop("type", str(typeDesc)),
		prop("description", str("What the field holds")),
	)
}

func runtimeSchema() obj {
	return enum(`"go", "js" or "python" for deterministic code, "llm" for work that needs a language model`,
		lang.RuntimeGo, lang.RuntimeJS, lang.RuntimePython, lang.RuntimeLLM)
}

// preferredRuntimeSchema is the runtime of a decompose reply when code
// blocks are to be written in one runtime (Options.Runtime).
func preferredRuntimeSchema(code string) obj {
	return enum(fmt.Sprintf(`%q for deterministic code, "llm" for work that needs a language model`, code),
		code, lang.RuntimeLLM)
}

var clarifySchema = func() stageSchema {
	s := mustJSON(object(
		prop("ready", boolean("Whether the intent says enough to build the flow")),
		prop("question", str("One short question for the user when not ready; empty when ready")),
		prop("refined_intent", str("The intent restated completely, with everything the answers added")),
	))
	return stageSchema{Name: StageClarify, Send: s, Strict: true, Shape: s}
}()

var decomposeSchema = decomposeSchemaFor("")

// decomposeSchemaFor is the schema of a decompose reply whose code blocks
// are written in the runtime code ("": the model chooses).
func decomposeSchemaFor(code string) stageSchema {
	runtime := runtimeSchema()
	if code != "" {
		runtime = preferredRuntimeSchema(code)
	}
	s := mustJSON(object(prop("blocks", array(object(
		prop("id", str("A snake_case name for the block: [a-z_][a-z0-9_]*")),
		prop("description", str("What the block does, in one sentence")),
		prop("runtime", runtime),
		prop("inputs", array(fieldSchema())),
		prop("outputs", array(fieldSchema())),
	)))))
	return stageSchema{Name: StageDecompose, Send: s, Strict: true, Shape: s}
}

// createSchema is the schema of a create_block reply for spec: its
// runtime is the spec's, and its example's input and output are objects of
// the spec's fields. The shape the reply is checked against allows every
// runtime, so that a reply of another runtime goes back to the model as a
// failed check rather than ending the run as malformed. With packages,
// the schema sent offers a python block requirements; the shape always
// takes them, so that a block that declares them when the run does not
// allow packages fails its check saying so ("Packages not allowed").
func createSchema(spec BlockSpec, packages bool) stageSchema {
	build := func(runtime, example obj, packages bool) obj {
		var reqs []member
		if packages {
			reqs = append(reqs, prop("requirements", array(str("A pip requirement of a python block, with a version: numpy>=2.1"))))
		}
		return object(append([]member{
			prop("id", str("The block's name, as given")),
			prop("description", str("What the block does, in one sentence")),
			prop("runtime", runtime),
			prop("source", nullableStr("The code of a go, js or python block; null for an llm block")),
			prop("prompt", nullableStr("The prompt template of an llm block, over input.NAME; null for a go, js or python block")),
			prop("inputs", array(fieldSchema())),
			prop("outputs", array(fieldSchema())),
			prop("example", example),
		}, reqs...)...)
	}
	in, inStrict := llm.FieldsSchema(specFields(spec.Inputs))
	out, outStrict := llm.FieldsSchema(specFields(spec.Outputs))
	runtime := runtimeSchema()
	if spec.Runtime != "" {
		runtime = enum("The runtime the specification gives", spec.Runtime)
	}
	send := build(runtime, object(
		prop("input", json.RawMessage(in)),
		prop("output", json.RawMessage(out)),
	), packages)
	shape := build(runtimeSchema(), object(
		prop("input", obj{{Key: "type", Value: "object"}}),
		prop("output", obj{{Key: "type", Value: "object"}}),
	), true)
	for i, m := range shape {
		if m.Key == "required" {
			shape[i].Value = slices.DeleteFunc(slices.Clone(m.Value.([]string)), func(k string) bool { return k == "requirements" })
		}
	}
	return stageSchema{Name: StageCreateBlock, Send: mustJSON(send), Strict: inStrict && outStrict, Shape: mustJSON(shape)}
}

// specFields are a spec's fields as lang fields, for llm.FieldsSchema.
func specFields(fs []FieldSpec) []*lang.Field {
	out := make([]*lang.Field, len(fs))
	for i, f := range fs {
		out[i] = &lang.Field{Name: f.Name, Type: lang.TypeSpec{Type: f.Parsed}, Description: f.Description}
	}
	return out
}

// stepMetaArgs are the meta-arguments a wire reply may give among a
// step's args.
var stepMetaArgs = []string{"for_each", "when"}

// wireSchema is the schema of a wire or repair reply that may use the
// given blocks: each step is one of the blocks, with its inputs as args.
// A step may also use one of others (the blocks of a flow being edited
// that the registry does not describe: flows, inline blocks of other
// flows), with any args; the schema is then not enforced strictly. tools
// are what the model of an llm step may call (flow.NAME, block.NAME).
func wireSchema(name string, bs []*blocks.Block, tools []string, others ...string) stageSchema {
	var variants []any
	for _, b := range bs {
		var args []member
		for _, in := range b.Inputs {
			desc := fmt.Sprintf("An HCL expression of type %s for input %q", typeName(in.Type.Type), in.Name)
			if in.Description != "" {
				desc += ": " + in.Description
			}
			if in.Required() {
				args = append(args, prop(in.Name, str(desc+" (required)")))
			} else {
				args = append(args, prop(in.Name, nullableStr(desc+"; null for the default")))
			}
		}
		for _, m := range stepMetaArgs {
			if b.Input(m) == nil {
				args = append(args, prop(m, nullableStr(metaArgDesc[m])))
			}
		}
		variants = append(variants, stepSchema(enum("The block the step runs", b.Name), object(args...), b.IsLLM(), tools, true))
	}
	if len(others) > 0 {
		variants = append(variants, stepSchema(enum("A block the current flow uses", others...),
			obj{{Key: "type", Value: "object"}, {Key: "additionalProperties", Value: nullableStr("An HCL expression")}}, true, tools, true))
	}
	var steps any = obj{}
	switch len(variants) {
	case 0:
	case 1:
		steps = variants[0]
	default:
		steps = obj{{Key: "anyOf", Value: variants}}
	}
	shape := stepSchema(str(""),
		obj{{Key: "type", Value: "object"}, {Key: "additionalProperties", Value: obj{{Key: "type", Value: []string{"string", "null"}}}}},
		true, nil, false)
	return stageSchema{Name: name, Send: mustJSON(flowSchema(steps, true)), Strict: len(others) == 0, Shape: mustJSON(flowSchema(shape, false))}
}

// flowSchema is the schema of a whole flow in a wire reply, with steps
// as the schema of one step. send: the schema sent (nullable objects as
// anyOf, as strict mode wants them); else the shape a reply is checked
// against.
func flowSchema(steps any, send bool) obj {
	return object(
		prop("name", str("The flow's snake_case name")),
		prop("description", str("What the flow does, in one sentence")),
		prop("inputs", array(object(
			prop("name", str("A snake_case input name")),
			prop("type", str(typeDesc)),
			prop("description", str("What the input is")),
			prop("default", defaultSchema()),
		))),
		prop("secrets", array(object(
			prop("name", str("A snake_case secret name; the value is read from the environment variable FLOWCTL_SECRET_ and the name upper-cased")),
			prop("description", str("What the credential is for")),
		))),
		prop("memory", array(object(
			prop("name", str("A snake_case memory name, referred to as memory.NAME")),
			prop("type", str(typeDesc)),
			prop("default", nullableStr("An HCL literal: the value before any run stored one; null for null")),
			prop("value", nullableStr("An HCL expression stored when a run succeeds, such as step.fetch.etag; null for a memory that is only read")),
			prop("description", str("What is remembered")),
		))),
		prop("steps", array(steps)),
		prop("outputs", array(object(
			prop("name", str("A snake_case output name")),
			prop("value", str("An HCL expression, such as step.summary.text")),
		))),
		prop("schedules", array(object(
			prop("name", str("A snake_case schedule name")),
			prop("cron", str("Five cron fields (minute hour day-of-month month day-of-week), such as \"0 7 * * 1-5\", or @hourly, @daily, @weekly, @every 30m")),
			prop("timezone", nullableStr("The IANA time zone the fields are read in, such as \"Europe/Paris\"; null for UTC")),
			prop("inputs", nullableStr("An HCL object of the flow's input values for the scheduled runs, such as { topic = \"news\" }; null for the defaults")),
		))),
	)
}

// stepSchema is the schema of one step: use and args as given, with the
// meta-arguments a reply may set. tools is for llm steps: the references
// the model may call (any string when there is no list).
func stepSchema(use, args obj, llmStep bool, tools []string, send bool) obj {
	retry := object(
		prop("attempts", obj{{Key: "type", Value: "number"}, {Key: "description", Value: "Total tries, the first included: a whole number of at least 2"}}),
		prop("backoff", nullableStr("The wait before the second try, a duration such as \"2s\" (doubled after each try); null for 1s")),
	)
	const retryDesc = "Retries of a step that can fail for a moment (a network call, an API with rate limits); null for one attempt"
	var retrySchema obj
	if send {
		retrySchema = obj{{Key: "description", Value: retryDesc}, {Key: "anyOf", Value: []any{retry, obj{{Key: "type", Value: "null"}}}}}
	} else {
		retrySchema = append(obj{{Key: "type", Value: []string{"object", "null"}}}, retry[1:]...)
	}
	props := []member{
		prop("name", str("A snake_case step name, unique in the flow")),
		prop("use", use),
		prop("args", args),
		prop("depends_on", array(str("The name of a step that must run first although no value is passed"))),
		prop("retry", retrySchema),
		prop("timeout", nullableStr("The time limit of one attempt, a duration such as \"30s\" or \"2m\" (for an approval step: how long it waits for a decision); null for the block's")),
		prop("on_error", obj{{Key: "type", Value: []string{"string", "null"}}, {Key: "enum", Value: []any{"fail", "continue", nil}},
			{Key: "description", Value: "\"continue\" when the flow should go on without this step's outputs (they become null) if it fails; null or \"fail\" to fail the run"}}),
	}
	if llmStep {
		item := str("flow.NAME or block.NAME")
		if len(tools) > 0 {
			item = enum("A flow or block the model may call", tools...)
		}
		props = append(props, prop("tools", obj{{Key: "type", Value: []string{"array", "null"}}, {Key: "items", Value: item},
			{Key: "description", Value: "What the model may call while it answers (flows and blocks, as tools); null for none"}}))
	}
	return object(props...)
}

var metaArgDesc = map[string]string{
	"for_each": "Optional: an HCL expression of a list or map; the step runs once per element, with each.key and each.value, and step.NAME[*].FIELD lists the outputs. null for one run",
	"when":     "Optional: an HCL bool expression; false skips the step. null to always run",
}

// defaultSchema is an input's default: a JSON value, or null for a
// required input.
func defaultSchema() obj {
	scalar := []any{obj{{Key: "type", Value: "string"}}, obj{{Key: "type", Value: "number"}}, obj{{Key: "type", Value: "boolean"}}}
	return obj{
		{Key: "description", Value: "The default value as JSON, or null when the input is required"},
		{Key: "anyOf", Value: append(append([]any{}, scalar...),
			array(obj{{Key: "anyOf", Value: scalar}}),
			obj{{Key: "type", Value: "null"}},
		)},
	}
}

// typeName renders a type for people and models: "any" for the dynamic
// type.
func typeName(ty cty.Type) string {
	if ty == cty.DynamicPseudoType {
		return "any"
	}
	return lang.TypeString(ty)
}
