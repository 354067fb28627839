package thinker

import (
	"path/filepath"
	"testing"

	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/runtime/state"
)

// TestStatePatternsAndEmbeddings: the patterns recorded in the state are
// what think takes, with their blocks by name; embeddings are used when
// an embeddings model is named, their vectors cached in the state.
func TestStatePatternsAndEmbeddings(t *testing.T) {
	st, err := state.Open(filepath.Join(t.TempDir(), ".flowctl"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.RecordPattern(&state.Pattern{Name: "digest", Intent: "a daily digest", Flow: "digest", FlowFile: "digest.flow.hcl",
		Source: `flow "digest" {}`, Blocks: []state.PatternBlock{{Name: "http"}, {Name: "llm"}}}); err != nil {
		t.Fatal(err)
	}
	ps := StatePatterns(st)
	if len(ps) != 1 || ps[0].Name != "digest" || ps[0].Intent != "a daily digest" || len(ps[0].Blocks) != 2 || ps[0].Blocks[1] != "llm" {
		t.Fatalf("patterns: %+v", ps)
	}

	var o Options
	o.UseEmbeddings(llm.Config{}, st)
	if o.Embedder != nil || o.VectorCache != nil {
		t.Error("embeddings without a model")
	}
	o.UseEmbeddings(llm.Config{EmbeddingsModel: "e1", BaseURL: "http://127.0.0.1:1/v1"}, st)
	if o.Embedder == nil || o.EmbeddingsModel != "e1" || o.VectorCache == nil {
		t.Errorf("embeddings with a model: %+v", o)
	}
}
