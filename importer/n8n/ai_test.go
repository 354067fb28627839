package n8n_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2"
)

// The AI nodes, a family a test, each from fragments of real workflows of
// importer/testdata/real (the file named at each case), behind a Manual
// Trigger and an Edit Fields node giving the item the fragment reads.

// aiWorkflow is a workflow of a Manual Trigger, an Edit Fields node
// giving item, and nodes (JSON objects without position and id), with
// connections: main from "Item" to each root, and sub-node connections
// as {"Sub": "ai_kind>Root"}.
func aiWorkflow(t *testing.T, item string, roots []string, nodes []string, subs map[string]string) []byte {
	t.Helper()
	var all []string
	all = append(all,
		`{"parameters": {}, "name": "Start", "type": "n8n-nodes-base.manualTrigger", "typeVersion": 1, "position": [0, 0]}`,
		fmt.Sprintf(`{"parameters": {"mode": "raw", "jsonOutput": %q}, "name": "Item", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [200, 0]}`, ""),
	)
	_ = item
	all[1] = fmt.Sprintf(`{"parameters": {"jsCode": %q}, "name": "Item", "type": "n8n-nodes-base.code", "typeVersion": 2, "position": [200, 0]}`, "return [{json: "+item+"}]")
	for i, n := range nodes {
		all = append(all, strings.TrimSuffix(strings.TrimSpace(n), "}")+fmt.Sprintf(`, "position": [%d, 200]}`, 400+200*i))
	}
	conns := map[string]any{
		"Start": map[string]any{"main": [][]map[string]any{{{"node": "Item", "type": "main", "index": 0}}}},
	}
	var fromItem []map[string]any
	for _, r := range roots {
		fromItem = append(fromItem, map[string]any{"node": r, "type": "main", "index": 0})
	}
	conns["Item"] = map[string]any{"main": [][]map[string]any{fromItem}}
	for sub, to := range subs {
		kind, root, _ := strings.Cut(to, ">")
		conns[sub] = map[string]any{kind: [][]map[string]any{{{"node": root, "type": kind, "index": 0}}}}
	}
	c, _ := json.Marshal(conns)
	src := `{"name": "AI case", "nodes": [` + strings.Join(all, ",\n") + `], "connections": ` + string(c) + `}`
	if !json.Valid([]byte(src)) {
		t.Fatalf("the case's workflow is not JSON:\n%s", src)
	}
	return []byte(src)
}

// importAI imports a workflow; it returns the flow's text and the
// diagnostics as "severity path summary" lines. A flow that is written
// must validate.
func importAI(t *testing.T, src []byte) (string, []string) {
	t.Helper()
	res, diags := importer.Import([]importer.File{{Name: "wf.json", Bytes: src}}, importer.Options{})
	var lines []string
	for _, d := range diags {
		sev := "warning"
		if d.Severity == hcl.DiagError {
			sev = "error"
		}
		path := ""
		if o, ok := d.Extra.(importer.Origin); ok {
			path = o.Path
		}
		lines = append(lines, sev+" "+path+" "+d.Summary)
	}
	if res == nil {
		return "", lines
	}
	if d := importer.Check(res.Files); d.HasErrors() {
		t.Fatalf("the flow does not validate: %s", d.Error())
	}
	var flow string
	for _, f := range res.Files {
		if strings.HasSuffix(f.Name, ".flow.hcl") {
			flow = string(f.Bytes)
		}
	}
	return flow, lines
}

func wantIn(t *testing.T, text string, parts ...string) {
	t.Helper()
	flat := strings.Join(strings.Fields(text), " ")
	for _, p := range parts {
		if !strings.Contains(flat, strings.Join(strings.Fields(p), " ")) {
			t.Errorf("the flow lacks %q:\n%s", p, text)
		}
	}
}

func wantDiags(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n--- got\n%s\n--- want\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Chat models: a provider per credential, at the service's OpenAI
// compatible URL; the model and its options on the step. Gemini from
// enescingoz+awesome-n8n-templates/AI_Research_RAG_and_Data_Analysis__Intelligent_Web_Query_and_Semantic_Re-Ranking_Flow_using_Brave_and_Google_Gemini.json,
// Groq from …/Forms_and_Surveys__Conversational_Interviews_with_AI_Agents_and_n8n_Forms.json,
// Ollama from n8n-io+self-hosted-ai-starter-kit/n8n__demo-data__workflows__srOnR8PAY3u4RSwb.json.
func TestAIChatModels(t *testing.T) {
	src := aiWorkflow(t, `{q: "Hi"}`, []string{"Chain A", "Chain B", "Chain C", "Chain D"}, []string{
		`{"parameters": {"promptType": "define", "text": "={{ $json.q }}"}, "name": "Chain A", "type": "@n8n/n8n-nodes-langchain.chainLlm", "typeVersion": 1.5}`,
		`{"parameters": {"promptType": "define", "text": "={{ $json.q }}"}, "name": "Chain B", "type": "@n8n/n8n-nodes-langchain.chainLlm", "typeVersion": 1.5}`,
		`{"parameters": {"promptType": "define", "text": "={{ $json.q }}"}, "name": "Chain C", "type": "@n8n/n8n-nodes-langchain.chainLlm", "typeVersion": 1.5}`,
		`{"parameters": {"promptType": "define", "text": "={{ $json.q }}"}, "name": "Chain D", "type": "@n8n/n8n-nodes-langchain.chainLlm", "typeVersion": 1.5}`,
		`{"parameters": {"options": {"topP": 0.6, "temperature": 0.4, "maxOutputTokens": 4096}, "modelName": "models/gemini-1.5-flash-002"}, "name": "Parser Model", "type": "@n8n/n8n-nodes-langchain.lmChatGoogleGemini", "typeVersion": 1, "credentials": {"googlePalmApi": {"id": "rTbWGMQGwWtjhNaA", "name": "Google Gemini(PaLM) Api account 4"}}}`,
		`{"parameters": {"options": {"temperature": 0.4, "safetySettings": {"values": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}]}}, "modelName": "models/gemini-1.5-flash-002"}, "name": "Agent Model", "type": "@n8n/n8n-nodes-langchain.lmChatGoogleGemini", "typeVersion": 1, "credentials": {"googlePalmApi": {"id": "rTbWGMQGwWtjhNaA", "name": "Google Gemini(PaLM) Api account 4"}}}`,
		`{"parameters": {"model": "llama-3.3-70b-versatile", "options": {}}, "name": "Groq Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatGroq", "typeVersion": 1, "credentials": {"groqApi": {"id": "02xZ4o87lUMUFmbT", "name": "Groq account"}}}`,
		`{"parameters": {"model": "llama3.2:latest", "options": {}}, "name": "Ollama Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatOllama", "typeVersion": 1, "credentials": {"ollamaApi": {"id": "xHuYe0MDGOs9IpBW", "name": "Local Ollama service"}}}`,
	}, map[string]string{
		"Parser Model": "ai_languageModel>Chain A", "Agent Model": "ai_languageModel>Chain B",
		"Groq Chat Model": "ai_languageModel>Chain C", "Ollama Chat Model": "ai_languageModel>Chain D",
	})
	flow, diags := importAI(t, src)
	wantIn(t, flow,
		`provider "google_gemini_pa_lm_api_account_4" { base_url = "https://generativelanguage.googleapis.com/v1beta/openai" api_key = secret.google_gemini_pa_lm_api_account_4 }`,
		`provider "groq_account" { base_url = "https://api.groq.com/openai/v1" api_key = secret.groq_account }`,
		`provider "local_ollama_service" { base_url = "http://localhost:11434/v1" }`,
		`provider = provider.google_gemini_pa_lm_api_account_4 model = "gemini-1.5-flash-002" top_p = 0.6 temperature = 0.4 max_tokens = 4096`,
		`provider = provider.groq_account model = "llama-3.3-70b-versatile"`,
		`model = "llama3.2:latest"`,
	)
	if n := strings.Count(flow, `provider "google_gemini`); n != 1 {
		t.Errorf("two models of one credential make %d providers, not one", n)
	}
	if n := strings.Count(flow, `secret "google_gemini`); n != 1 {
		t.Errorf("two models of one credential make %d secrets, not one", n)
	}
	wantDiags(t, diags,
		"warning /nodes/7/parameters/options Model option not converted",
		"warning /nodes/9/credentials Provider URL from n8n's default",
	)
}

// A chat model that does not speak OpenAI's API is an error at its type,
// and so is a root without a model.
func TestAIChatModelUnsupported(t *testing.T) {
	src := aiWorkflow(t, `{q: "Hi"}`, []string{"Chain", "Lonely Chain"}, []string{
		`{"parameters": {"promptType": "define", "text": "={{ $json.q }}"}, "name": "Chain", "type": "@n8n/n8n-nodes-langchain.chainLlm", "typeVersion": 1.5}`,
		`{"parameters": {"promptType": "define", "text": "={{ $json.q }}"}, "name": "Lonely Chain", "type": "@n8n/n8n-nodes-langchain.chainLlm", "typeVersion": 1.5}`,
		`{"parameters": {"model": "anthropic.claude-v2", "options": {}}, "name": "Bedrock", "type": "@n8n/n8n-nodes-langchain.lmChatAwsBedrock", "typeVersion": 1}`,
	}, map[string]string{"Bedrock": "ai_languageModel>Chain"})
	_, diags := importAI(t, src)
	wantDiags(t, diags,
		"error /nodes/4/type Unsupported chat model",
		"error /nodes/3 Missing chat model",
	)
}

// The AI Agent with a Simple Memory and a Code Tool, from
// enescingoz+awesome-n8n-templates/AI_Research_RAG_and_Data_Analysis__Reconcile_Rent_Payments_with_Local_Excel_Spreadsheet_and_OpenAI.json
// (its tool's code without require and $(), which a tool block does not
// have: that one is an error) and n8n-io+self-hosted-ai-starter-kit.
func TestAIAgent(t *testing.T) {
	agent := `{"parameters": {"promptType": "define", "text": "={{ $json.chatInput }}", "options": {"systemMessage": "Your task is to help reconcile rent payments.", "maxIterations": 5}}, "name": "AI Agent", "type": "@n8n/n8n-nodes-langchain.agent", "typeVersion": 1.7}`
	model := `{"parameters": {"model": {"__rl": true, "mode": "list", "value": "gpt-4o-mini"}, "options": {}}, "name": "OpenAI Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "typeVersion": 1.2, "credentials": {"openAiApi": {"id": "8gccIjcuf3gvaoEr", "name": "OpenAi account"}}}`
	memory := `{"parameters": {"sessionIdType": "customKey", "sessionKey": "={{ $json.sessionId }}", "contextWindowLength": 3}, "name": "Window Buffer Memory", "type": "@n8n/n8n-nodes-langchain.memoryBufferWindow", "typeVersion": 1.3}`
	tool := `{"parameters": {"name": "get_tenant_details", "jsCode": "const queryToList = [].concat(typeof query === 'string' ? query.split(',') : query);\nreturn queryToList.length ? JSON.stringify(queryToList) : ` + "`No results were found for ${query}`" + `;", "description": "Call this tool to get the details of a tenant."}, "name": "Get Tenant Details", "type": "@n8n/n8n-nodes-langchain.toolCode", "typeVersion": 1.1}`
	subs := map[string]string{"OpenAI Chat Model": "ai_languageModel>AI Agent", "Window Buffer Memory": "ai_memory>AI Agent", "Get Tenant Details": "ai_tool>AI Agent"}
	flow, diags := importAI(t, aiWorkflow(t, `{chatInput: "Who paid?", sessionId: "s1"}`, []string{"AI Agent"}, []string{agent, model, memory, tool}, subs))
	wantIn(t, flow,
		`memory "window_buffer_memory" { type = map(list(object({ role = string, content = string }))) default = {}`,
		`sid => slice(l, max(length(l) - 6, 0), length(l))`,
		`block "get_tenant_details" { runtime = "js" description = "Call this tool to get the details of a tenant." input "input" { type = string } output "response" { type = string }`,
		`const query = input.input;`,
		`step "ai_agent_turn" { use = "value" for_each = step.item.items value = { session = each.value.sessionId prompt = try(each.value.chatInput, null) } }`,
		`system = "Your task is to help reconcile rent payments."`,
		`messages = lookup(memory.window_buffer_memory, step.ai_agent_turn[each.key].value.session, [])`,
		`prompt = step.ai_agent_turn[each.key].value.prompt`,
		`tools = [block.get_tenant_details] max_tool_calls = 5`,
		`value = [for r in step.ai_agent : { output = r.text }]`,
	)
	wantDiags(t, diags)

	// The real tool's code reads the spreadsheet with require and a node's
	// item: neither exists in its block.
	real := strings.Replace(tool, `const queryToList`, `const { spreadsheet_location } = $('Set Variables').item.json;\nconst queryToList`, 1)
	_, diags = importAI(t, aiWorkflow(t, `{chatInput: "Who paid?", sessionId: "s1"}`, []string{"AI Agent"}, []string{agent, model, memory, real}, subs))
	wantDiags(t, diags, "error /nodes/5/parameters/jsCode Unsupported code")
	// With --partial the agent converts, and the tool is a block that fails
	// with the problem when the model calls it.
	res, _ := importer.Import([]importer.File{{Name: "wf.json", Bytes: aiWorkflow(t, `{chatInput: "Who paid?", sessionId: "s1"}`, []string{"AI Agent"}, []string{agent, model, memory, real}, subs)}}, importer.Options{Partial: true})
	if res == nil {
		t.Fatal("--partial wrote nothing")
	}
	if d := importer.Check(res.Files); d.HasErrors() {
		t.Fatalf("the flow does not validate: %s", d.Error())
	}
	wantIn(t, string(res.Files[0].Bytes),
		`# n8n node "Get Tenant Details" (@n8n/n8n-nodes-langchain.toolCode v1.1): a tool of "AI Agent" — not converted`,
		`source = "function execute(input) { throw new Error(\"Unsupported code: Node \\\"Get Tenant Details\\\"`,
		`tools = [block.get_tenant_details]`,
		`memory "window_buffer_memory"`)
}

// The Basic LLM Chain with its messages and a Structured Output Parser,
// from enescingoz+awesome-n8n-templates/Forms_and_Surveys__Qualifying_Appointment_Requests_with_AI_n8n_Forms.json
// and the parser of …/AI_Research_RAG_and_Data_Analysis__Intelligent_Web_Query_and_Semantic_Re-Ranking_Flow_using_Brave_and_Google_Gemini.json.
func TestAIChainAndParser(t *testing.T) {
	chain := `{"parameters": {"messages": {"messageValues": [{"message": "Summarise the given enquiry"}]}, "hasOutputParser": true}, "name": "Summarise Enquiry", "type": "@n8n/n8n-nodes-langchain.chainLlm", "typeVersion": 1.4}`
	model := `{"parameters": {"options": {}}, "name": "OpenAI Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "typeVersion": 1, "credentials": {"openAiApi": {"id": "8gccIjcuf3gvaoEr", "name": "OpenAi account"}}}`
	parser := `{"parameters": {"jsonSchemaExample": "{\n  \"title\": \"Example\",\n  \"score\": 0.9,\n  \"tags\": [\"a\", \"b\"],\n  \"meta\": {\"ok\": true}\n}"}, "name": "Structured Output Parser", "type": "@n8n/n8n-nodes-langchain.outputParserStructured", "typeVersion": 1.3}`
	flow, diags := importAI(t, aiWorkflow(t, `{chatInput: "I want a website"}`, []string{"Summarise Enquiry"},
		[]string{chain, model, parser}, map[string]string{"OpenAI Chat Model": "ai_languageModel>Summarise Enquiry", "Structured Output Parser": "ai_outputParser>Summarise Enquiry"}))
	wantIn(t, flow,
		`model = "gpt-5-mini"`,
		`messages = [{ role = "system" content = "Summarise the given enquiry" }] prompt = try(each.value.chatInput, null)`,
		`output "output" { type = object({ title = string, score = number, tags = list(string), meta = object({ ok = bool }) }) }`,
		`value = [for r in step.summarise_enquiry : { output = r.output }]`,
	)
	wantDiags(t, diags, "warning /nodes/3/parameters Default model")

	// Without a parser: {text}, trimmed. A parser before v1.3 leaves the
	// fields optional; an Item List parser is not converted.
	flow, _ = importAI(t, aiWorkflow(t, `{chatInput: "x"}`, []string{"Summarise Enquiry"},
		[]string{chain, model}, map[string]string{"OpenAI Chat Model": "ai_languageModel>Summarise Enquiry"}))
	wantIn(t, flow, `value = [for r in step.summarise_enquiry : { text = trimspace(r.text) }]`)
	flow, _ = importAI(t, aiWorkflow(t, `{chatInput: "x"}`, []string{"Summarise Enquiry"},
		[]string{chain, model, strings.Replace(parser, `"typeVersion": 1.3`, `"typeVersion": 1.2`, 1)}, map[string]string{"OpenAI Chat Model": "ai_languageModel>Summarise Enquiry", "Structured Output Parser": "ai_outputParser>Summarise Enquiry"}))
	wantIn(t, flow, `type = object({ title = optional(string), score = optional(number), tags = optional(list(string)), meta = optional(object({ ok = optional(bool) })) })`)
	_, diags = importAI(t, aiWorkflow(t, `{chatInput: "x"}`, []string{"Summarise Enquiry"},
		[]string{chain, model, `{"parameters": {}, "name": "Item List", "type": "@n8n/n8n-nodes-langchain.outputParserItemList", "typeVersion": 1}`},
		map[string]string{"OpenAI Chat Model": "ai_languageModel>Summarise Enquiry", "Item List": "ai_outputParser>Summarise Enquiry"}))
	wantDiags(t, diags, "warning /nodes/3/parameters Default model", "error /nodes/4/type Unsupported output parser",
		"error /nodes/3 Sub-node not converted")
}

// Information Extractor, Sentiment Analysis and Text Classifier: outputs
// as n8n's schemas, items routed by category. From
// enescingoz+awesome-n8n-templates/AI_Research_RAG_and_Data_Analysis__Scrape_Trustpilot_Reviews_with_DeepSeek_Analyze_Sentiment_with_OpenAI.json
// and …/Forms_and_Surveys__Qualifying_Appointment_Requests_with_AI_n8n_Forms.json.
func TestAIExtractClassify(t *testing.T) {
	model := `{"parameters": {"model": "deepseek-chat", "options": {}}, "name": "DeepSeek", "type": "@n8n/n8n-nodes-langchain.lmChatDeepSeek", "typeVersion": 1, "credentials": {"deepSeekApi": {"id": "97Cz4cqyiy1RdcQL", "name": "DeepSeek"}}}`
	extractor := `{"parameters": {"text": "=You need to extract the review from the following HTML: {{ $json.recensione }}", "options": {"systemPromptTemplate": "You are a review expert."}, "attributes": {"attributes": [{"name": "autore", "required": true, "description": "Extract the name of the review author"}, {"name": "valutazione", "type": "number", "required": true, "description": "Extract the rating given to the review (from 1 to 5)"}, {"name": "nazione", "description": "Extract the country"}]}}, "name": "Information Extractor", "type": "@n8n/n8n-nodes-langchain.informationExtractor", "typeVersion": 1}`
	sentiment := `{"parameters": {"options": {"categories": "Positive, Neutral, Negative", "includeDetailedResults": true}, "inputText": "={{ $json.recensione }}"}, "name": "Sentiment Analysis", "type": "@n8n/n8n-nodes-langchain.sentimentAnalysis", "typeVersion": 1}`
	classifier := `{"parameters": {"options": {"fallback": "other"}, "inputText": "={{ $json.recensione }}", "categories": {"categories": [{"category": "relevant enquiry", "description": "Enquire about AI, automation, digital products and product engineering."}]}}, "name": "Enquiry Classifier", "type": "@n8n/n8n-nodes-langchain.textClassifier", "typeVersion": 1}`
	flow, diags := importAI(t, aiWorkflow(t, `{recensione: "<p>Great</p>"}`, []string{"Information Extractor", "Sentiment Analysis", "Enquiry Classifier"},
		[]string{extractor, sentiment, classifier, model, strings.Replace(model, `"name": "DeepSeek"`, `"name": "DeepSeek 2"`, 1), strings.Replace(model, `"name": "DeepSeek", "type"`, `"name": "DeepSeek 3", "type"`, 1)},
		map[string]string{"DeepSeek": "ai_languageModel>Information Extractor", "DeepSeek 2": "ai_languageModel>Sentiment Analysis", "DeepSeek 3": "ai_languageModel>Enquiry Classifier"}))
	wantIn(t, flow,
		`provider "deep_seek" { base_url = "https://api.deepseek.com/v1"`,
		`system = "You are a review expert." prompt = "You need to extract the review from the following HTML: ${coalesce(try(each.value.recensione, null), "")}"`,
		`output "autore" { type = string description = "Extract the name of the review author" }`,
		`output "nazione" { type = string description = "Extract the country" optional = true }`,
		`[for r in step.information_extractor : { output = { for k, v in { autore = r.autore valutazione = r.valutazione nazione = r.nazione } : k => v if v != null } }]`,
		`output "sentiment" { type = string enum = ["Positive", "Neutral", "Negative"] }`,
		`merge(item, { sentimentAnalysis = { category = step.sentiment_analysis[i].sentiment, strength = step.sentiment_analysis[i].strength, confidence = step.sentiment_analysis[i].confidence } }) if lower(step.sentiment_analysis[i].sentiment) == "positive"`,
		`output "relevant_enquiry" { type = bool description = "Should be true if the input has category \"relevant enquiry\" (description: Enquire about AI, automation, digital products and product engineering.)" }`,
		`output "fallback" { type = bool`,
		`If no categories apply, select the \"fallback\" option.`,
	)
	wantDiags(t, diags)
	// The flow's output is the node's first output: its first category.
	wantIn(t, flow, `[for i, item in step.item.items : item if step.enquiry_classifier[i].relevant_enquiry]`)
}

// The OpenAI node: Text → Message a Model converts; an image of the
// items' files is an error when the items carry none. From
// enescingoz+awesome-n8n-templates (the 32 text/message nodes of the
// corpus; image analyze of binary files in 7).
func TestAIOpenAINode(t *testing.T) {
	msg := `{"parameters": {"modelId": {"__rl": true, "mode": "list", "value": "gpt-4o-mini"}, "messages": {"values": [{"role": "system", "content": "You write subject lines."}, {"content": "=Write a subject for: {{ $json.body }}"}]}, "options": {"temperature": 0.7}}, "name": "OpenAI", "type": "@n8n/n8n-nodes-langchain.openAi", "typeVersion": 1.8, "credentials": {"openAiApi": {"id": "x1", "name": "OpenAi account"}}}`
	flow, diags := importAI(t, aiWorkflow(t, `{body: "Hello"}`, []string{"OpenAI"}, []string{msg}, nil))
	wantIn(t, flow,
		`provider "open_ai_account" { base_url = "https://api.openai.com/v1"`,
		`model = "gpt-4o-mini" temperature = 0.7 messages = [{ role = "system" content = "You write subject lines." }] prompt = "Write a subject for: ${coalesce(try(each.value.body, null), "")}"`,
		`[for r in step.open_ai : { index = 0, message = { role = "assistant", content = r.text } }]`,
	)
	wantDiags(t, diags, "warning /nodes/2/parameters Reply fields left out")
	image := `{"parameters": {"resource": "image", "operation": "analyze", "modelId": {"__rl": true, "mode": "list", "value": "gpt-4o"}, "inputType": "base64"}, "name": "OpenAI", "type": "@n8n/n8n-nodes-langchain.openAi", "typeVersion": 1.8}`
	_, diags = importAI(t, aiWorkflow(t, `{url: "http://x"}`, []string{"OpenAI"}, []string{image}, nil))
	// The items of a Code node carry no files to analyze.
	wantDiags(t, diags, "error /nodes/2/parameters/inputType Binary data")
}

// The Chat Trigger starts the flow with the inputs chat_input and
// session_id, the item n8n's chat gives; a memory keyed by the connected
// trigger reads the item's sessionId, else the trigger's. From
// n8n-io+self-hosted-ai-starter-kit/n8n__demo-data__workflows__srOnR8PAY3u4RSwb.json.
func TestAIChatTrigger(t *testing.T) {
	src := `{"name": "Demo: My first AI Agent in n8n", "nodes": [
	  {"parameters": {"options": {}}, "name": "When chat message received", "type": "@n8n/n8n-nodes-langchain.chatTrigger", "typeVersion": 1.1, "position": [0, 0], "webhookId": "4491e6b1"},
	  {"parameters": {"options": {}}, "name": "AI Agent", "type": "@n8n/n8n-nodes-langchain.agent", "typeVersion": 1.7, "position": [200, 0]},
	  {"parameters": {"model": "llama3.2:latest", "options": {}}, "name": "Ollama Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatOllama", "typeVersion": 1, "position": [200, 200], "credentials": {"ollamaApi": {"id": "xHuYe0MDGOs9IpBW", "name": "Local Ollama service"}}},
	  {"parameters": {}, "name": "Window Buffer Memory", "type": "@n8n/n8n-nodes-langchain.memoryBufferWindow", "typeVersion": 1.3, "position": [300, 200]}
	], "connections": {
	  "When chat message received": {"main": [[{"node": "AI Agent", "type": "main", "index": 0}]]},
	  "Ollama Chat Model": {"ai_languageModel": [[{"node": "AI Agent", "type": "ai_languageModel", "index": 0}]]},
	  "Window Buffer Memory": {"ai_memory": [[{"node": "AI Agent", "type": "ai_memory", "index": 0}]]}
	}}`
	flow, diags := importAI(t, []byte(src))
	wantIn(t, flow,
		`input "chat_input" { type = string default = null`,
		`input "session_id" { type = string default = null`,
		`for_each = (input.chat_input == null ? [] : [{ sessionId = input.session_id, action = "sendMessage", chatInput = input.chat_input }])`,
		`session = try(each.value.sessionId, input.session_id) prompt = try(each.value.chatInput, null)`,
		`system = "You are a helpful assistant"`,
	)
	wantDiags(t, diags, "warning /nodes/2/credentials Provider URL from n8n's default", "warning /nodes/0 Webhook without verification")
	// The chat's webhook: n8n's request shape, answered with the agent's
	// item (n8n's default response mode, the last node's).
	wantIn(t, flow,
		`trigger "when_chat_message_received" { webhook { path = "/webhook/4491e6b1/chat" method = "POST" verify = "none" }`,
		`inputs = { chat_input = request.body.chatInput, session_id = request.body.sessionId } respond = output.ai_agent_reply }`,
		`output "ai_agent_reply" { value = [for r in step.ai_agent : { output = r.text }][0]`,
	)
}

// A vector store inserting the items' documents, and one searching them:
// chunk, embed and vector_upsert into a collection of the flow; Qdrant,
// which flowctl does not host, with a warning. From
// oxbshw+ultimate-n8n-ai-workflows/workflows__1363_Splitout_GitHub_Create_Webhook.json
// (its loader reads $json where the workflow reads $('Extract from File')).
func TestAIVectorStores(t *testing.T) {
	insert := `{"parameters": {"mode": "insert", "options": {}, "qdrantCollection": {"__rl": true, "mode": "id", "value": "imdb"}}, "name": "Qdrant Vector Store", "type": "@n8n/n8n-nodes-langchain.vectorStoreQdrant", "typeVersion": 1, "credentials": {"qdrantApi": {"id": "Zin08PA0RdXVUKK7", "name": "QdrantApi n8n demo"}}}`
	emb := `{"parameters": {"model": "text-embedding-3-small", "options": {}}, "name": "Embeddings OpenAI", "type": "@n8n/n8n-nodes-langchain.embeddingsOpenAi", "typeVersion": 1, "credentials": {"openAiApi": {"id": "deYJUwkgL1Euu613", "name": "OpenAi account 2"}}}`
	loader := `{"parameters": {"options": {"metadata": {"metadataValues": [{"name": "movie_name", "value": "={{ $json['Movie Name'] }}"}]}}, "jsonData": "={{ $json.Description }}", "jsonMode": "expressionData"}, "name": "Default Data Loader", "type": "@n8n/n8n-nodes-langchain.documentDefaultDataLoader", "typeVersion": 1}`
	splitter := `{"parameters": {}, "name": "Token Splitter", "type": "@n8n/n8n-nodes-langchain.textSplitterTokenSplitter", "typeVersion": 1}`
	load := `{"parameters": {"mode": "load", "prompt": "={{ $json.Description }}", "topK": 2, "qdrantCollection": {"__rl": true, "mode": "id", "value": "imdb"}}, "name": "Search", "type": "@n8n/n8n-nodes-langchain.vectorStoreQdrant", "typeVersion": 1}`
	flow, diags := importAI(t, aiWorkflow(t, `{"Movie Name": "Heat", Description: "A heist in Los Angeles."}`, []string{"Qdrant Vector Store", "Search"},
		[]string{insert, emb, loader, splitter, load, strings.Replace(emb, `"name": "Embeddings OpenAI"`, `"name": "Embeddings 2"`, 1)},
		map[string]string{"Embeddings OpenAI": "ai_embedding>Qdrant Vector Store", "Default Data Loader": "ai_document>Qdrant Vector Store",
			"Token Splitter": "ai_textSplitter>Default Data Loader", "Embeddings 2": "ai_embedding>Search"}))
	wantIn(t, flow,
		`collection "imdb" { dimensions = 1536 description = "The vectors n8n keeps in Qdrant \"imdb\"" }`,
		`use = "chunk" for_each = step.item.items text = tostring(each.value.Description) max_tokens = 1000 overlap = 0 by = "tokens"`,
		`use = "embed" for_each = step.qdrant_vector_store_chunks provider = provider.open_ai_account_2 model = "text-embedding-3-small" texts = [for c in each.value.chunks : c.text]`,
		`use = "vector_upsert" for_each = step.qdrant_vector_store_embed collection = collection.imdb`,
		`use = "vector_search" for_each = step.item.items collection = collection.imdb provider = provider.open_ai_account_2 model = "text-embedding-3-small"`,
		`[for m in r.matches : { document = { pageContent = m.text, metadata = m.metadata }, score = m.score }]`,
	)
	wantDiags(t, diags,
		"warning /nodes/2/parameters/qdrantCollection Vector store kept by flowctl",
		"warning /nodes/2 Document metadata")
}
