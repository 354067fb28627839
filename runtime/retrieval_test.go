package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/blocks/retrieval"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
)

// embeddingsServer is an OpenAI-compatible /v1/embeddings on loopback
// answering deterministic vectors; it records every text it receives.
func embeddingsServer(t *testing.T) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		b, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/v1/embeddings" || json.Unmarshal(b, &req) != nil {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		got = append(got, req.Input...)
		mu.Unlock()
		var data []map[string]any
		for i, s := range req.Input {
			data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": []float32{float32(len(s)), float32(strings.Count(s, " ")), 1}})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": "m"})
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}

// TestRetrievalIngestSendsOnlyChanges: fileset → document → chunk →
// embed over three documents, all chunks in one embed step whose batches
// shift when a document changes. Run again with the state, the embed step
// sends nothing; after one document is edited it sends that document's
// changed chunks alone (its texts are looked up one by one in the state).
func TestRetrievalIngestSendsOnlyChanges(t *testing.T) {
	srv, sent := embeddingsServer(t)
	para := func(doc string, n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "## Part %d\n\nDocument %s, part %d, says something of its own.\n\n", i, doc, i)
		}
		return b.String()
	}
	prog := compileFiles(t, "ingest.flow.hcl", `
flow "ingest" {}

step "doc" {
  for_each = fileset(".", "notes/*.md")
  use      = "document"
  path     = each.value
}

step "chunks" {
  for_each   = step.doc
  use        = "chunk"
  text       = each.value.text
  max_tokens = 40
  overlap    = 0
}

step "embed" {
  use        = "embed"
  texts      = flatten([for k, c in step.chunks : [for x in c.chunks : x.text]])
  batch_size = 3
}

output "embedded" {
  value = step.embed.embedded
}
output "count" {
  value = length(step.embed.vectors)
}
`, nil)
	notes := filepath.Join(prog.Dir, "notes")
	if err := os.Mkdir(notes, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"a", "b", "c"} {
		if err := os.WriteFile(filepath.Join(notes, d+".md"), []byte(para(d, 4)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ex := llm.NewExecutor(llm.Config{BaseURL: srv.URL + "/v1", APIKey: "sk-test", EmbeddingsModel: "m"})
	executors := &blocks.Executors{Builtins: retrieval.With(blocks.BuiltinExecutors()), Runtimes: map[string]blocks.Executor{lang.RuntimeLLM: ex}}
	st := openStore(t)
	run := func() (embedded, count string, texts []string) {
		t.Helper()
		before := len(sent())
		res, err := Apply(context.Background(), prog, Options{Store: st, Executors: executors})
		if err != nil || res.Status != StatusOK {
			t.Fatalf("apply: %v %v %v", err, res.Status, res.Diagnostics)
		}
		st.Flush()
		return res.Outputs["embedded"].AsBigFloat().String(), res.Outputs["count"].AsBigFloat().String(), sent()[before:]
	}
	if e, c, texts := run(); e != "12" || c != "12" || len(texts) != 12 {
		t.Fatalf("first run: embedded %s of %s, the server received %d texts", e, c, len(texts))
	}
	if _, _, texts := run(); len(texts) != 0 {
		t.Errorf("an unchanged run sent %q", texts)
	}
	// Edit b's second part, and add a part at its start.
	b := strings.Replace(para("b", 4), "Document b, part 1, says something of its own.", "Document b, part 1, was rewritten.", 1)
	if err := os.WriteFile(filepath.Join(notes, "b.md"), []byte("## Preface\n\nA new first part of b.\n\n"+b), 0o644); err != nil {
		t.Fatal(err)
	}
	e, c, texts := run()
	if e != "2" || c != "13" || len(texts) != 2 {
		t.Fatalf("after editing b: embedded %s of %s, the server received %q", e, c, texts)
	}
	if texts[0] != "## Preface\n\nA new first part of b." || texts[1] != "## Part 1\n\nDocument b, part 1, was rewritten." {
		t.Errorf("after editing b the server received %q", texts)
	}
}

// TestEmbedNamesProvider: an embed step may name a provider, whose server
// it calls (the environment has none here); a chunk step may not.
func TestEmbedNamesProvider(t *testing.T) {
	srv, sent := embeddingsServer(t)
	prog := compile(t, `
flow "p" {}

provider "local" {
  base_url = "`+srv.URL+`/v1"
}

step "embed" {
  use      = "embed"
  provider = provider.local
  model    = "nomic-embed-text"
  text     = "hello there"
}

output "dims" {
  value = step.embed.dimensions
}

output "tokens" {
  value = step.embed.usage.prompt_tokens
}
`)
	executors := &blocks.Executors{Builtins: retrieval.With(blocks.BuiltinExecutors()), Runtimes: map[string]blocks.Executor{lang.RuntimeLLM: llm.NewExecutor(llm.Config{})}}
	res, err := Apply(context.Background(), prog, Options{Executors: executors})
	if err != nil || res.Status != StatusOK {
		t.Fatalf("apply: %v %v %v", err, res.Status, res.Diagnostics)
	}
	// The server reports no usage: the tokens are counted (cl100k_base).
	if res.Outputs["dims"].AsBigFloat().String() != "3" || fmt.Sprint(sent()) != "[hello there]" || res.Outputs["tokens"].AsBigFloat().String() != "2" {
		t.Errorf("dims %#v, tokens %#v, sent %q", res.Outputs["dims"], res.Outputs["tokens"], sent())
	}

	dir := t.TempDir()
	path := filepath.Join(dir, "bad.flow.hcl")
	src := "flow \"p\" {}\nprovider \"local\" {\n  base_url = \"http://127.0.0.1:1/v1\"\n}\nstep \"c\" {\n  use      = \"chunk\"\n  provider = provider.local\n  text     = \"x\"\n}\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := compiler.Compile(path, compiler.Options{})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "only steps that call a model (llm, embed, vector_search for its query) name a provider") {
		t.Errorf("a provider on a chunk step: %v", diags)
	}
}

// TestVectorSearchEmbedsQuery: a vector_search step that gives a query
// and no vector embeds the query through the step's provider and model
// (or the environment's), and searches with its vector; in hybrid mode
// the vector's ranking is fused with BM25's.
func TestVectorSearchEmbedsQuery(t *testing.T) {
	srv, sent := embeddingsServer(t)
	// The server's vector of a text is [characters, spaces, 1].
	prog := compile(t, `
flow "q" {}

provider "local" {
  base_url = "`+srv.URL+`/v1"
}

collection "notes" {
  dimensions = 3
  distance   = "euclidean"
}

step "index" {
  use        = "vector_upsert"
  collection = collection.notes
  items = [
    { id = "short", vector = [5, 0, 1], text = "short" },
    { id = "middle", vector = [20, 3, 1], text = "a text of four words" },
    { id = "long", vector = [60, 10, 1], text = "long" },
  ]
}

step "ask" {
  use        = "vector_search"
  collection = collection.notes
  provider   = provider.local
  model      = "nomic-embed-text"
  query      = "which note is the middle one"
  top_k      = 2
  depends_on = [step.index]
}

step "env" {
  use        = "vector_search"
  collection = collection.notes
  query      = "tiny"
  top_k      = 1
  depends_on = [step.index]
}

step "hybrid" {
  use        = "vector_search"
  collection = collection.notes
  provider   = provider.local
  model      = "nomic-embed-text"
  query      = "long"
  mode       = "hybrid"
  top_k      = 1
  depends_on = [step.index]
}

output "ask" {
  value = step.ask.ids
}
output "env" {
  value = step.env.ids
}
output "hybrid" {
  value = step.hybrid.ids
}
`)
	ex := llm.NewExecutor(llm.Config{BaseURL: srv.URL + "/v1", APIKey: "sk-test", EmbeddingsModel: "m"})
	executors := &blocks.Executors{Builtins: retrieval.With(blocks.BuiltinExecutors()), Runtimes: map[string]blocks.Executor{lang.RuntimeLLM: ex}}
	res, err := Apply(context.Background(), prog, Options{Store: openStore(t), Executors: executors})
	if err != nil || res.Status != StatusOK {
		t.Fatalf("apply: %v %v %v", err, res.Status, res.Diagnostics)
	}
	for name, want := range map[string]string{"ask": `["middle","short"]`, "env": `["short"]`, "hybrid": `["long"]`} {
		if got := outputJSON(t, res.Outputs[name]); got != want {
			t.Errorf("output %s = %s, want %s", name, got, want)
		}
	}
	got := sent()
	slices.Sort(got)
	if fmt.Sprint(got) != "[long tiny which note is the middle one]" {
		t.Errorf("the server received %q", got)
	}

	// Offline (a flow test without --live), embedding the query is
	// refused, and nothing reaches the server.
	before := len(sent())
	res, err = Apply(context.Background(), prog, Options{Store: openStore(t), Executors: executors, Offline: true})
	if err != nil || res.Status != StatusFailed || !strings.Contains(res.Diagnostics.Error(), "block vector_search embeds its query with a model, and the run is offline") || len(sent()) != before {
		t.Fatalf("offline: %v %v %v; the server received %q", err, res.Status, res.Diagnostics, sent()[before:])
	}

	// Without a model executor, a query alone is an error at the step,
	// saying to give a vector.
	bare := &blocks.Executors{Builtins: retrieval.With(blocks.BuiltinExecutors())}
	res, err = Apply(context.Background(), prog, Options{Store: openStore(t), Executors: bare})
	if err != nil || res.Status != StatusFailed || !strings.Contains(res.Diagnostics.Error(), "embeds its query with a model server") {
		t.Fatalf("without a model executor: %v %v %v", err, res.Status, res.Diagnostics)
	}
}

// TestPlanCountsEmbeddings: plan computes document and chunk steps, so it
// knows the texts an embed step would embed and counts those whose
// vectors the state holds; it sends nothing. Fresh, every text is new;
// after an apply, every one is cached; after one section of one document
// is edited, that section's chunk alone is new.
func TestPlanCountsEmbeddings(t *testing.T) {
	srv, sent := embeddingsServer(t)
	prog := compileFiles(t, "ingest.flow.hcl", `
flow "ingest" {}

step "doc" {
  for_each = { for f in fileset(".", "notes/*.md") : f => f }
  use      = "document"
  path     = each.value
}

step "chunks" {
  for_each   = step.doc
  use        = "chunk"
  text       = each.value.text
  max_tokens = 40
  overlap    = 0
}

step "embed" {
  for_each = step.chunks
  use      = "embed"
  texts    = [for c in each.value.chunks : c.text]
}
`, nil)
	notes := filepath.Join(prog.Dir, "notes")
	if err := os.Mkdir(notes, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(notes, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.md", "## One\n\nThe first part of a.\n\n## Two\n\nThe second part of a.\n")
	write("b.md", "## One\n\nThe first part of b.\n\n## Two\n\nThe second part of b.\n\n## Three\n\nThe third part of b.\n")
	ex := llm.NewExecutor(llm.Config{BaseURL: srv.URL + "/v1", APIKey: "sk-test", EmbeddingsModel: "m"})
	executors := &blocks.Executors{Builtins: retrieval.With(blocks.BuiltinExecutors()), Runtimes: map[string]blocks.Executor{lang.RuntimeLLM: ex}}
	st := openStore(t)
	plan := func() *compiler.PlannedStep {
		t.Helper()
		in, _ := prog.ResolveInputs(nil)
		p, diags := Plan(prog, Options{Store: st, Executors: executors, Inputs: in})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		return p.Steps[2]
	}
	if e := plan(); e.Instances != 2 || e.Embed == nil || *e.Embed != (compiler.PartCounts{Parts: 5, New: 5}) {
		t.Fatalf("fresh: embed has %d instances, counts %+v", e.Instances, e.Embed)
	}
	res, err := Apply(context.Background(), prog, Options{Store: st, Executors: executors})
	if err != nil || res.Status != StatusOK {
		t.Fatalf("apply: %v %v %v", err, res.Status, res.Diagnostics)
	}
	st.Flush()
	if n := len(sent()); n != 5 {
		t.Fatalf("the apply embedded %d texts", n)
	}
	if e := plan(); e.Action != compiler.ActionCached || e.Embed == nil || *e.Embed != (compiler.PartCounts{Parts: 5, Cached: 5}) {
		t.Errorf("after the apply: embed is %s, counts %+v", e.Action, e.Embed)
	}
	write("b.md", "## One\n\nThe first part of b.\n\n## Two\n\nThe second part of b, rewritten.\n\n## Three\n\nThe third part of b.\n")
	if e := plan(); e.ToRun != 1 || e.Cached != 1 || e.Embed == nil || *e.Embed != (compiler.PartCounts{Parts: 5, Cached: 4, New: 1}) {
		t.Errorf("after editing b: embed runs %d, cached %d, counts %+v", e.ToRun, e.Cached, e.Embed)
	}
	if n := len(sent()); n != 5 {
		t.Errorf("the server received %d texts, the apply's 5 and the plans'", n)
	}
}
