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

// TestImportVectorStoreToolRuns runs an imported workflow's vector-store
// steps end to end against a local embeddings and chat server: Insert
// Documents chunks, embeds and stores a document in the collection; the
// agent's model calls the Vector Store Tool, a flow written beside the
// workflow's, which searches the collection with the question and
// answers from the document found; the agent's answer is given back.
// The nodes are those of
// enescingoz+awesome-n8n-templates/OpenAI_and_LLMs__Personal_Shopper_Chatbot_for_WooCommerce_with_RAG_using_Google_Drive_and_openAI.json
// (the in-memory store for Qdrant, a document of our own).
func TestImportVectorStoreToolRuns(t *testing.T) {
	const doc = "The shop in Scarperia opens at 9 am."
	var mu sync.Mutex
	var embedded []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/v1/embeddings":
			var req struct {
				Input []string `json:"input"`
			}
			if err := json.Unmarshal(body, &req); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			var data []any
			for i, text := range req.Input {
				mu.Lock()
				embedded = append(embedded, text)
				mu.Unlock()
				// The document and the question about it point the same way.
				v := []float64{0, 1, 0}
				if strings.Contains(strings.ToLower(text), "open") {
					v = []float64{1, 0, 0.1}
				}
				data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": v})
			}
			json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": "text-embedding-3-small",
				"usage": map[string]int{"prompt_tokens": 3, "total_tokens": 3}})
		case "/v1/chat/completions":
			var req struct {
				Messages []struct {
					Role    string `json:"role"`
					Content string `json:"content"`
				} `json:"messages"`
				Tools []struct {
					Function struct {
						Name string `json:"name"`
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
			case strings.HasPrefix(req.Messages[0].Content, "Use the following pieces of context"):
				// The tool's model: the answer is the context it was given.
				_, context, _ := strings.Cut(req.Messages[0].Content, "----------------\n")
				msg["content"] = "From the documents: " + context
			case last.Role == "tool":
				msg["content"] = "Agent: " + last.Content
			case len(req.Tools) == 1:
				msg["tool_calls"] = []any{map[string]any{"id": "call_1", "type": "function",
					"function": map[string]any{"name": req.Tools[0].Function.Name, "arguments": `{"input": "When does the shop open?"}`}}}
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

	cred := `"credentials": {"openAiApi": {"id": "CDX6QM4gLYanh0P4", "name": "OpenAi account"}}`
	src := `{"name": "Shop", "nodes": [
  {"parameters": {}, "name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0]},
  {"parameters": {"jsCode": ` + jsonString("return [{json: {text: "+jsonString(doc)+"}}]") + `}, "name": "Item", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [200, 0]},
  {"parameters": {"mode": "insert", "memoryKey": "scarperia"}, "name": "Insert", "type": "@n8n/n8n-nodes-langchain.vectorStoreInMemory", "typeVersion": 1, "position": [400, 0]},
  {"parameters": {"options": {"dimensions": 3}}, "name": "Embeddings OpenAI", "type": "@n8n/n8n-nodes-langchain.embeddingsOpenAi", "typeVersion": 1.1, "position": [400, 200], ` + cred + `},
  {"parameters": {"jsonMode": "expressionData", "jsonData": "={{ $json.text }}", "options": {}}, "name": "Default Data Loader", "type": "@n8n/n8n-nodes-langchain.documentDefaultDataLoader", "typeVersion": 1, "position": [500, 200]},
  {"parameters": {}, "name": "Token Splitter", "type": "@n8n/n8n-nodes-langchain.textSplitterTokenSplitter", "typeVersion": 1, "position": [500, 400]},
  {"parameters": {"promptType": "define", "text": "When does the shop open?", "options": {}}, "name": "AI Agent", "type": "@n8n/n8n-nodes-langchain.agent", "typeVersion": 1.7, "position": [600, 0]},
  {"parameters": {"model": "gpt-4o-mini", "options": {}}, "name": "OpenAI Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "typeVersion": 1, "position": [600, 200], ` + cred + `},
  {"parameters": {"name": "informazioni_negozio", "description": "Informazioni relative al negozio: orari di apertura"}, "name": "RAG", "type": "@n8n/n8n-nodes-langchain.toolVectorStore", "typeVersion": 1, "position": [700, 200]},
  {"parameters": {"memoryKey": "scarperia"}, "name": "Search", "type": "@n8n/n8n-nodes-langchain.vectorStoreInMemory", "typeVersion": 1, "position": [700, 400]},
  {"parameters": {"options": {"dimensions": 3}}, "name": "Embeddings OpenAI1", "type": "@n8n/n8n-nodes-langchain.embeddingsOpenAi", "typeVersion": 1.1, "position": [700, 600], ` + cred + `},
  {"parameters": {"model": "gpt-4o-mini", "options": {}}, "name": "OpenAI Chat Model1", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "typeVersion": 1, "position": [800, 400], ` + cred + `}
], "connections": {
  "Start": {"main": [[{"node": "Item", "type": "main", "index": 0}]]},
  "Item": {"main": [[{"node": "Insert", "type": "main", "index": 0}]]},
  "Insert": {"main": [[{"node": "AI Agent", "type": "main", "index": 0}]]},
  "Embeddings OpenAI": {"ai_embedding": [[{"node": "Insert", "type": "ai_embedding", "index": 0}]]},
  "Default Data Loader": {"ai_document": [[{"node": "Insert", "type": "ai_document", "index": 0}]]},
  "Token Splitter": {"ai_textSplitter": [[{"node": "Default Data Loader", "type": "ai_textSplitter", "index": 0}]]},
  "OpenAI Chat Model": {"ai_languageModel": [[{"node": "AI Agent", "type": "ai_languageModel", "index": 0}]]},
  "RAG": {"ai_tool": [[{"node": "AI Agent", "type": "ai_tool", "index": 0}]]},
  "Search": {"ai_vectorStore": [[{"node": "RAG", "type": "ai_vectorStore", "index": 0}]]},
  "Embeddings OpenAI1": {"ai_embedding": [[{"node": "Search", "type": "ai_embedding", "index": 0}]]},
  "OpenAI Chat Model1": {"ai_languageModel": [[{"node": "RAG", "type": "ai_languageModel", "index": 0}]]}
}}`
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "shop.json"), []byte(src), 0o644)
	out := filepath.Join(dir, "flow")
	code, stdout, stderr := runCLI(t, "import", "--out", out, filepath.Join(dir, "shop.json"))
	if code != 0 {
		t.Fatalf("import exited %d:\n%s%s", code, stdout, stderr)
	}
	// The providers' URL is OpenAI's: point it at the local server, as a
	// user points it at theirs.
	for _, name := range []string{"shop.flow.hcl", "shop_informazioni_negozio.flow.hcl"} {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(out, name), []byte(strings.ReplaceAll(string(b), "https://api.openai.com/v1", srv.URL+"/v1")), 0o644)
	}
	code, stdout, stderr = runCLI(t, "apply", "--auto-approve", "--json", "--state", filepath.Join(dir, "state"),
		"--secret", "open_ai_account=sk-test", filepath.Join(out, "shop.flow.hcl"))
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
	want := `{"ai_agent":[{"output":"Agent: {\"response\":\"From the documents: ` + doc + `\"}"}]}`
	if finished.Status != "ok" || string(got) != want {
		t.Errorf("status %s, outputs:\n%s\nwant\n%s", finished.Status, got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(embedded, "|") != doc+"|When does the shop open?" {
		t.Errorf("embedded %q: want the document, then the question", embedded)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestImportWikipediaToolRuns runs the flow of an imported Wikipedia tool
// against a local server standing for Wikipedia's API: the search, the
// extract of each of the first 3 pages, and langchain's text of them.
// The node is that of
// oxbshw+ultimate-n8n-ai-workflows/workflows__ai-agents__0468_Splitout_Code_Create_Webhook.json.
func TestImportWikipediaToolRuns(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case q.Get("list") == "search" && q.Get("srsearch") == "Florence":
			w.Write([]byte(`{"query": {"search": [{"title": "Florence"}, {"title": "Florence Cathedral"}, {"title": "Uffizi"}, {"title": "Arno"}]}}`))
		case q.Get("prop") == "extracts" && q.Get("explaintext") == "true":
			title := q.Get("titles")
			json.NewEncoder(w).Encode(map[string]any{"query": map[string]any{"pages": map[string]any{"17": map[string]any{"title": title, "extract": title + " is in Tuscany."}}}})
		default:
			http.Error(w, "unexpected "+r.URL.String(), http.StatusBadRequest)
		}
	}))
	defer srv.Close()
	src := `{"name": "Post", "nodes": [
  {"parameters": {}, "name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0]},
  {"parameters": {"promptType": "define", "text": "Write about Florence."}, "name": "AI Agent", "type": "@n8n/n8n-nodes-langchain.agent", "typeVersion": 1.7, "position": [200, 0]},
  {"parameters": {"model": "gpt-4o-mini", "options": {}}, "name": "OpenAI Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "typeVersion": 1, "position": [200, 200], "credentials": {"openAiApi": {"id": "1", "name": "OpenAi account"}}},
  {"parameters": {}, "name": "Wikipedia", "type": "@n8n/n8n-nodes-langchain.toolWikipedia", "typeVersion": 1, "position": [400, 200]}
], "connections": {
  "Start": {"main": [[{"node": "AI Agent", "type": "main", "index": 0}]]},
  "OpenAI Chat Model": {"ai_languageModel": [[{"node": "AI Agent", "type": "ai_languageModel", "index": 0}]]},
  "Wikipedia": {"ai_tool": [[{"node": "AI Agent", "type": "ai_tool", "index": 0}]]}
}}`
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "post.json"), []byte(src), 0o644)
	out := filepath.Join(dir, "flow")
	if code, stdout, stderr := runCLI(t, "import", "--out", out, filepath.Join(dir, "post.json")); code != 0 {
		t.Fatalf("import exited %d:\n%s%s", code, stdout, stderr)
	}
	tool := filepath.Join(out, "post_wikipedia.flow.hcl")
	b, err := os.ReadFile(tool)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(tool, []byte(strings.ReplaceAll(string(b), "https://en.wikipedia.org", srv.URL)), 0o644)
	code, stdout, stderr := runCLI(t, "apply", "--auto-approve", "--json", "--state", filepath.Join(dir, "state"), "--input", "input=Florence", tool)
	if code != 0 {
		t.Fatalf("apply exited %d:\n%s%s", code, stdout, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var finished struct {
		Outputs map[string]any `json:"outputs"`
	}
	json.Unmarshal([]byte(lines[len(lines)-1]), &finished)
	want := "Page: Florence\nSummary: Florence is in Tuscany.\n\nPage: Florence Cathedral\nSummary: Florence Cathedral is in Tuscany.\n\nPage: Uffizi\nSummary: Uffizi is in Tuscany."
	if got := finished.Outputs["response"]; got != want {
		t.Errorf("response %q, want %q", got, want)
	}
}
