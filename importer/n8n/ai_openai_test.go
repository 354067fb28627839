package n8n_test

import (
	"strings"
	"testing"

	"github.com/flowctl/flowctl/importer"
	"github.com/hashicorp/hcl/v2"
)

// The OpenAI node's Analyze Image of image URLs, from
// enescingoz+awesome-n8n-templates/AI_Research_RAG_and_Data_Analysis__Extract_insights_analyse_YouTube_comments_via_AI_Agent_chat.json
// (v1.7) and oxbshw+ultimate-n8n-ai-workflows/workflows__1121_Linkedin_Wait_Create_Webhook.json
// (v1.6, its detail option): the chat completion n8n sends, as an http
// step with the credential's key; each item is {content}.
func TestAIOpenAIAnalyzeImage(t *testing.T) {
	node := `{"name": "OpenAI", "type": "@n8n/n8n-nodes-langchain.openAi", "parameters": {"text": "={{ $json.query.prompt }}", "modelId": {"__rl": true, "mode": "list", "value": "gpt-4o", "cachedResultName": "GPT-4O"}, "options": {}, "resource": "image", "imageUrls": "={{ $json.query.url }}", "operation": "analyze"}, "credentials": {"openAiApi": {"id": "SphXAX7rlwRLkiox", "name": "Test club key"}}, "typeVersion": 1.7}`
	flow, diags := importAI(t, aiWorkflow(t, `{query: {prompt: "What is in it?", url: "https://example.com/a.png, https://example.com/b.png"}}`, []string{"OpenAI"}, []string{node}, nil))
	if flow == "" {
		t.Fatalf("nothing written: %v", diags)
	}
	wantIn(t, flow,
		`secret "test_club_key" {`,
		`step "open_ai" {
    use      = "http"
    for_each = step.item.items
    method   = "POST"
    url      = "https://api.openai.com/v1/chat/completions"
    headers = {
      Authorization = "Bearer ${secret.test_club_key}"
    }
    body = {
      model      = "gpt-4o"
      messages   = [{ role = "user", content = concat([{ type = "text", text = each.value.query.prompt }], [for u in split(",", each.value.query.url) : { type = "image_url", image_url = { url = trimspace(u), detail = "auto" } }]) }]
      max_tokens = 300
    }`,
		`[for r in step.open_ai : { content = r.body.choices[0].message.content }]`)
	wantDiags(t, diags)

	// v1.6's options; Simplify Output off gives the whole response.
	v16 := `{"name": "Image Analysis", "type": "@n8n/n8n-nodes-langchain.openAi", "parameters": {"modelId": {"__rl": true, "mode": "list", "value": "gpt-4o-mini", "cachedResultName": "GPT-4O-MINI"}, "options": {"detail": "low", "maxTokens": 500}, "simplify": false, "resource": "image", "imageUrls": "={{ $json.output['image urls'] }}", "operation": "analyze"}, "credentials": {"openAiApi": {"id": "ysxujEYFiY5ozRTS", "name": "AlexK OpenAi Key"}}, "typeVersion": 1.6}`
	flow, _ = importAI(t, aiWorkflow(t, `{output: {"image urls": "https://example.com/a.png"}}`, []string{"Image Analysis"}, []string{v16}, nil))
	wantIn(t, flow, `text = "What's in this image?"`, `detail = "low"`, `max_tokens = 500`, `[for r in step.image_analysis : r.body]`)
}

// Generate an Image with Return Image URLs, from
// enescingoz+awesome-n8n-templates/OpenAI_and_LLMs__Transform_Image_to_Lego_Style_Using_Line_and_Dall-E.json
// and oxbshw+ultimate-n8n-ai-workflows/automation__1709_Linkedin_Wordpress_Automation_Webhook.json
// (its size): the images request n8n sends; each item is an entry of
// the response's data. Images as files whose json may be read are an
// error, as are transcriptions, files and assistants.
func TestAIOpenAIGenerateImage(t *testing.T) {
	node := `{"name": "Image Instagram", "type": "@n8n/n8n-nodes-langchain.openAi", "parameters": {"prompt": "={{ $json.output.instagram }}", "options": {"size": "1024x1024", "returnImageUrls": true}, "resource": "image"}, "credentials": {"openAiApi": {"id": "CDX6QM4gLYanh0P4", "name": "OpenAi account"}}, "typeVersion": 1.8}`
	flow, diags := importAI(t, aiWorkflow(t, `{output: {instagram: "A red bicycle"}}`, []string{"Image Instagram"}, []string{node}, nil))
	if flow == "" {
		t.Fatalf("nothing written: %v", diags)
	}
	wantIn(t, flow,
		`url      = "https://api.openai.com/v1/images/generations"`,
		`body = {
      prompt          = each.value.output.instagram
      model           = "dall-e-3"
      response_format = "url"
      size            = "1024x1024"
    }`,
		`flatten([for r in step.image_instagram : r.body.data])`)
	wantDiags(t, diags)

	for _, c := range []struct{ params, why string }{
		{`{"prompt": "={{ $json.content }}", "options": {}, "resource": "image"}`, "the id of its binary data store"},
		{`{"options": {}, "resource": "audio", "operation": "transcribe"}`, "multipart form"},
		{`{"options": {"purpose": "assistants"}, "resource": "file", "binaryPropertyName": "data.pdf"}`, "binary file"},
		{`{"text": "={{ $json.chatInput }}", "prompt": "define", "options": {}, "resource": "assistant", "assistantId": {"__rl": true, "mode": "id", "value": "asst_HDSAnzsp4WqY4UC1iI9auH5z"}}`, "Assistants API"},
	} {
		n := strings.Replace(node, node[strings.Index(node, `"parameters": `)+len(`"parameters": `):strings.Index(node, `, "credentials"`)], c.params, 1)
		_, diags := importAI(t, aiWorkflow(t, `{}`, []string{"Image Instagram"}, []string{n}, nil))
		wantErr(t, diags, "error /nodes/2/parameters Unsupported operation")
		res, d := importDetail(t, aiWorkflow(t, `{}`, []string{"Image Instagram"}, []string{n}, nil))
		if res || !strings.Contains(d, c.why) {
			t.Errorf("%s: the error does not say %q: %s", c.params, c.why, d)
		}
	}
}

// importDetail imports a workflow; it reports whether a flow is written,
// and the details of the errors.
func importDetail(t *testing.T, src []byte) (bool, string) {
	t.Helper()
	res, diags := importer.Import([]importer.File{{Name: "wf.json", Bytes: src}}, importer.Options{})
	var details []string
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			details = append(details, d.Detail)
		}
	}
	return res != nil, strings.Join(details, "\n")
}

// A text of several lines ending with a newline is a heredoc, which
// stands inside the request's body in parentheses: the Analyze Image of
// enescingoz+awesome-n8n-templates/Discord__Send_daily_translated_Calvin_and_Hobbes_Comics_to_Discord.json
// once made HCL that did not parse.
func TestAIOpenAIAnalyzeImageHeredoc(t *testing.T) {
	node := `{"name": "OpenAI", "type": "@n8n/n8n-nodes-langchain.openAi", "parameters": {"text": "Please write the original language and Korean together. \n\nEXAMPLE)\nCalvin: \"YOU'VE NEVER HAD AN OBLIGATION!\" (\ub108\ub294 \ud3c9\uc0dd!)\nHobbes: \"WIPE THAT INSOLENT SMIRK OFF YOUR FACE!\"\n", "modelId": {"__rl": true, "mode": "list", "value": "gpt-4o-mini", "cachedResultName": "GPT-4O-MINI"}, "options": {}, "resource": "image", "imageUrls": "={{ $json.output.cartoon_image }}", "operation": "analyze"}, "credentials": {"openAiApi": {"id": "kYIZ8ZwQHS2d4GiD", "name": "(datapopcorn )OpenAi account"}}, "typeVersion": 1.6}`
	flow, diags := importAI(t, aiWorkflow(t, `{output: {cartoon_image: "https://example.com/c.png"}}`, []string{"OpenAI"}, []string{node}, nil))
	if flow == "" {
		t.Fatalf("nothing written: %v", diags)
	}
	wantIn(t, flow, `text = (<<EOT
Please write the original language and Korean together.`, `EOT
        ) }], [for u in split(",", each.value.output.cartoon_image)`)
}

// A Basic LLM Chain's image message of the item's binary data is an
// error that says so, at its message type: from
// enescingoz+awesome-n8n-templates/OpenAI_and_LLMs__Easy_Image_Captioning_with_Gemini_1.5_Pro.json.
func TestAIChainBinaryImageMessage(t *testing.T) {
	chain := `{"name": "Image Captioning Agent", "type": "@n8n/n8n-nodes-langchain.chainLlm", "parameters": {"text": "Generate a caption for this image.", "messages": {"messageValues": [{"message": "=You role is to provide an appropriate image caption for user provided images."}, {"type": "HumanMessagePromptTemplate", "messageType": "imageBinary"}]}, "promptType": "define", "hasOutputParser": true}, "typeVersion": 1.4}`
	model := `{"name": "Google Gemini Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatGoogleGemini", "parameters": {"options": {}, "modelName": "models/gemini-1.5-flash"}, "credentials": {"googlePalmApi": {"id": "dSxo6ns5wn658r8N", "name": "Google Gemini(PaLM) Api account"}}, "typeVersion": 1}`
	src := aiWorkflow(t, `{}`, []string{"Image Captioning Agent"}, []string{chain, model}, map[string]string{"Google Gemini Chat Model": "ai_languageModel>Image Captioning Agent"})
	_, diags := importAI(t, src)
	wantErr(t, diags, "error /nodes/2/parameters/messages/messageValues/1/messageType Unsupported message")
	if _, d := importDetail(t, src); !strings.Contains(d, "an image of the item's binary data, which the flow's items do not carry") {
		t.Errorf("the error does not say why: %s", d)
	}
}
