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

// Text → Complete: an http step posting n8n's request to OpenAI's
// Completions API (the model n8n's default, the options as it sends
// them); each item a choice with its text trimmed, or the whole response
// without Simplify. From
// enescingoz+awesome-n8n-templates/Instagram_Twitter_Social_Media__Reddit_AI_digest.json
// ("OpenAI Classify", "OpenAI Summary Backup"; their credential named);
// a typeVersion the node does not have, from
// enescingoz+awesome-n8n-templates/Gmail_and_Email_Automation__InboxZero_Lite_-_AI_Email_Classifier.json,
// is an error.
func TestLegacyOpenAIComplete(t *testing.T) {
	summary := `{"name": "OpenAI Summary Backup", "type": "n8n-nodes-base.openAi", "parameters": {"prompt": "=Summarise what this is talking about in a meta way in only 1 sentence.\n\n {{ $json.selftextTrimmed }}", "options": {"maxTokens": 128}}, "credentials": {"openAiApi": {"id": "s2iucY0IctjYNbrb", "name": "OpenAi account"}}, "typeVersion": 1}`
	flow, diags := importAI(t, aiWorkflow(t, `{selftextTrimmed: "n8n is great"}`, []string{"OpenAI Summary Backup"}, []string{summary}, nil))
	wantIn(t, flow,
		`secret "open_ai_account"`,
		`step "open_ai_summary_backup" { use = "http" for_each = step.item.items method = "POST" url = "https://api.openai.com/v1/completions" headers = { Authorization = "Bearer ${secret.open_ai_account}" }`,
		`body = { model = "gpt-3.5-turbo-instruct" prompt = "Summarise what this is talking about in a meta way in only 1 sentence.\n\n ${coalesce(try(each.value.selftextTrimmed, null), "")}" max_tokens = 128 }`,
		`flatten([for r in step.open_ai_summary_backup : [for c in r.body.choices : merge(c, { text = trimspace(c.text) })]])`,
	)
	wantDiags(t, diags)

	classify := `{"name": "OpenAI Classify", "type": "n8n-nodes-base.openAi", "parameters": {"prompt": "=Decide whether a reddit post is about n8n.io.\nReddit Post: {{ $json.selftextTrimmed }}\nAbout n8n?: Yes/No", "options": {"maxTokens": 32}, "simplifyOutput": false}, "credentials": {"openAiApi": {"id": "s2iucY0IctjYNbrb", "name": "OpenAi account"}}, "typeVersion": 1}`
	flow, _ = importAI(t, aiWorkflow(t, `{selftextTrimmed: "n8n is great"}`, []string{"OpenAI Classify"}, []string{classify}, nil))
	wantIn(t, flow, `[for r in step.open_ai_classify : r.body]`)

	v18 := `{"name": "AI: Classify", "type": "n8n-nodes-base.openAi", "parameters": {"model": "gpt-4o-mini", "messages": {"values": [{"role": "system", "content": "Classify this email."}]}, "options": {"temperature": 0.2, "maxTokens": 200, "responseFormat": "json_object"}}, "typeVersion": 1.8}`
	_, diags = importAI(t, aiWorkflow(t, `{}`, []string{"AI: Classify"}, []string{v18}, nil))
	wantDiags(t, diags, "error /nodes/2/typeVersion Unsupported version")
}
