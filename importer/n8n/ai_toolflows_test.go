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
