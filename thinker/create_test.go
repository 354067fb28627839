package thinker

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCreatedBlockFitsSpec: a create_block reply whose outputs or runtime
// do not fit the block's specification fails the try in the check phase;
// the problem goes back to the model, and the try counts.
func TestCreatedBlockFitsSpec(t *testing.T) {
	renamed := `{"id": "count_words", "description": "Count the words of a text", "runtime": "js",
		"source": "function execute(input) {\n  return { n: input.text.split(/\\s+/).filter(w => w).length }\n}",
		"prompt": null,
		"inputs": [{"name": "text", "type": "string", "description": "The text"}],
		"outputs": [{"name": "n", "type": "number", "description": "How many words"}],
		"example": {"input": {"text": "one two"}, "output": {"n": 2}}}`
	asLLM := `{"id": "count_words", "description": "Count the words of a text", "runtime": "llm",
		"source": null, "prompt": "Count the words of: ${input.text}",
		"inputs": [{"name": "text", "type": "string", "description": "The text"}],
		"outputs": [{"name": "count", "type": "number", "description": "How many words"}],
		"example": {"input": {"text": "one two"}, "output": {"count": 2}}}`
	for _, c := range []struct {
		name, reply, summary, detail string
	}{
		{"renamed output", renamed, "Block does not fit its specification", `no output "count"; the outputs are "n"`},
		{"other runtime", asLLM, "Wrong runtime", `The specification asks for a block with runtime "js", but this block's runtime is "llm"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			m := newFakeModel(map[string][]string{
				StageDecompose:   {decomposeNotes},
				StageCreateBlock: {c.reply, createCountWords},
				StageWire:        {wire("step.read.text")},
			})
			var events []Event
			res, err := Think(context.Background(), Options{
				Intent: "count", Model: m, Dir: dir, Executors: testExecutors(), NoClarify: true,
				Observe: func(e Event) { events = append(events, e) },
			})
			if err != nil {
				t.Fatal(err)
			}
			var failed []BlockTestFailed
			var created []BlockCreated
			for _, e := range events {
				switch e := e.(type) {
				case BlockTestFailed:
					failed = append(failed, e)
				case BlockCreated:
					created = append(created, e)
				}
			}
			if len(failed) != 1 || failed[0].Phase != PhaseCheck || failed[0].Try != 1 ||
				!strings.Contains(failed[0].Error, c.summary+": ") || !strings.Contains(failed[0].Error, c.detail) {
				t.Fatalf("failures: %+v", failed)
			}
			if d := failed[0].Diagnostics; len(d) != 1 || d[0].Subject == nil || d[0].Subject.Filename != filepath.Join(dir, "blocks", "count_words.block.hcl") {
				t.Errorf("diagnostics: %v", d)
			}
			if len(created) != 1 || created[0].Tries != 2 || !created[0].Tested || created[0].Runtime != "js" {
				t.Errorf("created: %+v", created)
			}
			reqs := m.requestsFor(StageCreateBlock)
			if len(reqs) != 2 {
				t.Fatalf("%d create_block requests", len(reqs))
			}
			var feedback struct {
				Diagnostics struct {
					Diagnostics []struct{ Summary, Detail string }
				}
			}
			if err := json.Unmarshal([]byte(lastMessage(reqs[1])), &feedback); err != nil {
				t.Fatal(err)
			}
			if d := feedback.Diagnostics.Diagnostics; len(d) != 1 || d[0].Summary != c.summary || !strings.Contains(d[0].Detail, c.detail) {
				t.Errorf("feedback: %+v", feedback)
			}
			src, _ := os.ReadFile(filepath.Join(dir, "blocks", "count_words.block.hcl"))
			if !strings.Contains(string(src), `output "count"`) || !res.Valid {
				t.Errorf("block file:\n%s", src)
			}
		})
	}

	// Three misfits: the run plans again once, then fails when the
	// block fails again.
	t.Run("three misfits", func(t *testing.T) {
		dir := t.TempDir()
		m := newFakeModel(map[string][]string{
			StageDecompose:   {decomposeNotes, decomposeNotes},
			StageCreateBlock: {renamed, asLLM, renamed, renamed, renamed, renamed},
		})
		_, err := Think(context.Background(), Options{Intent: "count", Model: m, Dir: dir, Executors: testExecutors(), NoClarify: true})
		if err == nil || !strings.Contains(err.Error(), `block "count_words" failed its checks 3 times; the last problem: Block does not fit its specification`) {
			t.Errorf("error %v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "blocks")); err == nil {
			t.Errorf("a block file was written")
		}
		if reqs := m.requestsFor(StageDecompose); len(reqs) != 2 || !strings.Contains(lastMessage(reqs[1]), `"replan"`) {
			t.Errorf("decompose was not asked again with what failed")
		}
	})
}

// TestCreatedBlockNonsense: a created llm block whose prompt uses none of
// its inputs ({{text}} written as plain text) and a block whose example
// gives its input back are refused with what to do instead; the next
// replies pass.
func TestCreatedBlockNonsense(t *testing.T) {
	decompose := `{"blocks": [
		{"id": "tidy_text", "description": "Collapse the runs of spaces of a text", "runtime": "js",
		 "inputs": [{"name": "text", "type": "string", "description": "The text"}],
		 "outputs": [{"name": "text", "type": "string", "description": "The tidied text"}]},
		{"id": "summarize_text", "description": "Summarize a text in one sentence", "runtime": "llm",
		 "inputs": [{"name": "text", "type": "string", "description": "The text"}],
		 "outputs": [{"name": "summary", "type": "string", "description": "The summary"}]}]}`
	tidy := func(example string) string {
		return `{"id": "tidy_text", "description": "Collapse the runs of spaces of a text", "runtime": "js",
		"source": "function execute(input) {\n  return { text: input.text.replace(/ +/g, ' ') }\n}", "prompt": null,
		"inputs": [{"name": "text", "type": "string", "description": "The text"}],
		"outputs": [{"name": "text", "type": "string", "description": "The tidied text"}],
		"example": ` + example + `}`
	}
	summarize := func(prompt string) string {
		return `{"id": "summarize_text", "description": "Summarize a text in one sentence", "runtime": "llm",
		"source": null, "prompt": "` + prompt + `",
		"inputs": [{"name": "text", "type": "string", "description": "The text"}],
		"outputs": [{"name": "summary", "type": "string", "description": "The summary"}],
		"example": {"input": {"text": "A long text."}, "output": {"summary": "Short."}}}`
	}
	m := newFakeModel(map[string][]string{
		StageDecompose: {decompose},
		StageCreateBlock: {
			tidy(`{"input": {"text": "a b"}, "output": {"text": "a b"}}`),
			tidy(`{"input": {"text": "a   b"}, "output": {"text": "a b"}}`),
			summarize(`Summarize {{text}} in one sentence.`),
			summarize(`Summarize in one sentence: ${input.text}`),
		},
	})
	var failed []BlockTestFailed
	Think(context.Background(), Options{
		Intent: "tidy and summarize", Model: m, Dir: t.TempDir(), Executors: testExecutors(), NoClarify: true,
		Observe: func(e Event) {
			if f, ok := e.(BlockTestFailed); ok {
				failed = append(failed, f)
			}
		},
	})
	if len(failed) != 2 {
		t.Fatalf("failures: %+v", failed)
	}
	if f := failed[0]; f.Block != "tidy_text" || !strings.Contains(f.Error, "Trivial example: The example gives its input back as the output") {
		t.Errorf("tidy_text: %+v", f)
	}
	if f := failed[1]; f.Block != "summarize_text" || !strings.Contains(f.Error, "{{text}} is plain text in an HCL template: write ${input.text}") {
		t.Errorf("summarize_text: %+v", f)
	}
	if n := len(m.requestsFor(StageCreateBlock)); n != 4 {
		t.Errorf("%d create_block requests, want 4", n)
	}
}
