package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// applyImported applies a flow and returns its run's status and outputs
// as JSON.
func applyImported(t *testing.T, dir, flow string, args ...string) (string, string) {
	t.Helper()
	args = append([]string{"apply", "--auto-approve", "--json", "--state", filepath.Join(dir, "state")}, append(args, flow)...)
	code, stdout, stderr := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("apply exited %d:\n%s%s", code, stdout, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var finished struct {
		Status  string         `json:"status"`
		Outputs map[string]any `json:"outputs"`
	}
	json.Unmarshal([]byte(lines[len(lines)-1]), &finished)
	got, _ := json.Marshal(finished.Outputs)
	return finished.Status, string(got)
}

// TestImportSubWorkflowPairRuns imports two workflows together — one
// whose Execute Workflow node (v1.1, a resource locator, as in
// Zie619+n8n-workflows/workflows__Schedule__0758_Schedule_Manual_Automation_Scheduled.json)
// runs the other by its id, whose Execute Workflow Trigger declares its
// inputs (v1.1, as in Zie619+n8n-workflows/workflows__Code__0898_Code_Schedule_Automation_Scheduled.json)
// — and runs the caller: the sub-workflow gets the declared field alone
// (n8n's trigger drops the others) and the caller's items are the ones
// the sub-workflow's last node gives, as n8n returns them.
func TestImportSubWorkflowPairRuns(t *testing.T) {
	caller := `{"name": "Orders report", "id": "Ab12", "nodes": [
 {"parameters": {}, "name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0]},
 {"parameters": {"assignments": {"assignments": [{"id": "1", "name": "q", "value": "red", "type": "string"}, {"id": "2", "name": "extra", "value": "x", "type": "string"}]}, "options": {}}, "name": "Data", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "position": [200, 0]},
 {"parameters": {"options": {}, "workflowId": {"__rl": true, "mode": "list", "value": "Sub77", "cachedResultName": "Shout"}}, "name": "Execute Workflow", "type": "n8n-nodes-base.executeWorkflow", "typeVersion": 1.1, "position": [400, 0]}
], "connections": {"Start": {"main": [[{"node": "Data", "type": "main", "index": 0}]]}, "Data": {"main": [[{"node": "Execute Workflow", "type": "main", "index": 0}]]}}}`
	callee := `{"name": "Shout", "id": "Sub77", "nodes": [
 {"parameters": {"workflowInputs": {"values": [{"name": "q"}]}}, "name": "When called", "type": "n8n-nodes-base.executeWorkflowTrigger", "typeVersion": 1.1, "position": [0, 0]},
 {"parameters": {"assignments": {"assignments": [{"id": "1", "name": "loud", "value": "={{ $json.q.toUpperCase() }}", "type": "string"}]}, "includeOtherFields": true, "options": {}}, "name": "Shout it", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "position": [200, 0]}
], "connections": {"When called": {"main": [[{"node": "Shout it", "type": "main", "index": 0}]]}}}`
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "caller.json"), []byte(caller), 0o644)
	os.WriteFile(filepath.Join(dir, "callee.json"), []byte(callee), 0o644)
	out := filepath.Join(dir, "flow")
	// Alone, the caller names the workflow it lacks.
	code, stdout, stderr := runCLI(t, "import", "--out", out, filepath.Join(dir, "caller.json"))
	if code != 1 || !strings.Contains(stderr, "Error: Sub-workflow not imported") || !strings.Contains(stderr, `id "Sub77" ("Shout")`) {
		t.Fatalf("import of the caller alone exited %d:\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, "import", "--out", out, filepath.Join(dir, "caller.json"), filepath.Join(dir, "callee.json"))
	if code != 0 {
		t.Fatalf("import exited %d:\n%s%s", code, stdout, stderr)
	}
	status, got := applyImported(t, dir, filepath.Join(out, "orders_report.flow.hcl"))
	if want := `{"execute_workflow":[{"loud":"RED","q":"red"}]}`; status != "ok" || got != want {
		t.Errorf("status %s, outputs:\n%s\nwant\n%s", status, got, want)
	}
}

// TestImportWorkflowToolRuns runs an agent whose Workflow tool gives the
// workflow it runs as JSON, with an input schema from a JSON example:
// the tool and node of
// oxbshw+ultimate-n8n-ai-workflows/workflows__1270_Schedule_Manual_Automation_Scheduled.json
// (ScrapingBee's URL a local server's). The model calls the tool; its
// flow runs the workflow's flow with the item {query = the arguments};
// that flow's HTTP Request reads $json.query.google_search_query, with
// the credential's query parameter; the first item it returns is what
// the model gets.
func TestImportWorkflowToolRuns(t *testing.T) {
	var mu sync.Mutex
	var searched []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/v1/store/google":
			q := r.URL.Query()
			mu.Lock()
			searched = append(searched, q.Get("search")+"|"+q.Get("api_key")+"|"+q.Get("nb_results"))
			mu.Unlock()
			w.Write([]byte(`{"organic_results": [{"title": "Pricing", "url": "https://lemlist.com/pricing"}], "meta": 1}`))
		case "/v1/chat/completions":
			var req struct {
				Messages []struct {
					Role    string `json:"role"`
					Content string `json:"content"`
				} `json:"messages"`
				Tools []struct {
					Function struct {
						Name       string          `json:"name"`
						Parameters json.RawMessage `json:"parameters"`
					} `json:"function"`
				} `json:"tools"`
			}
			if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
				http.Error(w, "bad request", http.StatusBadRequest)
				return
			}
			msg := map[string]any{"role": "assistant"}
			last := req.Messages[len(req.Messages)-1]
			switch {
			case last.Role == "tool":
				msg["content"] = "Agent: " + last.Content
			case len(req.Tools) == 1 && strings.Contains(string(req.Tools[0].Function.Parameters), `"google_search_query"`):
				msg["tool_calls"] = []any{map[string]any{"id": "call_1", "type": "function",
					"function": map[string]any{"name": req.Tools[0].Function.Name, "arguments": `{"google_search_query": "site:lemlist.com pricing"}`}}}
			default:
				http.Error(w, "unexpected request: "+string(body), http.StatusBadRequest)
				return
			}
			json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion", "model": "gpt-4o-mini",
				"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": msg}},
				"usage":   map[string]int{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	sub := `{"nodes": [
 {"parameters": {}, "id": "fbb17d8d-e2dc-46ae-aba4-8c27cc9d8766", "name": "Execute Workflow Trigger", "type": "n8n-nodes-base.executeWorkflowTrigger", "typeVersion": 1, "position": [20, 460]},
 {"parameters": {"url": "` + srv.URL + `/api/v1/store/google", "authentication": "genericCredentialType", "genericAuthType": "httpQueryAuth", "sendQuery": true, "queryParameters": {"parameters": [{"name": "search", "value": "={{ $json.query.google_search_query }}"}, {"name": "language", "value": "en"}, {"name": "nb_results", "value": "5"}]}, "options": {}}, "name": "Search Google", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "position": [300, 460], "credentials": {"httpQueryAuth": {"id": "Pb2CIMT0tN838QPy", "name": "ScrapingBee"}}},
 {"parameters": {"assignments": {"assignments": [{"id": "096fee70-444e-4948-816c-752b20786062", "name": "response", "value": "={{ $json.organic_results }}", "type": "array"}]}, "options": {}}, "name": "Response", "type": "n8n-nodes-base.set", "typeVersion": 3.3, "position": [520, 460]}
], "connections": {"Execute Workflow Trigger": {"main": [[{"node": "Search Google", "type": "main", "index": 0}]]}, "Search Google": {"main": [[{"node": "Response", "type": "main", "index": 0}]]}}}`
	tool := `{"name": "Search Google with ScrapingBee", "type": "@n8n/n8n-nodes-langchain.toolWorkflow", "position": [2300, 1140], "parameters": {"name": "search_google", "source": "parameter", "description": "Call this tool to get results from a google search.", "workflowJson": ` + jsonString(sub) + `, "jsonSchemaExample": "{\n\t\"google_search_query\": \"site:lemlist.com pricing\"\n}", "specifyInputSchema": true}, "typeVersion": 1.1}`
	src := `{"name": "Research", "nodes": [
 {"parameters": {}, "name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0]},
 {"parameters": {"promptType": "define", "text": "What does lemlist cost?", "options": {}}, "name": "AI Agent", "type": "@n8n/n8n-nodes-langchain.agent", "typeVersion": 1.7, "position": [200, 0]},
 {"parameters": {"model": "gpt-4o-mini", "options": {}}, "name": "OpenAI Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "typeVersion": 1, "position": [200, 200], "credentials": {"openAiApi": {"id": "1", "name": "OpenAi account"}}},
 ` + tool + `
], "connections": {
 "Start": {"main": [[{"node": "AI Agent", "type": "main", "index": 0}]]},
 "OpenAI Chat Model": {"ai_languageModel": [[{"node": "AI Agent", "type": "ai_languageModel", "index": 0}]]},
 "Search Google with ScrapingBee": {"ai_tool": [[{"node": "AI Agent", "type": "ai_tool", "index": 0}]]}
}}`
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "research.json"), []byte(src), 0o644)
	out := filepath.Join(dir, "flow")
	code, stdout, stderr := runCLI(t, "import", "--out", out, filepath.Join(dir, "research.json"))
	if code != 0 {
		t.Fatalf("import exited %d:\n%s%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "research.flow.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(out, "research.flow.hcl"), []byte(strings.ReplaceAll(string(b), "https://api.openai.com/v1", srv.URL+"/v1")), 0o644)
	// The sub-workflow's flow reads its own secrets from its environment.
	t.Setenv("FLOWCTL_SECRET_SCRAPING_BEE", "k-123")
	t.Setenv("FLOWCTL_SECRET_SCRAPING_BEE_NAME", "api_key")
	status, got := applyImported(t, dir, filepath.Join(out, "research.flow.hcl"), "--secret", "open_ai_account=sk-test")
	want := `{"ai_agent":[{"output":"Agent: {\"response\":{\"response\":[{\"title\":\"Pricing\",\"url\":\"https://lemlist.com/pricing\"}]}}"}]}`
	if status != "ok" || got != want {
		t.Errorf("status %s, outputs:\n%s\nwant\n%s", status, got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(searched, ",") != "site:lemlist.com pricing|k-123|5" {
		t.Errorf("searched %q", searched)
	}
}
