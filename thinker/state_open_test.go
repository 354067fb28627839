package thinker

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/index"
	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/runtime/state"
)

// TestSearchEmbeddings: without FLOWCTL_EMBEDDINGS_MODEL the search
// ranks by text, saying nothing; with it but no model server, it says
// why it ranks by text alone.
func TestSearchEmbeddings(t *testing.T) {
	env := map[string]string{}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	ix := index.New([]*blocks.Block{})
	var w bytes.Buffer
	SearchEmbeddings(context.Background(), &w, ix, lookup, t.TempDir())()
	if w.Len() != 0 {
		t.Errorf("without a model: %q", w.String())
	}
	env[llm.EnvEmbeddingsModel] = "small"
	SearchEmbeddings(context.Background(), &w, ix, lookup, t.TempDir())()
	if want := "Warning: searching by text alone; embeddings are not available: " + llm.EnvEmbeddingsModel + " is set, but no model server is configured: set " + llm.EnvAPIKey + ", or " + llm.EnvBaseURL + " for a local OpenAI-compatible server\n"; w.String() != want {
		t.Errorf("without a server:\n%q\nwant\n%q", w.String(), want)
	}
}

// TestUsePatternsIn: no state where there is none (nothing is made); an
// existing state is opened for its patterns.
func TestUsePatternsIn(t *testing.T) {
	var o Options
	missing := filepath.Join(t.TempDir(), ".flowctl")
	if st := o.UsePatternsIn(missing); st != nil {
		t.Error("a state where there is none")
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("the state was made")
	}
	dir := t.TempDir()
	st, err := state.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if st := o.UsePatternsIn(dir); st == nil {
		t.Error("the existing state was not opened")
	} else {
		st.Close()
	}
}
