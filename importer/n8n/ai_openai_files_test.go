package n8n_test

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Analyze Image of Binary File(s), from "Download Chart" and "Technical
// Analysis" of oxbshw+ultimate-n8n-ai-workflows/workflows__ai-agents__0769_Telegram_Webhook_Send_Webhook.json
// (its prompt shortened): the HTTP Request before it downloads the chart
// (its format detected), and the chat completion sends each item's file
// as a data URL of its type and base64 bytes, as n8n does; each item is
// {content}. Run against a local server that is both the chart's host
// and OpenAI's API.
func TestAIOpenAIAnalyzeImageFile(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\nchart")
	var mu sync.Mutex
	var sent []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/chart.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(png)
		case "/v1/chat/completions":
			b, _ := io.ReadAll(r.Body)
			mu.Lock()
			sent = append(sent, r.Header.Get("Authorization")+" "+string(b))
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id": "c1", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": "An uptrend."}, "finish_reason": "stop"}]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	download := `"name": "Download Chart", "type": "n8n-nodes-base.httpRequest", "position": [1440, 960], "parameters": {"url": "` + srv.URL + `/chart.png", "options": {}}, "typeVersion": 4.2`
	analysis := `"name": "Technical Analysis", "type": "@n8n/n8n-nodes-langchain.openAi", "position": [1640, 960], "parameters": {"text": "=# Professional Role\n\nYou are a financial analyst.", "modelId": {"__rl": true, "mode": "list", "value": "gpt-4o", "cachedResultName": "GPT-4O"}, "options": {}, "resource": "image", "inputType": "base64", "operation": "analyze"}, "credentials": {"openAiApi": {"id": "SphXAX7rlwRLkiox", "name": "OpenAi account"}}, "typeVersion": 1.8`
	flow, diags := importLines(t, chain(download, analysis))
	if flow == "" {
		t.Fatalf("nothing written: %v", diags)
	}
	wantDiags(t, diags)
	wantIn(t, flow, `response = "base64"`,
		`[{ type = "image_url", image_url = { url = "data:${(local.download_chart_files)[each.key].data.mimeType};base64,${(local.download_chart_files)[each.key].data.data}", detail = "auto" } }]`)
	flow = strings.ReplaceAll(flow, "https://api.openai.com", srv.URL)
	out := runImported(t, map[string]string{"w.flow.hcl": flow}, "w", map[string]string{"open_ai_account": "sk-test"}, srv.URL)
	got, _ := json.Marshal(out["technical_analysis"])
	if string(got) != `[{"content":"An uptrend."}]` {
		t.Errorf("items %s", got)
	}
	if len(sent) != 1 {
		t.Fatalf("requests %q", sent)
	}
	want := `Bearer sk-test {"max_tokens":300,"messages":[{"content":[{"text":"# Professional Role\n\nYou are a financial analyst.","type":"text"},{"image_url":{"detail":"auto","url":"data:image/png;base64,` + base64.StdEncoding.EncodeToString(png) + `"},"type":"image_url"}],"role":"user"}],"model":"gpt-4o"}`
	if sent[0] != want {
		t.Errorf("request\n%s\nwant\n%s", sent[0], want)
	}
}

// The binary field written as an expression without {{ }} ("=data", as
// "Creating a Prompt for Dall-E (Lego Style)" of
// enescingoz+awesome-n8n-templates/OpenAI_and_LLMs__Transform_Image_to_Lego_Style_Using_Line_and_Dall-E.json
// has it) is its text; several fields separated by commas are an image
// each. Files the flow does not carry, a field the items do not have, a
// type n8n would sniff and a computed field name are errors.
func TestAIOpenAIAnalyzeImageFileFields(t *testing.T) {
	download := `"name": "Receive Line Messages", "type": "n8n-nodes-base.httpRequest", "parameters": {"url": "=https://api-data.line.me/v2/bot/message/{{ $json.id }}/content", "options": {}}, "typeVersion": 4.2`
	analyze := func(field string) string {
		return `"name": "Creating a Prompt", "type": "@n8n/n8n-nodes-langchain.openAi", "parameters": {"text": "Creating the DALL\u00b7E 3 prompt (Only provide me with a prompt).", "modelId": {"__rl": true, "mode": "list", "value": "gpt-4o-mini", "cachedResultName": "GPT-4O-MINI"}, "options": {"detail": "low"}, "resource": "image", "inputType": "base64", "operation": "analyze"` + field + `}, "credentials": {"openAiApi": {"id": "YOUR_OPENAI_CREDENTIAL_ID", "name": "OpenAi account"}}, "typeVersion": 1.7`
	}
	flow, diags := importLines(t, chain(download, analyze(`, "binaryPropertyName": "=data"`)))
	wantDiags(t, diags)
	wantIn(t, flow, `model      = "gpt-4o-mini"`, `url = "data:${(local.receive_line_messages_files)[each.key].data.mimeType};base64,${(local.receive_line_messages_files)[each.key].data.data}", detail = "low" } }]`)

	toFile := `"name": "To File", "type": "n8n-nodes-base.convertToFile", "typeVersion": 1.1, "parameters": {"options": {"mimeType": "image/jpeg"}, "operation": "toBinary", "sourceProperty": "a", "binaryPropertyName": "a"}`
	toFile2 := `"name": "To File 2", "type": "n8n-nodes-base.convertToFile", "typeVersion": 1.1, "parameters": {"options": {}, "operation": "toBinary", "sourceProperty": "b", "binaryPropertyName": "b"}`
	set := `"name": "Fields", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "a", "name": "a", "value": "aGk=", "type": "string"}]}, "options": {}}`
	flow, diags = importLines(t, chain(set, toFile, analyze(`, "binaryPropertyName": "a"`)))
	wantDiags(t, diags)
	wantIn(t, flow, `"data:${(local.to_file_files)[each.key].a.mimeType};base64,${(local.to_file_files)[each.key].a.data}"`)
	for _, c := range []struct {
		nodes []string
		want  string
	}{
		{[]string{set, analyze("")}, "error /nodes/2/parameters/inputType Binary data"},
		{[]string{download, analyze(`, "binaryPropertyName": "data, chart"`)}, "error /nodes/2/parameters/binaryPropertyName No binary field"},
		{[]string{download, analyze(`, "binaryPropertyName": "={{ $json.field }}"`)}, "error /nodes/2/parameters/binaryPropertyName Unsupported expression"},
		{[]string{set, toFile2, analyze(`, "binaryPropertyName": "b"`)}, "error /nodes/3/parameters/binaryPropertyName Binary data"},
	} {
		_, diags := importLines(t, chain(c.nodes...))
		wantErr(t, diags, c.want)
	}
}
