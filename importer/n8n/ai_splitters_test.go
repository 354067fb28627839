package n8n_test

import (
	"strings"
	"testing"
)

// A vector store's documents split by n8n's Recursive Character Text
// Splitter: a step of the flow's text_splitter block (langchain's code,
// TestSplitterJSAsLangchain), its sizes in characters as n8n's; the
// loader without a splitter (simple mode) as langchain's 1000/200 with
// separators kept; a Character Text Splitter its separator. From
// enescingoz+awesome-n8n-templates/AI_Research_RAG_and_Data_Analysis__Customer_Insights_with_Qdrant_Python_and_Information_Extractor.json
// (its loader's metadata cut to one).
func TestAICharacterSplitters(t *testing.T) {
	insert := `{"parameters": {"mode": "insert", "options": {}, "qdrantCollection": {"__rl": true, "mode": "id", "value": "=trustpilot_reviews"}}, "name": "Qdrant Vector Store", "type": "@n8n/n8n-nodes-langchain.vectorStoreQdrant", "typeVersion": 1, "credentials": {"qdrantApi": {"id": "NyinAS3Pgfik66w5", "name": "QdrantApi account"}}}`
	emb := `{"parameters": {"model": "text-embedding-3-small", "options": {}}, "name": "Embeddings OpenAI", "type": "@n8n/n8n-nodes-langchain.embeddingsOpenAi", "typeVersion": 1, "credentials": {"openAiApi": {"id": "8gccIjcuf3gvaoEr", "name": "OpenAi account"}}}`
	loader := `{"parameters": {"options": {"metadata": {"metadataValues": [{"name": "review_author", "value": "={{ $json.review_author }}"}]}}, "jsonData": "={{ $json.review_title }}\n{{ $json.review_text }}", "jsonMode": "expressionData"}, "name": "Default Data Loader", "type": "@n8n/n8n-nodes-langchain.documentDefaultDataLoader", "typeVersion": 1}`
	splitter := `{"parameters": {"options": {}, "chunkSize": 4000}, "name": "Recursive Character Text Splitter", "type": "@n8n/n8n-nodes-langchain.textSplitterRecursiveCharacterTextSplitter", "typeVersion": 1}`
	item := `{review_author: "Ann", review_title: "Great", review_text: "Quick delivery."}`
	subs := map[string]string{"Embeddings OpenAI": "ai_embedding>Qdrant Vector Store", "Default Data Loader": "ai_document>Qdrant Vector Store",
		"Recursive Character Text Splitter": "ai_textSplitter>Default Data Loader"}
	flow, diags := importAI(t, aiWorkflow(t, item, []string{"Qdrant Vector Store"}, []string{insert, emb, loader, splitter}, subs))
	wantIn(t, flow,
		`block "text_splitter" { runtime = "js"`,
		`output "chunks" { type = list(object({ text = string })) }`,
		`function recursiveSplit(text, separators, keepSeparator, chunkSize, chunkOverlap) {`,
		"splits = text.split(new RegExp(`(?=$${escaped})`));",
		`use = "text_splitter" for_each = step.item.items text = tostring("${coalesce(try(each.value.review_title, null), "")}\n${coalesce(try(each.value.review_text, null), "")}")`,
		`chunk_size = 4000 chunk_overlap = 0 separators = ["\n\n", "\n", " ", ""] keep_separator = false recursive = true`,
		`texts = [for c in each.value.chunks : c.text]`,
	)
	wantDiags(t, diags,
		"warning /nodes/2/parameters/qdrantCollection Vector store kept by flowctl",
		"warning /nodes/2 Document metadata")

	// The loader v1.1 without a splitter: langchain's defaults.
	simple := `{"parameters": {"jsonData": "={{ $json.review_text }}", "jsonMode": "expressionData", "options": {}}, "name": "Default Data Loader", "type": "@n8n/n8n-nodes-langchain.documentDefaultDataLoader", "typeVersion": 1.1}`
	flow, _ = importAI(t, aiWorkflow(t, item, []string{"Qdrant Vector Store"}, []string{insert, emb, simple}, map[string]string{
		"Embeddings OpenAI": "ai_embedding>Qdrant Vector Store", "Default Data Loader": "ai_document>Qdrant Vector Store"}))
	wantIn(t, flow, `chunk_size = 1000 chunk_overlap = 200 separators = ["\n\n", "\n", " ", ""] keep_separator = true recursive = true`)

	// The Character Text Splitter: its separator.
	char := `{"parameters": {"separator": "\n", "chunkSize": 600, "chunkOverlap": 50}, "name": "Recursive Character Text Splitter", "type": "@n8n/n8n-nodes-langchain.textSplitterCharacterTextSplitter", "typeVersion": 1}`
	flow, _ = importAI(t, aiWorkflow(t, item, []string{"Qdrant Vector Store"}, []string{insert, emb, loader, char}, subs))
	wantIn(t, flow, `chunk_size = 600 chunk_overlap = 50 separators = ["\n"] keep_separator = false recursive = false`)

	// Split Code cuts at a language's separators: not converted.
	code := `{"parameters": {"options": {"splitCode": "markdown"}, "chunkSize": 4000}, "name": "Recursive Character Text Splitter", "type": "@n8n/n8n-nodes-langchain.textSplitterRecursiveCharacterTextSplitter", "typeVersion": 1}`
	_, diags = importAI(t, aiWorkflow(t, item, []string{"Qdrant Vector Store"}, []string{insert, emb, loader, code}, subs))
	wantDiags(t, diags,
		"warning /nodes/2/parameters/qdrantCollection Vector store kept by flowctl",
		"error /nodes/5/parameters/options/splitCode Unsupported option",
		"error /nodes/3 Sub-node not converted", "error /nodes/4 Sub-node not converted")
}

// Get Many pairs each document found with the item searched for, as n8n
// does (loadOperation.js), so that a node after it reads that item with
// $('Node').item; Rerank Results, which the flow's vector_search does not
// do, is an error. From
// pinecone-io+n8n-templates/document-chat-database__chat-with-google-drive-using-pinecone-vector-database.json
// (its store's Rerank Results and Top K) and TestAIVectorStores's store.
func TestAIVectorSearchPairs(t *testing.T) {
	emb := `{"parameters": {"model": "text-embedding-3-small", "options": {}}, "name": "Embeddings OpenAI", "type": "@n8n/n8n-nodes-langchain.embeddingsOpenAi", "typeVersion": 1, "credentials": {"openAiApi": {"id": "deYJUwkgL1Euu613", "name": "OpenAi account 2"}}}`
	load := `{"parameters": {"mode": "load", "prompt": "={{ $json.q }}", "topK": 2, "qdrantCollection": {"__rl": true, "mode": "id", "value": "imdb"}}, "name": "Search", "type": "@n8n/n8n-nodes-langchain.vectorStoreQdrant", "typeVersion": 1}`
	use := `{"parameters": {"assignments": {"assignments": [{"id": "a1", "name": "question", "value": "={{ $('Item').item.json.q }}", "type": "string"}, {"id": "a2", "name": "found", "value": "={{ $json.document.pageContent }}", "type": "string"}]}, "options": {}}, "name": "Use", "type": "n8n-nodes-base.set", "typeVersion": 3.4}`
	flow, diags := importAI(t, aiWorkflow(t, `{q: "heist"}`, []string{"Search"}, []string{load, emb, use},
		map[string]string{"Embeddings OpenAI": "ai_embedding>Search", "Search": "main>Use"}))
	wantIn(t, flow, `flatten([for i, r in step.search : [for m in r.matches : i]])`)
	for _, d := range diags {
		if strings.HasPrefix(d, "error") {
			t.Errorf("error: %s", d)
		}
	}

	rerank := strings.Replace(load, `"topK": 2,`, `"topK": 20, "useReranker": true,`, 1)
	_, diags = importAI(t, aiWorkflow(t, `{q: "heist"}`, []string{"Search"}, []string{rerank, emb},
		map[string]string{"Embeddings OpenAI": "ai_embedding>Search"}))
	wantErr(t, diags, "error /nodes/2/parameters/useReranker Unsupported option")
}
