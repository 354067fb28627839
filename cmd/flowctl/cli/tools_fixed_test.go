package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

const lookupFlow = `
flow "lookup" {
  description = "Looks a word up"
}

input "word" {
  type = string
}

input "api_url" {
  type    = string
  default = "https://dictionary.example/api"
}

input "limit" {
  type    = number
  default = 3
}

step "say" {
  use   = "value"
  value = "${input.word}@${input.api_url}#${input.limit}"
}

output "text" {
  value = step.say.value
}
`

// TestFlowToolFixedInputs: a flow used as a tool shows the model only its
// inputs without a default, plus those the step's tool_inputs names; the
// model may not give the others (the call fails, telling it so), while
// the inputs it may give are used. flowctl tools, whose callers are
// people's clients, still lists every input that is not sensitive.
func TestFlowToolFixedInputs(t *testing.T) {
	m := newScriptedModel(t,
		toolCalls(1, "lookup", `{"word": "a", "api_url": "https://evil.example"}`, "lookup", `{"word": "b", "limit": 7}`),
		map[string]any{"role": "assistant", "content": "done"},
	)
	t.Setenv("OPENAI_BASE_URL", m.URL)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "main.flow.hcl"), `flow "main" {}

step "answer" {
  use         = "llm"
  prompt      = "Look words up"
  tools       = [flow.lookup]
  tool_inputs = { lookup = ["limit"] }
}

output "answer" {
  value = step.answer.text
}
`)
	writeFile(t, filepath.Join(dir, "lookup.flow.hcl"), lookupFlow)
	main := filepath.Join(dir, "main.flow.hcl")

	code, out, errOut := runCLI(t, "apply", "--auto-approve", main)
	if code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	reqs := m.got()
	if len(reqs) != 2 {
		t.Fatalf("the model got %d requests, want 2", len(reqs))
	}
	f := reqs[0]["tools"].([]any)[0].(map[string]any)["function"].(map[string]any)
	params, _ := json.Marshal(f["parameters"])
	if want := `{"additionalProperties":false,"properties":{"word":{"type":"string"},"limit":{"type":"number","default":3}},"required":["word"],"type":"object"}`; !sameJSON(t, string(params), want) {
		t.Errorf("lookup's parameters = %s, want %s", params, want)
	}
	results := toolMessages(reqs[1])
	if got := results["call_1"]; !strings.HasPrefix(got, "Error: ") || !strings.Contains(got, `input "api_url" of flow lookup is set by the flow`) {
		t.Errorf("the call giving api_url: %q", got)
	}
	if got := results["call_2"]; got != `{"text":"b@https://dictionary.example/api#7"}` {
		t.Errorf("the call giving limit: %q", got)
	}

	// flowctl tools lists the flow for people's clients: every input.
	code, out, errOut = runCLI(t, "tools", dir, "--only", "lookup")
	if code != 0 || !strings.Contains(out, `"api_url"`) || !strings.Contains(out, `"limit"`) {
		t.Errorf("tools: exit %d\n%s%s", code, out, errOut)
	}
}

// TestToolInputsErrors: tool_inputs names flow tools of the step and
// their inputs, none sensitive; it needs tools.
func TestToolInputsErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "lookup.flow.hcl"), lookupFlow+`
input "token" {
  type      = string
  sensitive = true
  default   = "t"
}
`)
	for _, c := range []struct{ step, want string }{
		{`tools = [flow.lookup]
  tool_inputs = { lookup = ["limt"] }`, `Flow "lookup" has no input "limt". Did you mean "limit"?`},
		{`tools = [flow.lookup]
  tool_inputs = { lookpu = ["limit"] }`, `Step "answer" has no flow tool "lookpu"`},
		{`tools = [flow.lookup]
  tool_inputs = { lookup = ["token"] }`, `Input "token" of flow "lookup" is sensitive`},
		{`# no tools
  tool_inputs = { lookup = ["limit"] }`, `step "answer" has no tools argument`},
		{`tools = [flow.lookup]
  tool_inputs = { lookup = [input.x] }`, `Invalid tool_inputs entry`},
	} {
		writeFile(t, filepath.Join(dir, "main.flow.hcl"), `flow "main" {}

step "answer" {
  use    = "llm"
  prompt = "Look words up"
  `+c.step+`
}
`)
		code, out, errOut := runCLI(t, "validate", filepath.Join(dir, "main.flow.hcl"))
		if code != 1 || !strings.Contains(out+errOut, c.want) || !strings.Contains(out+errOut, "main.flow.hcl line 7") {
			t.Errorf("%s: exit %d, want an error at line 7 saying %q\n%s%s", c.step, code, c.want, out, errOut)
		}
	}
}

// sameJSON reports whether two JSON texts hold the same value.
func sameJSON(t *testing.T, a, b string) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal([]byte(a), &va); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal([]byte(b), &vb); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return string(ja) == string(jb)
}
