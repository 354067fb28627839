package n8n_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// withErrorOutput adds to a workflow of aiWorkflow the nodes on the error
// output (output 1) of root, and the connections given as "From>To"
// ("From#0>To": root's success output).
func withErrorOutput(t *testing.T, src []byte, root string, nodes []string, conns ...string) []byte {
	t.Helper()
	var wf map[string]any
	if err := json.Unmarshal(src, &wf); err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		var node map[string]any
		if err := json.Unmarshal([]byte(n), &node); err != nil {
			t.Fatalf("%v: %s", err, n)
		}
		node["position"] = []int{800, 0}
		wf["nodes"] = append(wf["nodes"].([]any), node)
	}
	cs := wf["connections"].(map[string]any)
	for _, c := range conns {
		from, to, _ := strings.Cut(c, ">")
		out := 0
		if from == root {
			out = 1
		}
		from = strings.TrimSuffix(from, "#0")
		main := []any{[]any{}, []any{}}
		if old, ok := cs[from].(map[string]any); ok && from == root {
			main = old["main"].([]any)
		}
		main[out] = []any{map[string]any{"node": to, "type": "main", "index": 0}}
		cs[from] = map[string]any{"main": main}
	}
	b, _ := json.Marshal(wf)
	return b
}

// An AI Agent or Basic LLM Chain whose On Error is Continue (using error
// output): its llm step continues on error, the success output leaves the
// failed items out, the error output is them, where the nodes on it read
// nothing of them. The agent (v1.7, with a Window Buffer Memory and no
// node after it) from enescingoz+awesome-n8n-templates/Gmail_and_Email_Automation__Basic_Automatic_Gmail_Email_Labelling_with_OpenAI_and_Gmail_API.json;
// the chain (v1.5) and its "Error Response" from
// oxbshw+ultimate-n8n-ai-workflows/automation__1691_Stickynote_Automation_Triggered.json;
// Continue (regular output) on a chain (v1.4) from
// enescingoz+awesome-n8n-templates/AI_Research_RAG_and_Data_Analysis__Intelligent_Web_Query_and_Semantic_Re-Ranking_Flow_using_Brave_and_Google_Gemini.json.
func TestAIOnError(t *testing.T) {
	model := `{"parameters": {"options": {}}, "name": "OpenAI Chat Model1", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "typeVersion": 1, "credentials": {"openAiApi": {"id": "1", "name": "OpenAi account"}}}`
	memory := `{"parameters": {"sessionKey": "={{ $json.id }}", "sessionIdType": "customKey"}, "name": "Window Buffer Memory", "type": "@n8n/n8n-nodes-langchain.memoryBufferWindow", "typeVersion": 1.3}`
	agent := `{"parameters": {"text": "=Label the email {{ $json.id }}", "options": {"systemMessage": "You label emails."}, "promptType": "define"}, "name": "Gmail labelling agent", "type": "@n8n/n8n-nodes-langchain.agent", "typeVersion": 1.7, "onError": "ON_ERROR"}`
	chain := `{"parameters": {"promptType": "define", "text": "={{ $json.id }}"}, "name": "Basic LLM Chain", "type": "@n8n/n8n-nodes-langchain.chainLlm", "typeVersion": 1.5, "onError": "continueErrorOutput"}`
	errorResponse := `{"parameters": {"options": {}, "assignments": {"assignments": [{"id": "13c4058d-2d50-46b7-a5a6-c788828a1764", "name": "text", "type": "string", "value": "VALUE"}]}}, "name": "Error Response", "type": "n8n-nodes-base.set", "typeVersion": 3.4}`
	after := `{"parameters": {"options": {}, "assignments": {"assignments": [{"id": "a", "name": "id", "type": "string", "value": "EXPR"}]}}, "name": "After", "type": "n8n-nodes-base.set", "typeVersion": 3.4}`

	// The agent with its memory, nothing after it.
	src := aiWorkflow(t, `{id: "m1"}`, []string{"Gmail labelling agent"},
		[]string{strings.Replace(agent, "ON_ERROR", "continueErrorOutput", 1), model, memory},
		map[string]string{"OpenAI Chat Model1": "ai_languageModel>Gmail labelling agent", "Window Buffer Memory": "ai_memory>Gmail labelling agent"})
	flow, diags := importAI(t, src)
	if flow == "" {
		t.Fatalf("not imported: %s", strings.Join(diags, "\n"))
	}
	wantIn(t, flow, `on_error = "continue"`,
		`[for r in step.gmail_labelling_agent : { output = r.text } if r != null]`,
		`}]... if step.gmail_labelling_agent[i] != null }`)

	// The chain, its error output to an Edit Fields node.
	for _, c := range []struct{ value, after, want string }{
		{"=There was an error.", "", ""},
		{"=There was an error.", "={{ $json.text }}", ""},
		{"={{ $json.error }}", "", `error /nodes/2/onError Unsupported setting`},
		{"=There was an error.", "={{ $('Basic LLM Chain').item.json.id }}", `error /nodes/2/onError Unsupported setting`},
	} {
		nodes := []string{strings.Replace(errorResponse, "VALUE", c.value, 1)}
		conns := []string{"Basic LLM Chain>Error Response"}
		if c.after != "" {
			nodes = append(nodes, strings.Replace(after, "EXPR", c.after, 1))
			conns = append(conns, "Error Response>After")
		}
		src := withErrorOutput(t, aiWorkflow(t, `{id: "m1"}`, []string{"Basic LLM Chain"}, []string{chain, model},
			map[string]string{"OpenAI Chat Model1": "ai_languageModel>Basic LLM Chain"}), "Basic LLM Chain", nodes, conns...)
		flow, diags := importAI(t, src)
		if c.want != "" {
			if flow != "" || !strings.Contains(strings.Join(diags, "\n"), c.want) {
				t.Errorf("%q, %q: want %q, got\n%s", c.value, c.after, c.want, strings.Join(diags, "\n"))
			}
			continue
		}
		if flow == "" {
			t.Fatalf("%q, %q: not imported: %s", c.value, c.after, strings.Join(diags, "\n"))
		}
		wantIn(t, flow, `on_error = "continue"`,
			`for_each = [for k, item in step.item.items : item if step.basic_llm_chain[k] == null]`,
			`text = "There was an error."`)
	}

	// n8n pairs none of the chain's other items then: a reference through
	// them to the item before is refused.
	src = withErrorOutput(t, aiWorkflow(t, `{id: "m1"}`, []string{"Basic LLM Chain"}, []string{chain, model},
		map[string]string{"OpenAI Chat Model1": "ai_languageModel>Basic LLM Chain"}), "Basic LLM Chain",
		[]string{strings.Replace(errorResponse, "VALUE", "=There was an error.", 1), strings.Replace(after, "EXPR", "={{ $('Item').item.json.id }}", 1)},
		"Basic LLM Chain>Error Response", "Basic LLM Chain#0>After")
	if flow, diags := importAI(t, src); flow != "" || !strings.Contains(strings.Join(diags, "\n"), "error /nodes/5/parameters/assignments/assignments/0/value Paired item not followed") {
		t.Errorf("a reference through the chain's unpaired items converted:\n%s\n%s", strings.Join(diags, "\n"), flow)
	}

	// Continue (regular output): the failed item is {error: n8n's message}.
	src = aiWorkflow(t, `{id: "m1"}`, []string{"Gmail labelling agent"},
		[]string{strings.Replace(agent, "ON_ERROR", "continueRegularOutput", 1), model},
		map[string]string{"OpenAI Chat Model1": "ai_languageModel>Gmail labelling agent"})
	if flow, diags := importAI(t, src); flow != "" || !strings.Contains(strings.Join(diags, "\n"), "error /nodes/2/onError Unsupported setting") {
		t.Errorf("Continue (regular output) converted:\n%s\n%s", strings.Join(diags, "\n"), flow)
	}
}
