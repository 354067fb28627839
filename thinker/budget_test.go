package thinker

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBudgetStop: a run whose budget is one token short of what it needs
// stops before its last request (wire), having written nothing — the
// block it created is removed — with an error that says how far it got;
// the usage event comes before the error event. With room for its
// estimates, the same run completes.
func TestBudgetStop(t *testing.T) {
	script := func() *fakeModel {
		m := newFakeModel(map[string][]string{
			StageClarify:     {`{"ready": true, "question": "", "refined_intent": "Count the words of notes.txt"}`},
			StageDecompose:   {decomposeNotes},
			StageCreateBlock: {createCountWords},
			StageWire:        {wire("step.read.text")},
		})
		m.realistic = true
		return m
	}
	full, err := Think(context.Background(), Options{Intent: "count words in my notes", Model: script(), Dir: t.TempDir(), Executors: testExecutors()})
	if err != nil {
		t.Fatal(err)
	}
	need := full.Calls.PromptTokens + full.Calls.CompletionTokens
	if full.Calls.Calls != 4 || need < 1000 {
		t.Fatalf("the full run: %+v", full.Calls)
	}

	dir := t.TempDir()
	var events []Event
	res, err := Think(context.Background(), Options{Intent: "count words in my notes", Model: script(), Dir: dir, Executors: testExecutors(),
		MaxTokens: need - 1, Observe: func(e Event) { events = append(events, e) }})
	if !errors.Is(err, ErrBudget) {
		t.Fatalf("err = %v, want the budget's", err)
	}
	for _, want := range []string{"stopped before wire", "requests so far: clarify 1, decompose 1, create_block 1", "allow more with --max-tokens or FLOWCTL_MAX_TOKENS"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q: %v", want, err)
		}
	}
	if res.Calls.Calls != 3 || res.File != "" || len(res.BlockFiles) != 0 {
		t.Errorf("result: %+v", res)
	}
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if len(files) != 0 {
		t.Errorf("files written: %v", files)
	}
	types := eventTypes(events)
	if n := len(types); n < 2 || types[n-2] != "UsageReported" || types[n-1] != "Failed" || !events[n-1].(Failed).Budget {
		t.Errorf("the last events: %v", types)
	}

	// A budget with room for the estimate (a reply as long as the
	// longest so far) is enough.
	if _, err := Think(context.Background(), Options{Intent: "count words in my notes", Model: script(), Dir: t.TempDir(), Executors: testExecutors(),
		MaxTokens: 2 * need}); err != nil {
		t.Errorf("with a budget of %d: %v", 2*need, err)
	}
}
