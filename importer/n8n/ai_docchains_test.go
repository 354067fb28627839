package n8n_test

import (
	"strings"
	"testing"
)

// The Retrieval QA chain, from
// enescingoz+awesome-n8n-templates/Telegram__Telegram_chat_with_PDF.json:
// a vector_search step for each item's question (its retriever's store,
// kept by flowctl), and an llm step with n8n's system prompt holding the
// documents found, joined by blank lines, and the question as the user
// message; each item is {response}.
func TestAIRetrievalQA(t *testing.T) {
	chain := `{"name": "Question and Answer Chain", "type": "@n8n/n8n-nodes-langchain.chainRetrievalQa", "parameters": {"text": "={{ $json.message.text }}\nSearch the database with the retriever for information for the answer", "promptType": "define"}, "typeVersion": 1.3}`
	nodes := []string{chain,
		`{"name": "Vector Store Retriever", "type": "@n8n/n8n-nodes-langchain.retrieverVectorStore", "parameters": {}, "typeVersion": 1}`,
		`{"name": "Pinecone Vector Store1", "type": "@n8n/n8n-nodes-langchain.vectorStorePinecone", "parameters": {"options": {}, "pineconeIndex": {"__rl": true, "mode": "list", "value": "telegram", "cachedResultName": "telegram"}}, "credentials": {"pineconeApi": {"id": "", "name": ""}}, "typeVersion": 1}`,
		`{"name": "Groq Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatGroq", "parameters": {"model": "llama-3.1-70b-versatile", "options": {}}, "credentials": {"groqApi": {"id": "", "name": ""}}, "typeVersion": 1}`,
		`{"name": "Embeddings", "type": "@n8n/n8n-nodes-langchain.embeddingsOpenAi", "parameters": {"options": {}}, "credentials": {"openAiApi": {"id": "", "name": ""}}, "typeVersion": 1}`,
	}
	subs := map[string]string{
		"Vector Store Retriever": "ai_retriever>Question and Answer Chain",
		"Pinecone Vector Store1": "ai_vectorStore>Vector Store Retriever",
		"Groq Chat Model":        "ai_languageModel>Question and Answer Chain",
		"Embeddings":             "ai_embedding>Pinecone Vector Store1",
	}
	flow, diags := importAI(t, aiWorkflow(t, `{message: {text: "What is in the PDF?"}}`, []string{"Question and Answer Chain"}, nodes, subs))
	if flow == "" {
		t.Fatalf("nothing written: %v", diags)
	}
	wantIn(t, flow,
		`step "question_and_answer_chain_documents" {
    use        = "vector_search"
    for_each   = step.item.items
    collection = collection.telegram`,
		`model      = "text-embedding-ada-002"`,
		`top_k = 4`,
		`step "question_and_answer_chain" {
    use      = "llm"
    for_each = step.item.items
    provider = provider.lm_chat_groq`,
		`system   = "You are an assistant for question-answering tasks. Use the following pieces of retrieved context to answer the question.\nIf you don't know the answer, just say that you don't know, don't try to make up an answer.\n----------------\nContext: ${join("\n\n", step.question_and_answer_chain_documents[each.key].texts)}"`,
		`prompt = try(chomp(<<EOT
${coalesce(try(each.value.message.text, null), "")}
Search the database with the retriever for information for the answer
EOT
  ), null)`,
		`[for r in step.question_and_answer_chain : { response = { text = r.text } }]`,
	)
	// From v1.5 the item is {response: the answer}.
	flow, _ = importAI(t, aiWorkflow(t, `{chatInput: "Hi"}`, []string{"Question and Answer Chain"},
		append([]string{strings.Replace(chain, `"typeVersion": 1.3`, `"typeVersion": 1.5`, 1)}, nodes[1:]...), subs))
	wantIn(t, flow, `[for r in step.question_and_answer_chain : { response = r.text }]`)

	// A Pinecone namespace, which a search sees alone, is a collection of
	// its own: the store of enescingoz+awesome-n8n-templates/OpenAI_and_LLMs__Advanced_AI_Demo_Presented_at_AI_Developers_14_meetup_.json.
	ns := `{"name": "Pinecone Vector Store1", "type": "@n8n/n8n-nodes-langchain.vectorStorePinecone", "parameters": {"options": {"pineconeNamespace": "whitepaper"}, "pineconeIndex": {"__rl": true, "mode": "list", "value": "whitepapers", "cachedResultName": "whitepapers"}}, "typeVersion": 1}`
	flow, _ = importAI(t, aiWorkflow(t, `{message: {text: "Hi"}}`, []string{"Question and Answer Chain"}, []string{nodes[0], nodes[1], ns, nodes[3], nodes[4]}, subs))
	wantIn(t, flow, `collection "whitepapers_whitepaper" {
    dimensions  = 1536
    description = "The vectors n8n keeps in Pinecone \"whitepapers\", namespace \"whitepaper\""`, `collection = collection.whitepapers_whitepaper`)

	// A filter of the store, a template that is not langchain's and a
	// retriever of another kind are errors at their JSON paths.
	filter := strings.Replace(nodes[2], `"options": {}`, `"options": {"metadata": {"metadataValues": [{"name": "source", "value": "a.pdf"}]}}`, 1)
	_, diags = importAI(t, aiWorkflow(t, `{}`, []string{"Question and Answer Chain"}, []string{nodes[0], nodes[1], filter, nodes[3], nodes[4]}, subs))
	wantErr(t, diags, "error /nodes/4/parameters/options/metadata Unsupported option")
	bad := strings.Replace(chain, `"promptType": "define"`, `"promptType": "define", "options": {"systemPromptTemplate": "Context: {context} {lang}"}`, 1)
	_, diags = importAI(t, aiWorkflow(t, `{}`, []string{"Question and Answer Chain"}, append([]string{bad}, nodes[1:]...), subs))
	wantErr(t, diags, "error /nodes/2/parameters/options/systemPromptTemplate Unsupported template")
	wf := strings.Replace(nodes[1], "retrieverVectorStore", "retrieverWorkflow", 1)
	_, diags = importAI(t, aiWorkflow(t, `{}`, []string{"Question and Answer Chain"}, []string{nodes[0], wf, nodes[2], nodes[3], nodes[4]}, subs))
	wantErr(t, diags, "error /nodes/3/type Unsupported retriever")
}

// wantErr checks that diags hold an error line.
func wantErr(t *testing.T, diags []string, want string) {
	t.Helper()
	for _, d := range diags {
		if d == want {
			return
		}
	}
	t.Errorf("no %q in:\n%s", want, strings.Join(diags, "\n"))
}

// The Summarization Chain whose prompt does not read the documents, from
// oxbshw+ultimate-n8n-ai-workflows/workflows__1244_Telegram_GoogleSheets_Automate_Triggered.json
// (Map Reduce, the prompts expressions of the item): an llm step of the
// prompt for each item, failing on a prompt with a brace, which n8n
// reads as a template; each item is {response = {text}}. A prompt that
// reads {text}, from enescingoz+awesome-n8n-templates/Telegram__AI-Powered_Children_s_English_Storytelling_on_Telegram_with_OpenAI.json,
// and the default prompt over a loader's documents, from
// …/AI_Research_RAG_and_Data_Analysis__Scrape_and_summarize_webpages_with_AI.json,
// are errors: the flow does not make the documents n8n makes.
func TestAISummarization(t *testing.T) {
	chain := `{"name": "Summarization Chain", "type": "@n8n/n8n-nodes-langchain.chainSummarization", "parameters": {"options": {"summarizationMethodAndPrompts": {"values": {"prompt": "=Write a concise summary of the following:\n\n\n\"{{ $json.fullText }}\"\n\n\nCONCISE SUMMARY:", "combineMapPrompt": "=Write a concise summary of the following:\n\n\n\"{{ $json.fullText }}\"\n\n\nCONCISE SUMMARY:"}}}}, "typeVersion": 2}`
	model := `{"name": "OpenAI Chat Model1", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "parameters": {"model": {"__rl": true, "mode": "list", "value": "gpt-4o-mini"}, "options": {}}, "credentials": {"openAiApi": {"id": "4zwP0MSr8zkNvvV9", "name": "OpenAi account"}}, "typeVersion": 1.2}`
	subs := map[string]string{"OpenAI Chat Model1": "ai_languageModel>Summarization Chain"}
	flow, diags := importAI(t, aiWorkflow(t, `{fullText: "A long text."}`, []string{"Summarization Chain"}, []string{chain, model}, subs))
	if flow == "" {
		t.Fatalf("nothing written: %v", diags)
	}
	wantIn(t, flow,
		`step "summarization_chain" {
    use      = "llm"
    for_each = step.item.items
    provider = provider.open_ai_account
    model    = "gpt-4o-mini"`,
		`prompt = can(regex("[{}]", chomp(<<EOT
Write a concise summary of the following:


"${coalesce(try(each.value.fullText, null), "")}"


CONCISE SUMMARY:
EOT
    ))) ? null : chomp(<<EOT`,
		`[for r in step.summarization_chain : { response = { text = r.text } }]`)
	wantDiags(t, diags,
		"warning /nodes/2/parameters/options/summarizationMethodAndPrompts/values/prompt Prompt read as a template",
		"warning /nodes/2/parameters/options/summarizationMethodAndPrompts/values Map step left out")

	// Stuff with a written prompt: the prompt as langchain formats it
	// ({{ }} braces); v2.1 gives {output = {text}}.
	stuff := `{"name": "Summarization Chain", "type": "@n8n/n8n-nodes-langchain.chainSummarization", "parameters": {"options": {"summarizationMethodAndPrompts": {"values": {"prompt": "Write a story for kids as JSON: {{\"title\": ...}}", "summarizationMethod": "stuff"}}}, "chunkingMode": "advanced"}, "typeVersion": 2.1}`
	flow, diags = importAI(t, aiWorkflow(t, `{}`, []string{"Summarization Chain"}, []string{stuff, model}, subs))
	wantIn(t, flow, `prompt = "Write a story for kids as JSON: {\"title\": ...}"`, `[for r in step.summarization_chain : { output = { text = r.text } }]`)
	wantDiags(t, diags)

	story := `{"name": "Summarization Chain", "type": "@n8n/n8n-nodes-langchain.chainSummarization", "parameters": {"options": {"summarizationMethodAndPrompts": {"values": {"prompt": "Summarize the characters in this story based on their appearance and describe them if they are humans or animals and how they look like and what kind of are they, the prompt should be no-text in the picture, make sure the text is free from any prohibited or inappropriate content:\n\n\n\n\"{text}\"\n\n\nCONCISE SUMMARY:", "summarizationMethod": "stuff"}}}}, "typeVersion": 2}`
	_, diags = importAI(t, aiWorkflow(t, `{}`, []string{"Summarization Chain"}, []string{story, model}, subs))
	wantErr(t, diags, "error /nodes/2/parameters/options/summarizationMethodAndPrompts/values Unsupported documents")
	loader := `{"name": "Default Data Loader", "type": "@n8n/n8n-nodes-langchain.documentDefaultDataLoader", "parameters": {"options": {}}, "typeVersion": 1}`
	scrape := `{"name": "Summarization Chain", "type": "@n8n/n8n-nodes-langchain.chainSummarization", "parameters": {"options": {}, "operationMode": "documentLoader"}, "typeVersion": 2}`
	_, diags = importAI(t, aiWorkflow(t, `{}`, []string{"Summarization Chain"}, []string{scrape, model, loader},
		map[string]string{"OpenAI Chat Model1": "ai_languageModel>Summarization Chain", "Default Data Loader": "ai_document>Summarization Chain"}))
	wantErr(t, diags, "error /nodes/2/parameters Unsupported documents")
	refine := `{"name": "Summarization Chain", "type": "@n8n/n8n-nodes-langchain.chainSummarization", "parameters": {"type": "refine"}, "typeVersion": 1}`
	_, diags = importAI(t, aiWorkflow(t, `{}`, []string{"Summarization Chain"}, []string{refine, model}, subs))
	wantErr(t, diags, "error /nodes/2/parameters Unsupported summarization method")
}

// A store's collection written as an expression without {{ }} is its
// text, as n8n evaluates it: "=COLLECTION" of
// enescingoz+awesome-n8n-templates/OpenAI_and_LLMs__AI_Voice_Chatbot_with_ElevenLabs_OpenAI_for_Customer_Service_and_Restaurants.json
// names collection COLLECTION; one with {{ }} stays an error.
func TestAIStoreLiteralExpression(t *testing.T) {
	chain := `{"name": "QA", "type": "@n8n/n8n-nodes-langchain.chainRetrievalQa", "parameters": {"text": "={{ $json.q }}", "promptType": "define"}, "typeVersion": 1.5}`
	store := `{"name": "Qdrant Vector Store", "type": "@n8n/n8n-nodes-langchain.vectorStoreQdrant", "parameters": {"options": {}, "qdrantCollection": {"__rl": true, "mode": "id", "value": "=COLLECTION"}}, "credentials": {"qdrantApi": {"id": "", "name": ""}}, "typeVersion": 1}`
	rest := []string{
		`{"name": "Retriever", "type": "@n8n/n8n-nodes-langchain.retrieverVectorStore", "parameters": {"topK": 2}, "typeVersion": 1}`,
		`{"name": "Model", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "parameters": {"options": {}}, "typeVersion": 1}`,
		`{"name": "Embeddings", "type": "@n8n/n8n-nodes-langchain.embeddingsOpenAi", "parameters": {"model": "=text-embedding-3-small", "options": {}}, "typeVersion": 1}`,
	}
	subs := map[string]string{"Retriever": "ai_retriever>QA", "Qdrant Vector Store": "ai_vectorStore>Retriever", "Model": "ai_languageModel>QA", "Embeddings": "ai_embedding>Qdrant Vector Store"}
	flow, diags := importAI(t, aiWorkflow(t, `{q: "Opening hours?"}`, []string{"QA"}, append([]string{chain, store}, rest...), subs))
	if flow == "" {
		t.Fatalf("nothing written: %v", diags)
	}
	wantIn(t, flow, `collection "collection" {
    dimensions  = 1536
    description = "The vectors n8n keeps in Qdrant \"COLLECTION\""`, `collection = collection.collection`, `model      = "text-embedding-3-small"`, `top_k = 2`)
	expr := strings.Replace(store, `=COLLECTION`, `={{ $json.collection }}`, 1)
	_, diags = importAI(t, aiWorkflow(t, `{}`, []string{"QA"}, append([]string{chain, expr}, rest...), subs))
	wantErr(t, diags, "error /nodes/3/parameters/qdrantCollection Unsupported expression")
}

// A question of several lines ending with a newline (a heredoc, which
// closes its line) stands in parentheses in the prompt's try and in a
// system prompt template that reads {input}: the generated HCL parses.
func TestAIRetrievalQAHeredocQuestion(t *testing.T) {
	chain := `{"name": "QA", "type": "@n8n/n8n-nodes-langchain.chainRetrievalQa", "parameters": {"text": "=Question:\n{{ $json.q }}\n", "promptType": "define", "options": {"systemPromptTemplate": "Answer {input} from:\n{context}"}}, "typeVersion": 1.5}`
	rest := []string{
		`{"name": "Retriever", "type": "@n8n/n8n-nodes-langchain.retrieverVectorStore", "parameters": {}, "typeVersion": 1}`,
		`{"name": "Store", "type": "@n8n/n8n-nodes-langchain.vectorStoreInMemory", "parameters": {}, "typeVersion": 1}`,
		`{"name": "Model", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "parameters": {"options": {}}, "typeVersion": 1}`,
		`{"name": "Embeddings", "type": "@n8n/n8n-nodes-langchain.embeddingsOpenAi", "parameters": {"options": {}}, "typeVersion": 1}`,
	}
	subs := map[string]string{"Retriever": "ai_retriever>QA", "Store": "ai_vectorStore>Retriever", "Model": "ai_languageModel>QA", "Embeddings": "ai_embedding>Store"}
	flow, diags := importAI(t, aiWorkflow(t, `{q: "Hours?"}`, []string{"QA"}, append([]string{chain}, rest...), subs))
	if flow == "" {
		t.Fatalf("nothing written: %v", diags)
	}
	wantIn(t, flow, `collection = collection.vector_store_key`, `system = "Answer ${try((<<EOT
Question:
${coalesce(try(each.value.q, null), "")}
EOT
  ), null)} from:\n${join("\n\n", step.qa_documents[each.key].texts)}"`, `prompt = try((<<EOT
Question:
${coalesce(try(each.value.q, null), "")}
EOT
  ), null)`)
}

// A Default Data Loader of binary files, or of all the item's strings,
// is an error that says why, at the loader: from
// enescingoz+awesome-n8n-templates/OpenAI_and_LLMs__AI_Voice_Chatbot_with_ElevenLabs_OpenAI_for_Customer_Service_and_Restaurants.json
// (binary, into "=COLLECTION", which converts).
func TestAIVectorInsertLoaderWhy(t *testing.T) {
	store := `{"name": "Qdrant Vector Store1", "type": "@n8n/n8n-nodes-langchain.vectorStoreQdrant", "parameters": {"mode": "insert", "options": {}, "qdrantCollection": {"__rl": true, "mode": "id", "value": "=COLLECTION"}}, "credentials": {"qdrantApi": {"id": "iyQ6MQiVaF3VMBmt", "name": "QdrantApi account"}}, "typeVersion": 1}`
	rest := []string{
		`{"name": "Embeddings OpenAI", "type": "@n8n/n8n-nodes-langchain.embeddingsOpenAi", "parameters": {"options": {}}, "credentials": {"openAiApi": {"id": "CDX6QM4gLYanh0P4", "name": "OpenAi account"}}, "typeVersion": 1.1}`,
		`{"name": "Token Splitter", "type": "@n8n/n8n-nodes-langchain.textSplitterTokenSplitter", "parameters": {"chunkSize": 300, "chunkOverlap": 30}, "typeVersion": 1}`,
	}
	subs := map[string]string{"Embeddings OpenAI": "ai_embedding>Qdrant Vector Store1", "Default Data Loader": "ai_document>Qdrant Vector Store1", "Token Splitter": "ai_textSplitter>Default Data Loader"}
	for _, c := range []struct{ loader, why string }{
		{`{"options": {}, "dataType": "binary"}`, "n8n loads the item's binary file"},
		{`{"options": {}}`, "every string of the item's JSON as langchain's JSONLoader walks it"},
	} {
		loader := `{"name": "Default Data Loader", "type": "@n8n/n8n-nodes-langchain.documentDefaultDataLoader", "parameters": ` + c.loader + `, "typeVersion": 1}`
		src := aiWorkflow(t, `{text: "x"}`, []string{"Qdrant Vector Store1"}, append([]string{store, loader}, rest...), subs)
		_, diags := importAI(t, src)
		wantErr(t, diags, "error /nodes/3/parameters Unsupported document loader")
		if _, d := importDetail(t, src); !strings.Contains(d, c.why) {
			t.Errorf("%s: the error does not say %q: %s", c.loader, c.why, d)
		}
	}
}

// A text splitter whose overlap is not under its chunk size is an error,
// as langchain's TextSplitter fails on it in n8n, both under a
// Summarization Chain (the storytelling workflows' Recursive Character
// Text Splitter, enescingoz+awesome-n8n-templates/Telegram__AI-Powered_Children_s_Arabic_Storytelling_on_Telegram.json,
// its overlap raised) and under a Default Data Loader (its Token
// Splitter was clamped to chunk size − 1 before).
func TestAIInvalidSplitter(t *testing.T) {
	model := `{"name": "OpenAI Chat Model", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "parameters": {"model": "gpt-4-turbo", "options": {}}, "typeVersion": 1}`
	chain := `{"name": "Create a Story for Kids", "type": "@n8n/n8n-nodes-langchain.chainSummarization", "parameters": {"options": {"summarizationMethodAndPrompts": {"values": {"prompt": "Create a captivating short tale for kids.", "summarizationMethod": "stuff"}}}, "chunkingMode": "advanced"}, "typeVersion": 2}`
	ok := `{"name": "Recursive Character Text Splitter", "type": "@n8n/n8n-nodes-langchain.textSplitterRecursiveCharacterTextSplitter", "parameters": {"options": {}, "chunkSize": 500, "chunkOverlap": 300}, "typeVersion": 1}`
	subs := map[string]string{"OpenAI Chat Model": "ai_languageModel>Create a Story for Kids", "Recursive Character Text Splitter": "ai_textSplitter>Create a Story for Kids"}
	flow, diags := importAI(t, aiWorkflow(t, `{}`, []string{"Create a Story for Kids"}, []string{chain, model, ok}, subs))
	if flow == "" {
		t.Fatalf("nothing written: %v", diags)
	}
	bad := strings.Replace(ok, `"chunkOverlap": 300`, `"chunkOverlap": 500`, 1)
	_, diags = importAI(t, aiWorkflow(t, `{}`, []string{"Create a Story for Kids"}, []string{chain, model, bad}, subs))
	wantErr(t, diags, "error /nodes/4/parameters Invalid text splitter")

	store := `{"name": "Qdrant Vector Store1", "type": "@n8n/n8n-nodes-langchain.vectorStoreQdrant", "parameters": {"mode": "insert", "options": {}, "qdrantCollection": {"__rl": true, "mode": "id", "value": "=COLLECTION"}}, "typeVersion": 1}`
	loader := `{"name": "Default Data Loader", "type": "@n8n/n8n-nodes-langchain.documentDefaultDataLoader", "parameters": {"jsonMode": "expressionData", "jsonData": "={{ $json.text }}", "options": {}}, "typeVersion": 1}`
	emb := `{"name": "Embeddings OpenAI", "type": "@n8n/n8n-nodes-langchain.embeddingsOpenAi", "parameters": {"options": {}}, "typeVersion": 1.1}`
	tokens := `{"name": "Token Splitter", "type": "@n8n/n8n-nodes-langchain.textSplitterTokenSplitter", "parameters": {"chunkSize": 300, "chunkOverlap": 300}, "typeVersion": 1}`
	vsubs := map[string]string{"Embeddings OpenAI": "ai_embedding>Qdrant Vector Store1", "Default Data Loader": "ai_document>Qdrant Vector Store1", "Token Splitter": "ai_textSplitter>Default Data Loader"}
	_, diags = importAI(t, aiWorkflow(t, `{text: "x"}`, []string{"Qdrant Vector Store1"}, []string{store, loader, emb, tokens}, vsubs))
	wantErr(t, diags, "error /nodes/5/parameters Invalid text splitter")
}

// OpenAI embeddings with a Base URL option call that server before v1.2:
// the provider's base_url, as n8n's node does; from v1.2 n8n hides the
// option and drops it, calling the credential's URL (OpenAI's). The
// embeddings node of the Retrieval QA case of
// enescingoz+awesome-n8n-templates/Telegram__Telegram_chat_with_PDF.json,
// with the option, v1.1 and v1.2.
func TestAIEmbeddingsBaseURL(t *testing.T) {
	chain := `{"name": "QA", "type": "@n8n/n8n-nodes-langchain.chainRetrievalQa", "parameters": {"text": "={{ $json.q }}", "promptType": "define"}, "typeVersion": 1.5}`
	rest := []string{
		`{"name": "Retriever", "type": "@n8n/n8n-nodes-langchain.retrieverVectorStore", "parameters": {}, "typeVersion": 1}`,
		`{"name": "Store", "type": "@n8n/n8n-nodes-langchain.vectorStoreInMemory", "parameters": {}, "typeVersion": 1}`,
		`{"name": "Model", "type": "@n8n/n8n-nodes-langchain.lmChatOpenAi", "parameters": {"model": "gpt-4o-mini", "options": {}}, "typeVersion": 1}`,
		`{"name": "Embeddings", "type": "@n8n/n8n-nodes-langchain.embeddingsOpenAi", "parameters": {"options": {"baseURL": "http://127.0.0.1:8080/v1/"}}, "credentials": {"openAiApi": {"id": "", "name": "Local embeddings"}}, "typeVersion": 1.2}`,
	}
	subs := map[string]string{"Retriever": "ai_retriever>QA", "Store": "ai_vectorStore>Retriever", "Model": "ai_languageModel>QA", "Embeddings": "ai_embedding>Store"}
	flow, diags := importAI(t, aiWorkflow(t, `{q: "Hours?"}`, []string{"QA"}, append([]string{chain}, rest...), subs))
	if flow == "" {
		t.Fatalf("nothing written: %v", diags)
	}
	wantIn(t, flow, `provider "local_embeddings" {
  base_url = "https://api.openai.com/v1"`)
	rest[3] = strings.Replace(rest[3], `"typeVersion": 1.2`, `"typeVersion": 1.1`, 1)
	flow, _ = importAI(t, aiWorkflow(t, `{q: "Hours?"}`, []string{"QA"}, append([]string{chain}, rest...), subs))
	wantIn(t, flow, `provider "local_embeddings" {
  base_url = "http://127.0.0.1:8080/v1"`)
}
