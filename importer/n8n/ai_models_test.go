package n8n_test

import (
	"strings"
	"testing"
)

// A text completion model (Ollama Model, lmOllama) on a Basic LLM Chain:
// n8n sends it the prompt alone, its Chat Messages left out (a warning);
// the model is the provider's, as for Ollama Chat Model. From
// enescingoz+awesome-n8n-templates/OpenAI_and_LLMs__Detect_hallucinations_using_specialised_Ollama_model_bespoke-minicheck.json
// (its system message shortened).
func TestAICompletionModel(t *testing.T) {
	chain := `{"parameters": {"text": "={{ $json.data }}", "messages": {"messageValues": [{"message": "You are a fact-checking assistant."}]}, "promptType": "define"}, "name": "Basic LLM Chain", "type": "@n8n/n8n-nodes-langchain.chainLlm", "typeVersion": 1.5}`
	model := `{"parameters": {"model": "qwen2.5:1.5b", "options": {"temperature": 0.2}}, "name": "Ollama Model", "type": "@n8n/n8n-nodes-langchain.lmOllama", "typeVersion": 1, "credentials": {"ollamaApi": {"id": "DeuK54dDNrCCnXHl", "name": "Ollama account"}}}`
	flow, diags := importAI(t, aiWorkflow(t, `{data: "The sky is green. no"}`, []string{"Basic LLM Chain"},
		[]string{chain, model}, map[string]string{"Ollama Model": "ai_languageModel>Basic LLM Chain"}))
	wantIn(t, flow,
		`provider "ollama_account" { base_url = "http://localhost:11434/v1" }`,
		`provider = provider.ollama_account model = "qwen2.5:1.5b" temperature = 0.2`,
		`value = [for r in step.basic_llm_chain : { text = trimspace(r.text) }]`,
	)
	wantNotIn(t, flow, "fact-checking", "messages =")
	wantDiags(t, diags,
		"warning /nodes/3/credentials Provider URL from n8n's default",
		"warning /nodes/2/parameters/messages Messages left out",
	)

	// An image message is left out with the others, as n8n leaves it.
	img := `{"parameters": {"text": "={{ $json.data }}", "messages": {"messageValues": [{"type": "HumanMessagePromptTemplate", "messageType": "imageBinary"}]}, "promptType": "define"}, "name": "Basic LLM Chain", "type": "@n8n/n8n-nodes-langchain.chainLlm", "typeVersion": 1.5}`
	_, diags = importAI(t, aiWorkflow(t, `{data: "x"}`, []string{"Basic LLM Chain"},
		[]string{img, model}, map[string]string{"Ollama Model": "ai_languageModel>Basic LLM Chain"}))
	wantDiags(t, diags,
		"warning /nodes/3/credentials Provider URL from n8n's default",
		"warning /nodes/2/parameters/messages Messages left out",
	)

	// Other roots give it their messages as one text: an error; so is
	// the JSON format, whose replies n8n's chain parses (as a chat
	// model's, TestAIChainJSONFormat).
	agent := `{"parameters": {"text": "={{ $json.data }}", "promptType": "define", "options": {}}, "name": "Agent", "type": "@n8n/n8n-nodes-langchain.agent", "typeVersion": 1.7}`
	_, diags = importAI(t, aiWorkflow(t, `{data: "x"}`, []string{"Agent"},
		[]string{agent, model}, map[string]string{"Ollama Model": "ai_languageModel>Agent"}))
	wantDiags(t, diags, "error /nodes/3/type Unsupported chat model")
	jsonModel := `{"parameters": {"model": "qwen2.5:1.5b", "options": {"format": "json"}}, "name": "Ollama Model", "type": "@n8n/n8n-nodes-langchain.lmOllama", "typeVersion": 1}`
	_, diags = importAI(t, aiWorkflow(t, `{data: "x"}`, []string{"Basic LLM Chain"},
		[]string{chain, jsonModel}, map[string]string{"Ollama Model": "ai_languageModel>Basic LLM Chain"}))
	wantErr(t, diags, "error /nodes/2 Unsupported option")
}

func wantNotIn(t *testing.T, text string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if strings.Contains(text, p) {
			t.Errorf("the flow has %q:\n%s", p, text)
		}
	}
}

// Information Extractor attributes and schema properties that are not
// output names: the model is asked for the snake_case names (a warning),
// each item has n8n's. From
// oxbshw+ultimate-n8n-ai-workflows/workflows__ai-agents__0663_Splitout_Schedule_Update_Scheduled.json
// and enescingoz+awesome-n8n-templates/AI_Research_RAG_and_Data_Analysis__Customer_Insights_with_Qdrant_Python_and_Information_Extractor.json
// (their texts shortened); an attribute named by an expression, from
// enescingoz+awesome-n8n-templates/AI_Research_RAG_and_Data_Analysis__Ultimate_Scraper_Workflow_for_n8n.json,
// is an error.
func TestAIExtractorFieldNames(t *testing.T) {
	model := `{"parameters": {"model": "gpt-4o-mini", "options": {}}, "name": "OpenAI Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "typeVersion": 1, "credentials": {"openAiApi": {"id": "8gccIjcuf3gvaoEr", "name": "OpenAi account"}}}`
	attrs := `{"name": "Sentiment over Issue Comments", "type": "@n8n/n8n-nodes-langchain.informationExtractor", "parameters": {"text": "={{ $json.comments }}", "options": {}, "attributes": {"attributes": [{"name": "sentiment", "required": true, "description": "One of positive, negative or neutral"}, {"name": "sentimentSummary", "description": "Describe the sentiment of the conversation"}]}}, "typeVersion": 1}`
	flow, diags := importAI(t, aiWorkflow(t, `{comments: "Looks good"}`, []string{"Sentiment over Issue Comments"}, []string{attrs, model},
		map[string]string{"OpenAI Chat Model": "ai_languageModel>Sentiment over Issue Comments"}))
	wantIn(t, flow,
		`output "sentiment" { type = string description = "One of positive, negative or neutral" }`,
		`output "sentiment_summary" { type = string description = "Describe the sentiment of the conversation" optional = true }`,
		`{ output = { for k, v in { sentiment = r.sentiment sentimentSummary = r.sentiment_summary } : k => v if v != null } }`,
	)
	wantDiags(t, diags, "warning /nodes/2/parameters Fields renamed for the model")

	example := `{"name": "Customer Insights Agent", "type": "@n8n/n8n-nodes-langchain.informationExtractor", "parameters": {"text": "={{ $json.reviews }}", "options": {}, "schemaType": "fromJson", "jsonSchemaExample": "{\n\t\"Insight\": \"\",\n \"Sentiment\": \"\",\n \"Suggested Improvements\": \"\"\n}"}, "typeVersion": 1}`
	flow, diags = importAI(t, aiWorkflow(t, `{reviews: "Fast"}`, []string{"Customer Insights Agent"}, []string{example, model},
		map[string]string{"OpenAI Chat Model": "ai_languageModel>Customer Insights Agent"}))
	wantIn(t, flow, `output "suggested_improvements" {`, `"Suggested Improvements" = r.suggested_improvements`, `Insight = r.insight`)
	wantDiags(t, diags, "warning /nodes/2/parameters Fields renamed for the model")

	expr := strings.Replace(attrs, `"name": "sentimentSummary"`, `"name": "={{ $('Webhook').item.json.body['Target data'][0].DataName }}"`, 1)
	_, diags = importAI(t, aiWorkflow(t, `{comments: "x"}`, []string{"Sentiment over Issue Comments"}, []string{expr, model},
		map[string]string{"OpenAI Chat Model": "ai_languageModel>Sentiment over Issue Comments"}))
	wantDiags(t, diags, "error /nodes/2/parameters/attributes/attributes/1/name Unsupported expression", "error /nodes/3 Sub-node not converted")
}

// A Basic LLM Chain without an output parser whose chat model asks for
// JSON replies: n8n parses the reply and gives the object (its JSON text
// before v1.6), the llm step its text: an error. With a Structured Output
// Parser it converts. From
// enescingoz+awesome-n8n-templates/Gmail_and_Email_Automation__Gmail_AI_Auto-Responder__Create_Draft_Replies_to_incoming_emails.json.
func TestAIChainJSONFormat(t *testing.T) {
	chain := `{"parameters": {"prompt": "=Subject: {{ $json.subject }}", "messages": {"messageValues": [{"message": "Your task is to assess if the message requires a response. Return in JSON format true if it does, false otherwise."}]}}, "name": "Assess if message needs a reply", "type": "@n8n/n8n-nodes-langchain.chainLlm", "typeVersion": 1.3}`
	model := `{"parameters": {"model": "gpt-4o", "options": {"temperature": 0, "responseFormat": "json_object"}}, "name": "OpenAI Chat", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "typeVersion": 1, "credentials": {"openAiApi": {"id": "13ffkrNMlQMfvbZy", "name": "OpenAi account"}}}`
	_, diags := importAI(t, aiWorkflow(t, `{subject: "Hi"}`, []string{"Assess if message needs a reply"}, []string{chain, model},
		map[string]string{"OpenAI Chat": "ai_languageModel>Assess if message needs a reply"}))
	wantErr(t, diags, "error /nodes/2 Unsupported option")

	v14 := strings.Replace(strings.Replace(chain, `"typeVersion": 1.3`, `"typeVersion": 1.4`, 1), `"parameters": {`, `"parameters": {"hasOutputParser": true, `, 1)
	parser := `{"parameters": {"jsonSchemaExample": "{\n  \"reply\": true\n}"}, "name": "Structured Output Parser", "type": "@n8n/n8n-nodes-langchain.outputParserStructured", "typeVersion": 1.2}`
	flow, diags := importAI(t, aiWorkflow(t, `{subject: "Hi"}`, []string{"Assess if message needs a reply"}, []string{v14, model, parser},
		map[string]string{"OpenAI Chat": "ai_languageModel>Assess if message needs a reply", "Structured Output Parser": "ai_outputParser>Assess if message needs a reply"}))
	wantIn(t, flow, `output "output" {`)
	for _, d := range diags {
		if strings.HasPrefix(d, "error") {
			t.Errorf("error: %s", d)
		}
	}
}
