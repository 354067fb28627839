package thinker

import (
	"context"
	"strings"
	"sync"
	"testing"
)

// meaningEmbedder is a scripted embedding model: a text about counting
// words (by any of these words) points one way, any other text another.
type meaningEmbedder struct {
	mu    sync.Mutex
	texts []string
}

func (e *meaningEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.texts = append(e.texts, texts...)
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{0, 1}
		for _, w := range []string{"count", "tally", "words", "terms"} {
			if strings.Contains(strings.ToLower(t), w) {
				out[i] = []float32{1, 0}
			}
		}
	}
	return out, nil
}

// TestPatternByEmbeddings: an intent that shares no word with a
// pattern's intent, but means the same, is matched by the embeddings when
// they are configured (think is based on the pattern: no decompose), and
// not without them.
func TestPatternByEmbeddings(t *testing.T) {
	patterns := []Pattern{
		{ID: "p1", Name: "todo_words", Intent: "Count the words of todo.txt", Blocks: []string{"file"},
			Source: `flow "todo_words" {}` + "\n"},
		{ID: "p2", Name: "weather", Intent: "Fetch the weather forecast for Paris", Blocks: []string{"file"},
			Source: `flow "weather" {}` + "\n"},
	}
	const intent = "Tally how many terms a document holds"
	const wireTally = `{"name": "tally", "description": "Tally the terms of notes.txt", "inputs": [],
		"steps": [{"name": "read", "use": "file", "args": {"path": "\"notes.txt\""}, "depends_on": []}],
		"outputs": [{"name": "text", "value": "step.read.text"}]}`

	emb := &meaningEmbedder{}
	m := newFakeModel(map[string][]string{StageWire: {wireTally}})
	var used []PatternUsed
	res, err := Think(context.Background(), Options{
		Intent: intent, Model: m, Dir: t.TempDir(), Executors: testExecutors(), NoClarify: true, Patterns: patterns,
		Embedder: emb, EmbeddingsModel: "test-embeddings",
		Observe: func(e Event) {
			if p, ok := e.(PatternUsed); ok {
				used = append(used, p)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(used) != 1 || used[0].ID != "p1" || used[0].Similarity < 0.99 || used[0].Relevance < MinPatternRelevance || res.Pattern != "p1" {
		t.Fatalf("patterns used: %+v (result %+v)", used, res)
	}
	if n := len(m.requestsFor(StageDecompose)); n != 0 {
		t.Errorf("decompose was asked %d times", n)
	}
	if !strings.Contains(lastMessage(m.requestsFor(StageWire)[0]), `"pattern": "todo_words"`) {
		t.Error("wire was not given the pattern as its worked example")
	}
	if len(emb.texts) != 3 || emb.texts[2] != intent {
		t.Errorf("embedded: %q", emb.texts)
	}

	// Without embeddings the words alone do not match: decompose is asked.
	used = nil
	m = newFakeModel(map[string][]string{})
	Think(context.Background(), Options{
		Intent: intent, Model: m, Dir: t.TempDir(), Executors: testExecutors(), NoClarify: true, Patterns: patterns,
		Observe: func(e Event) {
			if p, ok := e.(PatternUsed); ok {
				used = append(used, p)
			}
		},
	})
	if len(used) != 0 || len(m.requestsFor(StageDecompose)) != 1 {
		t.Errorf("without embeddings: patterns used %+v, decompose asked %d times", used, len(m.requestsFor(StageDecompose)))
	}
}
