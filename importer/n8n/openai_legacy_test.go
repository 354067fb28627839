package n8n_test

import "testing"

// n8n's first OpenAI node, Chat → Complete: an llm step of its messages
// for each item (the last user message the prompt), each item a choice.
// From oxbshw+ultimate-n8n-ai-workflows/workflows__ai-agents__0464_Openai_Form_Create_Webhook.json
// (v1.1, chatModel) and enescingoz+awesome-n8n-templates/AI_Research_RAG_and_Data_Analysis__Scrape_and_summarize_posts_of_a_news_site_without_RSS_feed_using_AI_and_save_them_to_a_NocoDB.json
// (v1, model); a max tokens that is not a number and the Text resource's
// Edit, from Zie619+n8n-workflows/workflows__Readbinaryfiles__1583_Readbinaryfiles_Code_Automation_Webhook.json,
// are errors.
func TestLegacyOpenAIChat(t *testing.T) {
	v11 := `{"name": "OpenAI", "type": "n8n-nodes-base.openAi", "parameters": {"prompt": {"messages": [{"content": "={{ $json.input }}"}]}, "options": {}, "resource": "chat", "chatModel": "gpt-4-1106-preview"}, "credentials": {"openAiApi": {"id": "GrqJccjcTot1xZLv", "name": "OpenAi account"}}, "typeVersion": 1.1}`
	flow, diags := importAI(t, aiWorkflow(t, `{input: "Hello"}`, []string{"OpenAI"}, []string{v11}, nil))
	if flow == "" {
		t.Fatalf("nothing written: %v", diags)
	}
	wantIn(t, flow,
		`provider "open_ai_account" { base_url = "https://api.openai.com/v1" api_key = secret.open_ai_account }`,
		`step "open_ai" { use = "llm" for_each = step.item.items provider = provider.open_ai_account model = "gpt-4-1106-preview" prompt = each.value.input }`,
		`[for r in step.open_ai : { index = 0, message = { role = "assistant", content = r.text } }]`)
	wantDiags(t, diags, "warning /nodes/2/parameters Reply fields left out")

	v1 := `{"name": "Summary", "type": "n8n-nodes-base.openAi", "parameters": {"model": "gpt-4-1106-preview", "prompt": {"messages": [{"role": "system", "content": "You summarize."}, {"content": "=Create a summary in less than 70 words {{ $json[\"content\"] }}"}]}, "options": {"maxTokens": 500, "temperature": 0.8, "presence_penalty": 1}, "resource": "chat"}, "credentials": {"openAiApi": {"id": "0Vdk5RlVe7AoUdAM", "name": "OpenAi account"}}, "typeVersion": 1}`
	flow, diags = importAI(t, aiWorkflow(t, `{content: "News."}`, []string{"Summary"}, []string{v1}, nil))
	wantIn(t, flow, `model = "gpt-4-1106-preview" max_tokens = 500 temperature = 0.8 messages = [{ role = "system" content = "You summarize." }] prompt = "Create a summary in less than 70 words ${coalesce(try(each.value.content, null), "")}"`)
	wantDiags(t, diags, "warning /nodes/2/parameters/options Model option not converted", "warning /nodes/2/parameters Reply fields left out")

	bad := `{"name": "ChatGPT-ex1.1", "type": "n8n-nodes-base.openAi", "parameters": {"prompt": {"messages": [{"content": "=Write a Tl;dr of the followint text: {{ $json.text }}"}]}, "options": {"maxTokens": "YOUR_TOKEN_HERE"}, "resource": "chat"}, "credentials": {"openAiApi": {"id": "{{ $credentials.openAiApi.id }}", "name": "OpenAi account"}}, "typeVersion": 1}`
	_, diags = importAI(t, aiWorkflow(t, `{text: "x"}`, []string{"ChatGPT-ex1.1"}, []string{bad}, nil))
	wantErr(t, diags, "error /nodes/2/parameters/options/maxTokens Unsupported option")
	edit := `{"name": "davinci-003-edit", "type": "n8n-nodes-base.openAi", "parameters": {"input": "={{ $json.text }}", "options": {}, "operation": "edit", "instruction": "translate to German"}, "credentials": {"openAiApi": {"id": "{{ $credentials.openAiApi.id }}", "name": "OpenAi account"}}, "typeVersion": 1}`
	_, diags = importAI(t, aiWorkflow(t, `{text: "x"}`, []string{"davinci-003-edit"}, []string{edit}, nil))
	wantErr(t, diags, "error /nodes/2/parameters Unsupported operation")
}
