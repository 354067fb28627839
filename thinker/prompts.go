package thinker

import (
	"encoding/json"
	"strings"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/sandbox/gorun"
	"github.com/flowctl/flowctl/blocks/sandbox/pyrun"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/lang/jsonval"
	"github.com/zclconf/go-cty/cty"
)

// The system messages of the stages. The user messages are JSON objects
// of what the stage works on (see the message functions below), so that
// names, types and texts reach the model unambiguously.

const clarifySystem = `You help turn a user's intent into an automation flow for flowctl: a pipeline of typed steps (HTTP calls, file reads, small Go, JavaScript or Python functions, language-model calls) wired together.

Decide whether the intent says enough to build the flow: what comes in (the flow's inputs, the URLs, files or APIs it reads), what happens to it, and what comes out. Choose sensible defaults yourself for details a competent engineer would decide alone; ask only about what would change the flow's structure.

If the intent is specific enough, reply with ready = true, an empty question, and refined_intent restating the whole intent precisely, with the choices you made. Otherwise reply with ready = false, exactly one short question for the user, and refined_intent restating what is understood so far. Earlier questions and the user's answers may follow the intent; take them into account.`

const decomposeSystem = `You design flows for flowctl. A flow is a pipeline of steps; each step runs a block, a typed function with named inputs and outputs. List the blocks the intent needs, each doing one thing, in the order the data flows.

Each block has:
- id: a snake_case name ([a-z_][a-z0-9_]*), unique in the list;
- description: one sentence saying what it does;
- runtime: "go", "js" or "python" for deterministic code (parsing, counting, computing, formatting or transforming data), "llm" for what needs a language model (summarizing, classifying, extracting meaning, writing text);
- inputs and outputs: each with a snake_case name, a type and a description. Types are HCL type expressions: string, number, bool, list(T), set(T), map(T), object({ name = T, ... }), any.

The message lists the available blocks. When one of them does what a block must do, describe that block with the available block's input and output names and types, so that it is reused: fetching a URL, calling an HTTP API, reading a local file, asking a model a plain question and passing a value through are all done by available blocks. Only describe the inputs a block needs; leave out options that have defaults. Do not list blocks for the flow's own inputs or outputs.`

// decomposeSystemFor is the decompose stage's system message when code
// blocks are to be written in the runtime code ("": the model chooses).
func decomposeSystemFor(code string) string {
	if code == "" {
		return decomposeSystem
	}
	return decomposeSystem + "\n\nWrite every block of deterministic code with runtime \"" + code + "\": the user prefers it."
}

// createSystem explains the runtimes; the Go and Python allowlists are the
// sandbox's.
var createSystem = `You write one block for flowctl: a typed function with named inputs and outputs, run in a sandbox. The message gives the block's name and specification and what the flow needs it for. Keep its inputs and outputs as specified.

Reply with:
- id: the block's name, as given;
- description: one sentence;
- runtime: "go", "js", "python" or "llm";
- source: the code of a go, js or python block (null for llm); prompt: the prompt of an llm block (null for go, js and python);
- inputs and outputs: name, HCL type expression (string, number, bool, list(string), object({ a = number }), any, ...) and description;
- example: input gives a value for every input, output the exact outputs the block returns for that input. The example is run as a test: the outputs must match exactly, so choose an input whose result is certain.

Runtimes:
- go: the source is a Go file of package block with exactly this function:
    func Execute(ctx context.Context, input map[string]any) (map[string]any, error)
  Values are JSON-shaped: string, float64 (every number), bool, []any, map[string]any, nil. Read input["text"].(string), input["n"].(float64); return map[string]any{"count": n}. Only these standard packages may be imported: ` + strings.Join(gorun.Packages(), ", ") + `. No goroutines, no files, no network, no printing.
- js: the source defines function execute(input, ctx) { return { ... } } and may return a Promise. ECMAScript only: no require, no network, no file system, no timers; console.log is captured.
- python: the source is Python 3.11 defining def execute(input, ctx): (or async def) that returns a dict of the outputs: return {"count": n}. input is a dict of the inputs as JSON gives them (dict, list, str, bool, None; integral numbers as int, others as float). Only these modules may be imported: ` + pyrun.Listing() + `. No files, no network, no processes, no threads; print is captured.
- llm: the prompt is an HCL template over the inputs: "Summarize in one sentence:\n\n${input.text}". The outputs are what the model must return as JSON: its reply is checked against their types. No source.

If the message reports a problem with your previous reply, fix it and reply with the whole corrected block.`

const flowRules = `A flow's parts:
- name: the flow's snake_case name; description: one sentence.
- inputs: what the user gives when running the flow: name, HCL type expression, description, and default (a JSON value, or null for a required input). Prefer defaults that make the flow run as is.
- steps: each runs one of the given blocks (use = its name) with args: a map from the block's input names to HCL expressions. Give every required input; give null or leave out inputs that should keep their defaults. depends_on lists steps that must run first although no value passes between them; it is usually empty.
- outputs: what the flow returns: name and an HCL expression.
- secrets: a credential (an API key or token, a password) is always a secret: name and description; steps refer to it as secret.NAME, and its value is read from the environment when the flow runs. Never make a credential an input or write it as a literal. Leave secrets empty when the intent needs none.
- memory: only for what a later run needs from this one (the newest item seen, a count, an ETag): name, HCL type, default (an HCL literal, the value before any run stored one) and value (the HCL expression stored when a run succeeds; null for a memory only read). Steps read it as memory.NAME, the value as the run started. Leave memory empty otherwise.
- schedules: only when the intent names a time ("every weekday at 7", "hourly"): name, cron (five fields: minute hour day-of-month month day-of-week), timezone (an IANA name, null for UTC) and inputs (an HCL object of input values, null for the defaults).
- per step: retry ({attempts: total tries, backoff: a duration}) for a step that can fail for a moment (a network call, a rate-limited API), else null; timeout (a duration such as "30s") when the intent sets a time limit or a call could hang, else null; on_error "continue" when the flow should go on without the step's outputs (they are null) if it fails, else null. An llm step may have tools: the flows and blocks (flow.NAME, block.NAME) its model may call while answering; null for none.
- approval steps (use = "approval") wait for a person's decision before the steps that depend on them; use one when the intent asks for a review or a confirmation.
- Give only the fields of this shape: a field the shape does not have is reported back to you, not used.

Expressions are HCL native syntax:
- A string is written in quotes, with the quotes inside the JSON string: "\"https://example.com/feed.json\"". Templates interpolate: "\"Summarize: ${step.fetch.text}\"".
- References: input.NAME (a flow input), secret.NAME, memory.NAME, step.STEP.OUTPUT (an output of an earlier step). With for_each, each.value and each.key inside the step, and step.STEP[*].OUTPUT is the list of its outputs.
- Functions: upper, lower, join, split, length, format, jsonencode, jsondecode, keys, values, merge, lookup, contains, concat, flatten, distinct, replace, regex, regexall, substr, trimspace, coalesce, tostring, tonumber, tolist, tomap, urlencode, sum, min, max, try, can.
- Types must fit: pass each input a value of its type, converting where needed (join("\n", list) for a string, tonumber(...) for a number). Outputs of type any (such as http's body) are checked when the flow runs.
- Names are snake_case: [a-z_][a-z0-9_]*.`

const wireSystem = `You assemble a flow for flowctl from the blocks listed in the message, to do what the intent says.

` + flowRules

const editSystem = `You change an existing flow for flowctl so that it does what the intent asks. The message gives the intent, the blocks the flow may use, the current flow as HCL (current_flow) and in the shape of your reply (current_flow_json). Reply with the complete new version of the flow in that shape: keep the inputs, steps and outputs that stay, with their names and arguments as they are, and change, add or remove only what the intent needs.

` + flowRules

const repairSystem = `You fix a flow for flowctl. The message gives the intent, the blocks the flow may use, the flow as it was generated from your previous reply (flow_file, with line numbers matching the diagnostics), the compiler's diagnostics as the JSON of flowctl validate --json, and the same errors as problems: where each is (the step and argument), the text at fault, and the problem with its fix. Fix every error and reply with the whole corrected flow in the same shape as before.

` + flowRules

// message renders a user message: an object of what the stage works on.
func message(fields ...member) string {
	b, err := json.MarshalIndent(obj(fields), "", "  ")
	if err != nil {
		return ""
	}
	return string(b)
}

// blockInfo describes a block to the model: name, what it does, and its
// inputs and outputs with their types, requiredness and defaults.
func blockInfo(b *blocks.Block, forIDs []string) obj {
	o := obj{{Key: "name", Value: b.Name}, {Key: "description", Value: b.Description}}
	if b.UseWhen != "" {
		o = append(o, member{Key: "use_when", Value: b.UseWhen})
	}
	rt := b.Runtime
	o = append(o, member{Key: "runtime", Value: rt})
	if len(forIDs) > 0 {
		o = append(o, member{Key: "serves", Value: forIDs})
	}
	var ins []obj
	for _, in := range b.Inputs {
		f := obj{{Key: "name", Value: in.Name}, {Key: "type", Value: typeName(in.Type.Type)}}
		if in.Required() {
			f = append(f, member{Key: "required", Value: true})
		} else if d, ok := jsonOf(in.Default); ok {
			f = append(f, member{Key: "default", Value: d})
		}
		if in.Description != "" {
			f = append(f, member{Key: "description", Value: in.Description})
		}
		ins = append(ins, f)
	}
	var outs []obj
	for _, out := range b.Outputs {
		f := obj{{Key: "name", Value: out.Name}, {Key: "type", Value: typeName(out.Type.Type)}}
		if out.Description != "" {
			f = append(f, member{Key: "description", Value: out.Description})
		}
		outs = append(outs, f)
	}
	if ins == nil {
		ins = []obj{}
	}
	if outs == nil {
		outs = []obj{}
	}
	return append(o, member{Key: "inputs", Value: ins}, member{Key: "outputs", Value: outs})
}

// jsonOf renders a known, non-null value as JSON.
func jsonOf(v cty.Value) (json.RawMessage, bool) {
	if v == cty.NilVal || !v.IsWhollyKnown() || v.IsNull() || v.Type() == cty.DynamicPseudoType {
		return nil, false
	}
	v, _ = v.UnmarkDeep()
	b, err := jsonval.Marshal(v)
	if err != nil {
		return nil, false
	}
	return b, true
}

// specInfo describes a required block.
func specInfo(s BlockSpec) obj {
	fields := func(fs []FieldSpec) []obj {
		out := []obj{}
		for _, f := range fs {
			out = append(out, obj{{Key: "name", Value: f.Name}, {Key: "type", Value: f.Type}, {Key: "description", Value: f.Description}})
		}
		return out
	}
	return obj{
		{Key: "id", Value: s.ID}, {Key: "description", Value: s.Description}, {Key: "runtime", Value: s.Runtime},
		{Key: "inputs", Value: fields(s.Inputs)}, {Key: "outputs", Value: fields(s.Outputs)},
	}
}

// fieldSummary is "name: type" for each field, for short listings.
func fieldSummary(fields []*lang.Field) []string {
	out := []string{}
	for _, f := range fields {
		out = append(out, f.Name+": "+typeName(f.Type.Type))
	}
	return out
}
