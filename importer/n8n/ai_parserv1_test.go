package n8n_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty/convert"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/zclconf/go-cty/cty"
)

// The Structured Output Parser v1 asks the model for its object inside
// {"__structured__output": {"__structured__output__object": …}} (or
// "__structured__output__array", exactly one) and the chain's item is what
// is inside: the object, or {data = the array}. From
// enescingoz+awesome-n8n-templates/OpenAI_and_LLMs__Force_AI_to_use_a_specific_output_format.json
// (run against n8n in importer/testdata/n8n/real_force_format.txtar).
func TestAIStructuredParserV1(t *testing.T) {
	chain := `{"parameters": {}, "name": "LLM Chain", "type": "@n8n/n8n-nodes-langchain.chainLlm", "typeVersion": 1}`
	model := `{"parameters": {"options": {"temperature": 0}}, "name": "OpenAI Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "typeVersion": 1, "credentials": {"openAiApi": {"id": "wJtZwsVKW5v6R2Iy", "name": "OpenAi account 2"}}}`
	parser := `{"parameters": {"jsonSchema": "{\n \"type\": \"object\",\n \"properties\": {\n \"state\": {\n \"type\": \"string\"\n }}}"}, "name": "Structured Output Parser", "type": "@n8n/n8n-nodes-langchain.outputParserStructured", "typeVersion": 1}`
	subs := map[string]string{"OpenAI Chat Model": "ai_languageModel>LLM Chain", "Structured Output Parser": "ai_outputParser>LLM Chain"}
	flow, diags := importAI(t, aiWorkflow(t, `{input: "the largest state"}`, []string{"LLM Chain"}, []string{chain, model, parser}, subs))
	wantDiags(t, diags, "warning /nodes/3/parameters Default model")
	wantIn(t, flow, `output "__structured__output" {
    type = object({ __structured__output__object = optional(object({ state = optional(string) })), __structured__output__array = optional(list(object({ state = optional(string) }))) })
  }`)
	m := regexp.MustCompile(`(?m)^output "llm_chain" \{\n  value\s+= (.*)$`).FindStringSubmatch(flow)
	if m == nil {
		t.Fatalf("no output llm_chain:\n%s", flow)
	}
	expr, d := hclsyntax.ParseExpression([]byte(m[1]), "items", hcl.InitialPos)
	if d.HasErrors() {
		t.Fatal(d)
	}
	// The step's output as the llm block gives it: the reply converted to
	// the output's type, optional attributes null when absent.
	tm := regexp.MustCompile(`(?m)^    type = (.*)$`).FindStringSubmatch(flow)
	texpr, d := hclsyntax.ParseExpression([]byte(tm[1]), "type", hcl.InitialPos)
	if d.HasErrors() {
		t.Fatal(d)
	}
	otyp, defaults, d := typeexpr.TypeConstraintWithDefaults(texpr)
	if d.HasErrors() {
		t.Fatal(d)
	}
	items := func(reply string) (string, bool) {
		typ, err := ctyjson.ImpliedType([]byte(reply))
		if err != nil {
			t.Fatal(err)
		}
		r, err := ctyjson.Unmarshal([]byte(reply), typ)
		if err != nil {
			t.Fatal(err)
		}
		out := r.GetAttr("__structured__output")
		if defaults != nil {
			out = defaults.Apply(out)
		}
		out, err = convert.Convert(out, otyp)
		if err != nil {
			t.Fatal(err)
		}
		v := cty.TupleVal([]cty.Value{cty.ObjectVal(map[string]cty.Value{"__structured__output": out})})
		ctx := &hcl.EvalContext{Variables: map[string]cty.Value{"step": cty.ObjectVal(map[string]cty.Value{"llm_chain": v})}, Functions: lang.Functions(t.TempDir())}
		got, d := expr.Value(ctx)
		if d.HasErrors() {
			return d.Error(), false
		}
		b, _ := ctyjson.Marshal(got, got.Type())
		return string(b), true
	}
	for reply, want := range map[string]string{
		`{"__structured__output": {"__structured__output__object": {"state": "Alaska"}}}`:                               `[{"state":"Alaska"}]`,
		`{"__structured__output": {"__structured__output__array": [{"state": "Alaska"}]}}`:                              `[{"data":[{"state":"Alaska"}]}]`,
		`{"__structured__output": {"__structured__output__object": {"state": "A"}, "__structured__output__array": []}}`: "",
		`{"__structured__output": {}}`: "",
	} {
		got, ok := items(reply)
		if want == "" && ok || want != "" && got != want {
			t.Errorf("reply %s: items %s, want %s", reply, got, map[bool]string{true: want, false: "an error (n8n's parser fails)"}[want != ""])
		}
	}

	// The agent's parser v1 is not converted.
	agent := `{"parameters": {"text": "={{ $json.input }}", "hasOutputParser": true, "options": {}}, "name": "LLM Chain", "type": "@n8n/n8n-nodes-langchain.agent", "typeVersion": 1.7}`
	_, diags = importAI(t, aiWorkflow(t, `{input: "x"}`, []string{"LLM Chain"}, []string{agent, model, parser}, subs))
	if !strings.Contains(strings.Join(diags, "\n"), "error /nodes/2 Unsupported output parser") {
		t.Errorf("agent with parser v1: diagnostics %q", diags)
	}
}
