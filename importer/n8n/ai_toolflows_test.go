package n8n_test

import (
	"strings"
	"testing"

	"github.com/flowctl/flowctl/importer"
)

// The Vector Store Question Answer Tool is a flow of its own, written
// beside the workflow's: a vector_search of the model's question in the
// store's collection, then the tool's chat model answering from the
// documents found (langchain's prompt); the agent calls it as flow.NAME.
// From enescingoz+awesome-n8n-templates/OpenAI_and_LLMs__Personal_Shopper_Chatbot_for_WooCommerce_with_RAG_using_Google_Drive_and_openAI.json.
func TestAIVectorStoreTool(t *testing.T) {
	agent := `{"parameters": {"text": "={{ $json.question }}", "promptType": "define", "options": {}}, "name": "AI Agent", "type": "@n8n/n8n-nodes-langchain.agent", "typeVersion": 1.7}`
	model := `{"parameters": {"options": {}}, "name": "OpenAI Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "typeVersion": 1, "credentials": {"openAiApi": {"id": "CDX6QM4gLYanh0P4", "name": "OpenAi account"}}}`
	tool := `{"parameters": {"name": "informazioni_negozio", "description": "Informazioni relative al negozio: orari di apertura, indirizzo, contatti, informazioni generali", "topK": 3}, "name": "RAG", "type": "@n8n/n8n-nodes-langchain.toolVectorStore", "typeVersion": 1}`
	store := `{"parameters": {"options": {}, "qdrantCollection": {"__rl": true, "mode": "list", "value": "scarperia", "cachedResultName": "scarperia"}}, "name": "Qdrant Vector Store", "type": "@n8n/n8n-nodes-langchain.vectorStoreQdrant", "typeVersion": 1, "credentials": {"qdrantApi": {"id": "iyQ6MQiVaF3VMBmt", "name": "QdrantApi account"}}}`
	emb := `{"parameters": {"options": {}}, "name": "Embeddings OpenAI", "type": "@n8n/n8n-nodes-langchain.embeddingsOpenAi", "typeVersion": 1.1, "credentials": {"openAiApi": {"id": "CDX6QM4gLYanh0P4", "name": "OpenAi account"}}}`
	model1 := strings.Replace(model, `"name": "OpenAI Chat Model"`, `"name": "OpenAI Chat Model1"`, 1)
	src := aiWorkflow(t, `{question: "Quando apre il negozio?"}`, []string{"AI Agent"},
		[]string{agent, model, tool, store, emb, model1},
		map[string]string{"OpenAI Chat Model": "ai_languageModel>AI Agent", "RAG": "ai_tool>AI Agent",
			"Qdrant Vector Store": "ai_vectorStore>RAG", "Embeddings OpenAI": "ai_embedding>Qdrant Vector Store",
			"OpenAI Chat Model1": "ai_languageModel>RAG"})
	res, diags := importer.Import([]importer.File{{Name: "wf.json", Bytes: src}}, importer.Options{})
	if res == nil {
		t.Fatalf("not imported: %s", diags.Error())
	}
	if d := importer.Check(res.Files); d.HasErrors() {
		t.Fatalf("the flows do not validate: %s", d.Error())
	}
	files := map[string]string{}
	for _, f := range res.Files {
		files[f.Name] = string(f.Bytes)
	}
	main, sub := files["ai_case.flow.hcl"], files["ai_case_informazioni_negozio.flow.hcl"]
	if main == "" || sub == "" {
		t.Fatalf("want the workflow's flow and the tool's, got %v", importer.SortedKeys(files))
	}
	wantIn(t, main, `tools = [flow.ai_case_informazioni_negozio]`)
	wantIn(t, sub,
		`flow "ai_case_informazioni_negozio" { description = "Useful for when you need to answer questions about informazioni_negozio. Whenever you need information about Informazioni relative al negozio: orari di apertura, indirizzo, contatti, informazioni generali, you should ALWAYS use this. Input should be a fully formed question." }`,
		`input "input" { type = string`,
		`secret "open_ai_account" {`,
		`api_key = secret.open_ai_account`,
		`collection "scarperia" { dimensions = 1536`,
		`use = "vector_search" collection = collection.scarperia provider = provider.open_ai_account_2 model = "text-embedding-3-small" query = input.input top_k = 3`,
		`use = "llm" provider = provider.open_ai_account_2 model = "gpt-5-mini"`,
		`system = "Use the following pieces of context to answer the users question. \nIf you don't know the answer, just say that you don't know, don't try to make up an answer.\n----------------\n${join("\n\n", step.search.texts)}" prompt = input.input`,
		`output "response" { value = step.answer.text }`,
	)
	// One credential, one secret: the tool's flow declares the
	// workflow's under its name.
	var envs []string
	for _, s := range res.Secrets {
		envs = append(envs, s.Flow+" "+s.Env)
	}
	if got := strings.Join(envs, "\n"); got != "ai_case FLOWCTL_SECRET_OPEN_AI_ACCOUNT\nai_case_informazioni_negozio FLOWCTL_SECRET_OPEN_AI_ACCOUNT" {
		t.Errorf("secrets:\n%s", got)
	}
	var lines []string
	for _, d := range diags {
		lines = append(lines, d.Summary)
	}
	wantDiags(t, lines, "Default model", "Vector store kept by flowctl", "Default model", "Tool renamed")
}

// The HTTP Request Tool is a flow of its own: an input for each
// placeholder the model fills (typed and described as the node defines
// it), an http step with the URL, query, headers and JSON body the node
// gives, the credential's secrets, and the answer's text as response. A
// URL read from the workflow's items is an error at it. From
// enescingoz+awesome-n8n-templates/Other_Integrations_and_Use_Cases__Integrating_AI_with_Open-Meteo_API_for_Enhanced_Weather_Forecasting.json,
// …/Other_Integrations_and_Use_Cases__Handling_Appointment_Leads_and_Follow-up_With_Twilio_Cal.com_and_AI.json and
// oxbshw+ultimate-n8n-ai-workflows/workflows__1121_Linkedin_Wait_Create_Webhook.json.
func TestAIHTTPRequestTool(t *testing.T) {
	agent := `{"parameters": {"text": "={{ $json.question }}", "promptType": "define", "options": {}}, "name": "AI Agent", "type": "@n8n/n8n-nodes-langchain.agent", "typeVersion": 1.7}`
	model := `{"parameters": {"options": {}}, "name": "OpenAI Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "typeVersion": 1, "credentials": {"openAiApi": {"id": "CDX6QM4gLYanh0P4", "name": "OpenAi account"}}}`
	geo := `{"name": "A tool for inputting the city and obtaining geolocation", "type": "@n8n/n8n-nodes-langchain.toolHttpRequest", "parameters": {"url": "=https://geocoding-api.open-meteo.com/v1/search", "sendQuery": true, "parametersQuery": {"values": [{"name": "name"}, {"name": "count", "value": "1", "valueProvider": "fieldValue"}, {"name": "format", "value": "json", "valueProvider": "fieldValue"}]}, "toolDescription": "Input the City and get geolocation, geocode or coordinates from Requested City", "placeholderDefinitions": {"values": [{"name": "name", "type": "string", "description": "Requested City"}]}}, "typeVersion": 1.1}`
	cal := `{"name": "Reschedule Booking", "type": "@n8n/n8n-nodes-langchain.toolHttpRequest", "parameters": {"url": "https://api.cal.com/v2/bookings/{bookingUid}/reschedule", "method": "POST", "jsonBody": "{\n \"start\": \"{start}\",\n \"reschedulingReason\": \"{reschedulingReason}\"\n}", "sendBody": true, "sendHeaders": true, "specifyBody": "json", "authentication": "genericCredentialType", "genericAuthType": "httpHeaderAuth", "toolDescription": "Call this tool to reschedule a user's booking using a booking \"uid\".", "parametersHeaders": {"values": [{"name": "cal-api-version", "value": "2024-08-13", "valueProvider": "fieldValue"}]}, "placeholderDefinitions": {"values": [{"name": "bookingUid", "type": "string", "description": "the uid of the booking. Note this is not the same as the id of the booking."}, {"name": "start", "type": "string", "description": "start datetime of the appointment, for example: \"2024-05-30T12:00:00.000Z\""}, {"name": "reschedulingReason", "type": "string", "description": "Reason for rescheduling the booking. If not given, value is \"Declined to give reason.\""}]}}, "credentials": {"calApi": {"id": "GPSKPrBhO3Pq6KVF", "name": "Cal account"}, "httpHeaderAuth": {"id": "X2Vr2TQSBcOsOMst", "name": "Cal.com API v2"}}, "typeVersion": 1}`
	src := aiWorkflow(t, `{question: "Weather in Rome?"}`, []string{"AI Agent"},
		[]string{agent, model, geo, cal},
		map[string]string{"OpenAI Chat Model": "ai_languageModel>AI Agent",
			"A tool for inputting the city and obtaining geolocation": "ai_tool>AI Agent", "Reschedule Booking": "ai_tool>AI Agent"})
	res, diags := importer.Import([]importer.File{{Name: "wf.json", Bytes: src}}, importer.Options{})
	if res == nil {
		t.Fatalf("not imported: %s", diags.Error())
	}
	if d := importer.Check(res.Files); d.HasErrors() {
		t.Fatalf("the flows do not validate: %s", d.Error())
	}
	files := map[string]string{}
	for _, f := range res.Files {
		files[f.Name] = string(f.Bytes)
	}
	geoFlow, calFlow := files["ai_case_a_tool_for_inputting_the_city_and_obtaining_geolocation.flow.hcl"], files["ai_case_reschedule_booking.flow.hcl"]
	if geoFlow == "" || calFlow == "" {
		t.Fatalf("want a flow for each tool, got %v", importer.SortedKeys(files))
	}
	wantIn(t, files["ai_case.flow.hcl"], `tools = [flow.ai_case_a_tool_for_inputting_the_city_and_obtaining_geolocation, flow.ai_case_reschedule_booking]`)
	wantIn(t, geoFlow,
		`description = "Input the City and get geolocation, geocode or coordinates from Requested City"`,
		`input "name" { type = string description = "Requested City" }`,
		`use = "http" url = "https://geocoding-api.open-meteo.com/v1/search" query = { name = "${input.name}" count = "1" format = "json" }`,
		`output "response" { value = step.request.text`)
	wantIn(t, calFlow,
		`input "booking_uid" { type = string description = "the uid of the booking. Note this is not the same as the id of the booking." }`,
		`input "start" {`, `input "rescheduling_reason" {`,
		`secret "cal_com_api_v2" {`, `secret "cal_com_api_v2_name" {`,
		`use = "http" method = "POST" url = "https://api.cal.com/v2/bookings/${input.booking_uid}/reschedule"`,
		`headers = merge({ cal-api-version = "2024-08-13" }, { (secret.cal_com_api_v2_name) = secret.cal_com_api_v2 })`,
		`body = { start = "${input.start}" reschedulingReason = "${input.rescheduling_reason}" }`)
	var lines []string
	for _, d := range diags {
		lines = append(lines, d.Summary)
	}
	wantDiags(t, lines, "Default model", "Tool renamed", "Tool renamed")

	// A URL from the workflow's items: the tool is not converted.
	byItem := `{"parameters": {"url": "={{ $json.url }}", "toolDescription": "grab the article for the ai agent to use"}, "name": "HTTP Request", "type": "@n8n/n8n-nodes-langchain.toolHttpRequest", "typeVersion": 1.1}`
	_, got := importAI(t, aiWorkflow(t, `{question: "?"}`, []string{"AI Agent"}, []string{agent, model, byItem},
		map[string]string{"OpenAI Chat Model": "ai_languageModel>AI Agent", "HTTP Request": "ai_tool>AI Agent"}))
	wantDiags(t, got, "warning /nodes/3/parameters Default model", "error /nodes/4/parameters/url Unsupported expression")

	// An agent that is not converted (--partial) leaves no tool flow.
	// (From the Personal Shopper workflow above: its agent's text names a
	// node that does not lead to it.)
	lost := strings.Replace(agent, "$json.question", "$('Nowhere').item.json.chatInput", 1)
	src = aiWorkflow(t, `{question: "Weather in Rome?"}`, []string{"AI Agent"}, []string{lost, model, geo},
		map[string]string{"OpenAI Chat Model": "ai_languageModel>AI Agent", "A tool for inputting the city and obtaining geolocation": "ai_tool>AI Agent"})
	res, _ = importer.Import([]importer.File{{Name: "wf.json", Bytes: src}}, importer.Options{Partial: true})
	var flows []string
	for _, f := range res.Files {
		if strings.HasSuffix(f.Name, ".flow.hcl") {
			flows = append(flows, f.Name)
		}
	}
	if strings.Join(flows, " ") != "ai_case.flow.hcl" {
		t.Errorf("want the workflow's flow alone, not the tool of an agent not converted; got %v", flows)
	}
}

// The Calculator is langchain's: a js block evaluating the model's
// expression with expr-eval, the package langchain uses, which the user
// locks before a run (import says so). From
// oxbshw+ultimate-n8n-ai-workflows/automation__1806_GoogleDrive_GoogleSheets_Import_Triggered.json.
func TestAICalculatorTool(t *testing.T) {
	agent := `{"parameters": {"text": "={{ $json.question }}", "promptType": "define", "options": {}}, "name": "AI Agent", "type": "@n8n/n8n-nodes-langchain.agent", "typeVersion": 1.7}`
	model := `{"parameters": {"options": {}}, "name": "OpenAI Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "typeVersion": 1, "credentials": {"openAiApi": {"id": "CDX6QM4gLYanh0P4", "name": "OpenAi account"}}}`
	calc := `{"parameters": {}, "name": "Calculator", "type": "@n8n/n8n-nodes-langchain.toolCalculator", "typeVersion": 1}`
	src := aiWorkflow(t, `{question: "What is 12 * 7?"}`, []string{"AI Agent"}, []string{agent, model, calc},
		map[string]string{"OpenAI Chat Model": "ai_languageModel>AI Agent", "Calculator": "ai_tool>AI Agent"})
	res, diags := importer.Import([]importer.File{{Name: "wf.json", Bytes: src}}, importer.Options{})
	if res == nil {
		t.Fatalf("not imported: %s", diags.Error())
	}
	if d := importer.Check(res.Files); d.HasErrors() {
		t.Fatalf("the flow does not validate: %s", d.Error())
	}
	flow := string(res.Files[0].Bytes)
	wantIn(t, flow, `tools = [block.calculator]`,
		`block "calculator" { runtime = "js" description = "Useful for getting the result of a math expression. The input to this tool should be a valid mathematical expression that could be executed by a simple calculator." packages = { expr-eval = "2.0.2" }`,
		`import { Parser } from "expr-eval";`,
		`return { response: Parser.evaluate(input.input).toString() };`,
		`return { response: "I don't know how to do that." };`)
	if len(res.Next) != 1 || !strings.HasPrefix(res.Next[0], "flowctl lock") {
		t.Errorf("next: %q", res.Next)
	}
}

// A Workflow tool names the workflow it runs by its n8n id: when no file
// of the batch holds it, an error that names the id and says how to link
// it. From the Workflow tools of importer/testdata/real (v1.2, a
// resource locator).
func TestAIWorkflowToolSaysWhy(t *testing.T) {
	agent := `{"parameters": {"text": "={{ $json.question }}", "promptType": "define", "options": {}}, "name": "AI Agent", "type": "@n8n/n8n-nodes-langchain.agent", "typeVersion": 1.7}`
	model := `{"parameters": {"options": {}}, "name": "OpenAI Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "typeVersion": 1, "credentials": {"openAiApi": {"id": "1", "name": "OpenAi account"}}}`
	wf := `{"parameters": {"name": "get_weather", "description": "Gets the weather", "workflowId": {"__rl": true, "mode": "list", "value": "AbC123", "cachedResultName": "Weather"}}, "name": "Weather", "type": "@n8n/n8n-nodes-langchain.toolWorkflow", "typeVersion": 1.2}`
	_, diags := importer.Import([]importer.File{{Name: "wf.json", Bytes: aiWorkflow(t, `{question: "?"}`, []string{"AI Agent"}, []string{agent, model, wf},
		map[string]string{"OpenAI Chat Model": "ai_languageModel>AI Agent", "Weather": "ai_tool>AI Agent"})}}, importer.Options{})
	for _, d := range diags {
		if d.Summary == "Sub-workflow not imported" {
			if !strings.Contains(d.Detail, `runs the n8n workflow with id "AbC123" ("Weather"), which none of the files imported holds: import that workflow's file together with this one`) {
				t.Errorf("the error does not say why: %s", d.Detail)
			}
			return
		}
	}
	t.Errorf("no Sub-workflow not imported error: %s", diags.Error())
}

// The OpenAI node's messages may end with a system or an assistant
// message: the llm step sends them as they are, without a prompt. From
// oxbshw+ultimate-n8n-ai-workflows/workflows__1121_Linkedin_Wait_Create_Webhook.json.
func TestAIOpenAINodeLastMessageNotUsers(t *testing.T) {
	node := `{"name": "Article Prep", "type": "@n8n/n8n-nodes-langchain.openAi", "parameters": {"modelId": {"__rl": true, "mode": "list", "value": "gpt-4o-mini", "cachedResultName": "GPT-4O-MINI"}, "options": {}, "messages": {"values": [{"content": "=prepare the following summary for a newsletter: {{ $json.summary }}"}, {"role": "system", "content": "Output in markdown format\nArticle Title"}]}, "jsonOutput": true}, "credentials": {"openAiApi": {"id": "ysxujEYFiY5ozRTS", "name": "AlexK OpenAi Key"}}, "typeVersion": 1.6}`
	flow, diags := importAI(t, aiWorkflow(t, `{summary: "Rust 2.0 is out."}`, []string{"Article Prep"}, []string{node}, nil))
	wantIn(t, flow, `messages = [{ role = "system" content = "You are a helpful assistant designed to output JSON." }, { role = "user" content = "prepare the following summary for a newsletter: ${coalesce(try(each.value.summary, null), "")}" }, {`, `role = "system" content = chomp(<<EOT Output in markdown format Article Title EOT ) }]`)
	if strings.Contains(flow, "prompt ") {
		t.Errorf("the step has a prompt:\n%s", flow)
	}
	wantDiags(t, diags, "warning /nodes/2/parameters Reply fields left out")
}

// A vector store in Retrieve Documents (As Tool for AI Agent) mode is a
// flow searching the collection with the model's query; its response is
// n8n's list of the documents found. From
// enescingoz+awesome-n8n-templates/Telegram__TeleBot_KnowledgeHub.json.
func TestAIVectorStoreRetrieveAsTool(t *testing.T) {
	agent := `{"parameters": {"text": "={{ $json.question }}", "promptType": "define", "options": {}}, "name": "AI Agent", "type": "@n8n/n8n-nodes-langchain.agent", "typeVersion": 1.7}`
	model := `{"parameters": {"options": {}}, "name": "OpenAI Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "typeVersion": 1, "credentials": {"openAiApi": {"id": "1", "name": "OpenAi account"}}}`
	store := `{"parameters": {"mode": "retrieve-as-tool", "toolDescription": "Use this tool to retrieve any information required.", "memoryKey": {"__rl": true, "value": "vector_store_key", "mode": "list", "cachedResultName": "vector_store_key"}, "topK": 10}, "type": "@n8n/n8n-nodes-langchain.vectorStoreInMemory", "typeVersion": 1.3, "name": "Retrieve documents"}`
	emb := `{"parameters": {"options": {}}, "name": "Embeddings OpenAI", "type": "@n8n/n8n-nodes-langchain.embeddingsOpenAi", "typeVersion": 1.1, "credentials": {"openAiApi": {"id": "1", "name": "OpenAi account"}}}`
	src := aiWorkflow(t, `{question: "What is in the handbook?"}`, []string{"AI Agent"}, []string{agent, model, store, emb},
		map[string]string{"OpenAI Chat Model": "ai_languageModel>AI Agent", "Retrieve documents": "ai_tool>AI Agent", "Embeddings OpenAI": "ai_embedding>Retrieve documents"})
	res, diags := importer.Import([]importer.File{{Name: "wf.json", Bytes: src}}, importer.Options{})
	if res == nil {
		t.Fatalf("not imported: %s", diags.Error())
	}
	if d := importer.Check(res.Files); d.HasErrors() {
		t.Fatalf("the flows do not validate: %s", d.Error())
	}
	var main, tool string
	for _, f := range res.Files {
		switch f.Name {
		case "ai_case.flow.hcl":
			main = string(f.Bytes)
		case "ai_case_retrieve_documents.flow.hcl":
			tool = string(f.Bytes)
		}
	}
	wantIn(t, main, `tools = [flow.ai_case_retrieve_documents]`)
	wantIn(t, tool, `description = "Use this tool to retrieve any information required."`,
		`collection "vector_store_key" { dimensions = 1536`,
		`use = "vector_search" collection = collection.vector_store_key provider = provider.open_ai_account_2 model = "text-embedding-3-small" query = input.input top_k = 10`,
		`value = jsonencode([for m in step.search.matches : { type = "text", text = jsonencode({ pageContent = m.text, metadata = m.metadata }) }])`)
}
