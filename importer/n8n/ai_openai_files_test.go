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

	"github.com/flowctl/flowctl/importer"
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

// Generate Audio, from "Generate Audio for the story" of
// enescingoz+awesome-n8n-templates/Telegram__AI-Powered_Children_s_English_Storytelling_on_Telegram_with_OpenAI.json
// (v1.3, n8n's defaults) and the mp3 option of "Use Text-to-Speech" of
// enescingoz+awesome-n8n-templates/OpenAI_and_LLMs__Narrating_over_a_Video_using_Multimodal_AI.json,
// followed, as there, by a node that uploads the file (here an HTTP
// Request's binary body): OpenAI's speech request as n8n sends it, the
// answer's bytes the item's file, of type audio/mp3. Run against a local
// server that is OpenAI's API and the upload's host.
func TestAIOpenAISpeech(t *testing.T) {
	mp3 := []byte("ID3\x03\x00mp3 bytes \xff\xfb")
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		switch r.URL.Path {
		case "/v1/audio/speech":
			got = append(got, r.Header.Get("Authorization")+" "+string(b))
			w.Header().Set("Content-Type", "audio/mpeg")
			w.Write(mp3)
		case "/upload":
			got = append(got, r.Header.Get("Content-Type")+" "+base64.StdEncoding.EncodeToString(b))
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"id": "f1"}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	speech := `{"name": "Generate Audio for the story", "type": "@n8n/n8n-nodes-langchain.openAi", "parameters": {"input": "={{ $json.response.text }}", "options": {}, "resource": "audio"}, "credentials": {"openAiApi": {"id": "6Oi8Vxm6GZvFBk8F", "name": "OpenAi account"}}, "typeVersion": 1.3}`
	upload := `{"name": "Upload", "type": "n8n-nodes-base.httpRequest", "typeVersion": 4.2, "parameters": {"url": "` + srv.URL + `/upload", "method": "POST", "sendBody": true, "contentType": "binaryData", "inputDataFieldName": "data", "options": {}}}`
	src := aiWorkflow(t, `{response: {text: "Once upon a time."}}`, []string{"Generate Audio for the story"}, []string{speech, upload}, nil)
	src = []byte(strings.Replace(string(src), `"connections": {`, `"connections": {"Generate Audio for the story": {"main": [[{"node": "Upload", "type": "main", "index": 0}]]}, `, 1))
	files, diags := importApp(t, src)
	flow := files["ai_case.flow.hcl"]
	if flow == "" {
		t.Fatalf("nothing written: %v %v", importer.SortedKeys(files), diags)
	}
	wantDiags(t, diags)
	wantIn(t, flow, `url      = "https://api.openai.com/v1/audio/speech"`, `response = "base64"`,
		`body = {
      model           = "tts-1"
      input           = each.value.response.text
      voice           = "alloy"
      response_format = "mp3"
      speed           = 1
    }`)
	files["ai_case.flow.hcl"] = strings.ReplaceAll(flow, "https://api.openai.com", srv.URL)
	out := runImported(t, files, "ai_case", map[string]string{"open_ai_account": "sk-test"}, srv.URL)
	if b, _ := json.Marshal(out["upload"]); string(b) != `[{"id":"f1"}]` {
		t.Errorf("items %s", b)
	}
	want := []string{
		`Bearer sk-test {"input":"Once upon a time.","model":"tts-1","response_format":"mp3","speed":1,"voice":"alloy"}`,
		"audio/mp3 " + base64.StdEncoding.EncodeToString(mp3),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Another format is audio/FORMAT; one n8n does not have is refused.
	opts := func(o string) []byte {
		return []byte(strings.Replace(string(src), `"options": {}, "resource": "audio"`, `"options": `+o+`, "resource": "audio"`, 1))
	}
	files, _ = importApp(t, opts(`{"response_format": "flac", "speed": 1.5}`))
	wantIn(t, files["ai_case.flow.hcl"], `response_format = "flac"`, `speed           = 1.5`, `mimeType = "audio/flac"`)
	_, diags = importApp(t, opts(`{"response_format": "wav"}`))
	wantErr(t, diags, "error /nodes/2/parameters/options/response_format Unsupported option")
}

// Generate an Image as files (n8n's default), from "Generate featured
// image" and "Upload media" of
// oxbshw+ultimate-n8n-ai-workflows/workflows__ai-agents__0468_Splitout_Code_Create_Webhook.json
// (the prompt shortened): the images request with response_format
// b64_json, each image the file of an item. n8n finds the image's type
// from its bytes, so the upload after it, which sends that type, is an
// error. Where the items' json (n8n's file metadata, with the id of its
// binary data store) may be read, the node is an error that says so.
func TestAIOpenAIGenerateImageFiles(t *testing.T) {
	image := `{"name": "Generate featured image", "type": "@n8n/n8n-nodes-langchain.openAi", "parameters": {"prompt": "=Generate a photographic image for the article titled: {{ $json.title }}", "options": {"size": "1792x1024", "style": "natural", "quality": "hd"}, "resource": "image"}, "credentials": {"openAiApi": {"id": "8gccIjcuf3gvaoEr", "name": "OpenAi account"}}, "typeVersion": 1.8}`
	upload := `{"name": "Upload media", "type": "n8n-nodes-base.httpRequest", "parameters": {"url": "https://wp-demo.mondo.surf/wp-json/wp/v2/media", "method": "POST", "options": {}, "sendBody": true, "contentType": "binaryData", "sendHeaders": true, "headerParameters": {"parameters": [{"name": "Content-Disposition", "value": "attachment; filename=\"example.jpg\""}]}, "inputDataFieldName": "data"}, "typeVersion": 4.2}`
	wf := func(image, next string) []byte {
		src := aiWorkflow(t, `{title: "Kites"}`, []string{"Generate featured image"}, []string{image, next}, nil)
		name := strings.SplitN(strings.SplitN(next, `"name": "`, 2)[1], `"`, 2)[0]
		return []byte(strings.Replace(string(src), `"connections": {`, `"connections": {"Generate featured image": {"main": [[{"node": "`+name+`", "type": "main", "index": 0}]]}, `, 1))
	}
	res, diags := importer.Import([]importer.File{{Name: "wf.json", Bytes: wf(image, upload)}}, importer.Options{Partial: true})
	if res == nil {
		t.Fatalf("nothing written: %v", diags)
	}
	var flow string
	for _, f := range res.Files {
		if strings.HasSuffix(f.Name, ".flow.hcl") {
			flow = string(f.Bytes)
		}
	}
	wantIn(t, flow, `url      = "https://api.openai.com/v1/images/generations"`,
		`body = {
      prompt          = "Generate a photographic image for the article titled: ${coalesce(try(each.value.title, null), "")}"
      model           = "dall-e-3"
      response_format = "b64_json"
      size            = "1792x1024"
      style           = "natural"
      quality         = "hd"
    }`,
		`inputs  = flatten([for r in step.generate_featured_image : [for d in r.body.data : {}]])`)
	var lines []string
	for _, d := range diags {
		lines = append(lines, d.Summary+" "+d.Extra.(importer.Origin).Path)
	}
	wantDiags(t, lines, "Binary data /nodes/3/parameters/inputDataFieldName")

	// A LinkedIn post after it, as "Image Facebook e Linkedin" of
	// oxbshw+ultimate-n8n-ai-workflows/automation__1709_Linkedin_Wordpress_Automation_Webhook.json:
	// its items are LinkedIn's answer; the image converts (LinkedIn does not).
	linkedIn := `{"name": "Publish on LinkedIn", "type": "n8n-nodes-base.linkedIn", "parameters": {"text": "Kites", "person": "6nJkOa3fkG", "additionalFields": {}, "shareMediaCategory": "IMAGE"}, "typeVersion": 1}`
	res, diags = importer.Import([]importer.File{{Name: "wf.json", Bytes: wf(image, linkedIn)}}, importer.Options{Partial: true})
	lines = nil
	for _, d := range diags {
		lines = append(lines, d.Summary+" "+d.Extra.(importer.Origin).Path)
	}
	wantDiags(t, lines, "Unsupported node /nodes/3/type")

	set := `{"name": "Fields", "type": "n8n-nodes-base.set", "typeVersion": 3.4, "parameters": {"assignments": {"assignments": [{"id": "a", "name": "file", "value": "={{ $json.fileName }}", "type": "string"}]}, "options": {}}}`
	reads := strings.Replace(upload, `example.jpg`, `{{ $json.fileName }}`, 1)
	for _, c := range []struct {
		src []byte
		why string
	}{
		{wf(image, set), `node "Fields" (n8n-nodes-base.set) after it may read or pass on its items' json`},
		{wf(image, reads), `node "Upload media" after it reads its items' json`},
		{wf(image, strings.Replace(upload, `"inputDataFieldName": "data"`, `"inputDataFieldName": "data", "url2": "={{ $('Generate featured image').item.json.fileSize }}"`, 1)), `node "Upload media" names it`},
		{aiWorkflow(t, `{title: "Kites"}`, []string{"Generate featured image"}, []string{image}, nil), "its items are an output of the flow"},
	} {
		res, d := importDetail(t, c.src)
		if res || !strings.Contains(d, c.why) {
			t.Errorf("the error does not say %q: %s", c.why, d)
		}
	}
}
