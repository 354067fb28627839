package thinker

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
)

// strictProblems lists what keeps a schema from OpenAI's strict mode: an
// object that is open or has a property that is not required.
func strictProblems(s any, path string) []string {
	var out []string
	switch s := s.(type) {
	case map[string]any:
		if s["type"] == "object" {
			if s["additionalProperties"] != false {
				out = append(out, path+": additionalProperties is not false")
			}
			props, _ := s["properties"].(map[string]any)
			req := map[string]bool{}
			for _, r := range s["required"].([]any) {
				req[r.(string)] = true
			}
			for name := range props {
				if !req[name] {
					out = append(out, fmt.Sprintf("%s: property %q is not required", path, name))
				}
			}
			if len(req) != len(props) {
				out = append(out, path+": required names properties that do not exist")
			}
		}
		keys := make([]string, 0, len(s))
		for k := range s {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = append(out, strictProblems(s[k], path+"/"+k)...)
		}
	case []any:
		for i, e := range s {
			out = append(out, strictProblems(e, fmt.Sprintf("%s/%d", path, i))...)
		}
	}
	return out
}

func decode(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("schema is not JSON: %v\n%s", err, raw)
	}
	return m
}

func spec(t *testing.T, inputs, outputs map[string]string) BlockSpec {
	t.Helper()
	s := BlockSpec{ID: "word_count", Description: "Count words", Runtime: "js"}
	for _, group := range []struct {
		fields map[string]string
		into   *[]FieldSpec
		kind   string
	}{{inputs, &s.Inputs, "input"}, {outputs, &s.Outputs, "output"}} {
		for _, name := range lang.SortedKeys(group.fields) {
			*group.into = append(*group.into, FieldSpec{Name: name, Type: group.fields[name]})
		}
	}
	if p := checkSpecs([]BlockSpec{s}); len(p) > 0 {
		t.Fatal(p)
	}
	return s
}

func registryBlocks(t *testing.T, names ...string) []*blocks.Block {
	t.Helper()
	reg := blocks.NewRegistry()
	var out []*blocks.Block
	for _, n := range names {
		b := reg.Lookup(n)
		if b == nil {
			t.Fatalf("no block %q", n)
		}
		out = append(out, b)
	}
	return out
}

// TestStageSchemas checks that every stage's schema is named after the
// stage, that its Send schema is strict-mode valid (closed objects, every
// property required) when it says it is strict, and that its shape
// accepts a reply of the documented shape.
func TestStageSchemas(t *testing.T) {
	wordCount := spec(t, map[string]string{"text": "string"}, map[string]string{"count": "number", "words": "list(string)"})
	cases := []struct {
		schema stageSchema
		name   string
		strict bool
		reply  string
	}{
		{clarifySchema, "clarify", true, `{"ready": false, "question": "Which feed?", "refined_intent": "x"}`},
		{decomposeSchema, "decompose", true, `{"blocks": [{"id": "a", "description": "d", "runtime": "go",
			"inputs": [{"name": "x", "type": "string", "description": ""}], "outputs": []}]}`},
		{createSchema(wordCount, false), "create_block", true, `{"id": "word_count", "description": "d", "runtime": "js",
			"source": "function execute(i) { return {} }", "prompt": null, "inputs": [], "outputs": [],
			"example": {"input": {"text": "a b"}, "output": {"count": 2, "words": ["a", "b"]}}}`},
		{createSchema(spec(t, map[string]string{"data": "any"}, map[string]string{"out": "map(string)"}), false), "create_block", false,
			`{"id": "x", "description": "", "runtime": "js", "source": "s", "prompt": null, "inputs": [], "outputs": [],
			"example": {"input": {"data": [1, "a"]}, "output": {"out": {"k": "v"}}}}`},
		{wireSchema(StageWire, registryBlocks(t, "http", "value"), nil), "wire", true, `{"name": "f", "description": "", "inputs": [
			{"name": "url", "type": "string", "description": "", "default": "https://example.com"},
			{"name": "n", "type": "number", "description": "", "default": null}],
			"secrets": [{"name": "api_token", "description": "the API's token"}],
			"memory": [{"name": "etag", "type": "string", "default": "\"\"", "value": "step.get.text", "description": ""}],
			"steps": [{"name": "get", "use": "http", "args": {"url": "input.url", "method": null}, "depends_on": [],
				"retry": {"attempts": 3, "backoff": "2s"}, "timeout": "30s", "on_error": null}],
			"outputs": [{"name": "text", "value": "step.get.text"}],
			"schedules": [{"name": "mornings", "cron": "0 7 * * 1-5", "timezone": null, "inputs": null}]}`},
		{wireSchema(StageRepair, registryBlocks(t, "file"), nil), "repair", true, `{"name": "f", "description": "", "inputs": [],
			"secrets": [], "memory": [], "schedules": [],
			"steps": [{"name": "read", "use": "file", "args": {"path": "\"a.txt\""}, "depends_on": ["x"],
				"retry": null, "timeout": null, "on_error": "continue"}], "outputs": []}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.schema.Name != c.name {
				t.Errorf("name %q, want %q", c.schema.Name, c.name)
			}
			if c.schema.Strict != c.strict {
				t.Errorf("strict %v, want %v", c.schema.Strict, c.strict)
			}
			send := decode(t, c.schema.Send)
			if c.strict {
				if p := strictProblems(send, ""); len(p) > 0 {
					t.Errorf("not strict:\n%s", strings.Join(p, "\n"))
				}
			}
			var reply any
			if err := json.Unmarshal([]byte(c.reply), &reply); err != nil {
				t.Fatal(err)
			}
			if p := llm.CheckShape(reply, c.schema.Shape); len(p) > 0 {
				t.Errorf("shape rejects a good reply: %v", p)
			}
			if p := llm.CheckShape(reply, c.schema.Send); len(p) > 0 {
				t.Errorf("sent schema rejects a good reply: %v", p)
			}
		})
	}
}

// TestCreateSchemaRuntime: the create_block schema sent asks for the
// specification's runtime; the shape allows every runtime, so that a reply
// of another runtime is a failed check, not a malformed reply.
func TestCreateSchemaRuntime(t *testing.T) {
	sch := createSchema(spec(t, map[string]string{"text": "string"}, map[string]string{"count": "number"}), false)
	var reply any
	json.Unmarshal([]byte(`{"id": "word_count", "description": "d", "runtime": "llm", "source": null, "prompt": "p",
		"inputs": [], "outputs": [], "example": {"input": {"text": "a"}, "output": {"count": 1}}}`), &reply)
	if p := llm.CheckShape(reply, sch.Send); len(p) != 1 || !strings.Contains(p[0], `.runtime: the string "llm" is not one of "js"`) {
		t.Errorf("sent schema: %v", p)
	}
	if p := llm.CheckShape(reply, sch.Shape); len(p) > 0 {
		t.Errorf("shape: %v", p)
	}
}

// TestWireSchemaArgs checks that each block is a variant of the steps
// with its inputs as args: required ones as strings, optional ones
// nullable, and the for_each and when meta-arguments.
func TestWireSchemaArgs(t *testing.T) {
	s := decode(t, wireSchema(StageWire, registryBlocks(t, "http", "file"), nil).Send)
	steps := s["properties"].(map[string]any)["steps"].(map[string]any)["items"].(map[string]any)
	variants := steps["anyOf"].([]any)
	if len(variants) != 2 {
		t.Fatalf("%d variants", len(variants))
	}
	http := variants[0].(map[string]any)["properties"].(map[string]any)
	if use := http["use"].(map[string]any)["enum"].([]any); len(use) != 1 || use[0] != "http" {
		t.Errorf("use %v", use)
	}
	args := http["args"].(map[string]any)["properties"].(map[string]any)
	if args["url"].(map[string]any)["type"] != "string" {
		t.Errorf("url: %v", args["url"])
	}
	if ty := fmt.Sprint(args["method"].(map[string]any)["type"]); ty != "[string null]" {
		t.Errorf("method: %v", ty)
	}
	for _, m := range []string{"for_each", "when", "headers", "max_bytes"} {
		if args[m] == nil {
			t.Errorf("no arg %q", m)
		}
	}
}

func TestCheckShape(t *testing.T) {
	cases := []struct {
		schema stageSchema
		reply  string
		want   []string
	}{
		{decomposeSchema, `{"blocks": "x"}`, []string{`.blocks: an array is required, not the string "x"`}},
		{decomposeSchema, `{}`, []string{`the reply: the field "blocks" is missing`}},
		{decomposeSchema, `{"blocks": [{"id": "a", "description": "d", "runtime": "ruby", "inputs": [], "outputs": []}]}`,
			[]string{`.blocks[0].runtime: the string "ruby" is not one of "go", "js", "python", "llm"`}},
		{decomposeSchema, `{"blocks": [{"id": 3, "description": "d", "runtime": "go", "outputs": []}]}`,
			[]string{`.blocks[0]: the field "inputs" is missing`, `.blocks[0].id: a string is required, not the number 3`}},
		{clarifySchema, `{"ready": "yes", "question": "", "refined_intent": ""}`, []string{`.ready: true or false is required, not the string "yes"`}},
		{wireSchema(StageWire, nil, nil), `{"name": "f", "description": "", "inputs": [], "secrets": [], "memory": [], "schedules": [],
			"steps": [{"name": "s", "use": "x", "args": {"a": 1}, "depends_on": [], "retry": null, "timeout": null, "on_error": null}], "outputs": []}`,
			[]string{`.steps[0].args.a: a string or null is required, not the number 1`}},
		// A nullable field may be left out; unknown fields are ignored.
		{createSchema(BlockSpec{}, false), `{"id": "x", "description": "", "runtime": "js", "source": "s", "inputs": [], "outputs": [], "extra": 1,
			"example": {"input": {}, "output": {}}}`, nil},
	}
	for _, c := range cases {
		var v any
		if err := json.Unmarshal([]byte(c.reply), &v); err != nil {
			t.Fatal(err)
		}
		got := llm.CheckShape(v, c.schema.Shape)
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s\n got: %q\nwant: %q", c.reply, got, c.want)
		}
	}
}

func TestCheckSpecs(t *testing.T) {
	specs := []BlockSpec{
		{ID: "Fetch", Runtime: "go", Outputs: []FieldSpec{{Name: "x", Type: "string"}}},
		{ID: "a", Runtime: "go", Inputs: []FieldSpec{{Name: "when", Type: "string"}, {Name: "n", Type: "list of strings"}},
			Outputs: []FieldSpec{{Name: "x", Type: "string"}}},
		{ID: "a", Runtime: "go"},
	}
	got := strings.Join(checkSpecs(specs), "\n")
	for _, want := range []string{
		`the id "Fetch" is not a snake_case name`,
		`the input name "when" is reserved`,
		`the input "n" has the type "list of strings", which is not an HCL type expression`,
		`the id "a" is used twice`,
		`block "a" has no outputs`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
	good := []BlockSpec{{ID: "b", Outputs: []FieldSpec{{Name: "items", Type: "list(object({ url = string }))"}}}}
	if p := checkSpecs(good); len(p) > 0 || !good[0].Outputs[0].Parsed.Equals(cty.List(cty.Object(map[string]cty.Type{"url": cty.String}))) {
		t.Errorf("good spec: %v, %#v", p, good[0].Outputs[0].Parsed)
	}
}
