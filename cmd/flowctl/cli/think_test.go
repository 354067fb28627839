package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestThinkAllFound: every required block is in the registry (a built-in
// and a --registry block), so the flow is wired without creating any.
func TestThinkAllFound(t *testing.T) {
	dir := thinkDir(t)
	reg := filepath.Join(t.TempDir(), "reg")
	os.MkdirAll(reg, 0o755)
	os.WriteFile(filepath.Join(reg, "shout.block.hcl"), []byte(`block "shout" {
  description = "Upper-case a text"
  use_when    = "You need a text in capital letters"
  runtime     = "js"
  input "text" {
    type = string
  }
  output "text" {
    type = string
  }
  source = "function execute(input) { return { text: input.text.toUpperCase() } }"
}
`), 0o644)
	srv := newThinkServer(t, map[string][]string{
		"decompose": {decompose(decomposeRead, `{"id": "shout", "description": "Upper-case a text", "runtime": "js",
			"inputs": [{"name": "text", "type": "string", "description": "The text"}],
			"outputs": [{"name": "text", "type": "string", "description": "The text in capitals"}]}`)},
		"wire": {wireReply("loud_notes", []string{`read file path="notes.txt"`, `loud shout text=step.read.text`},
			"loud=step.loud.text", "sha=step.read.sha256")},
	})
	code, out, errOut := runCLI(t, "think", "--no-clarify", "--json", "--registry", reg, "Shout my notes")
	if code != 0 {
		t.Fatalf("think exited %d:\n%s%s", code, out, errOut)
	}
	events := thinkEvents(t, out)
	want := "stage:decompose decompose_blocks stage:search search_found search_found stage:wire wired complete"
	if got := strings.Join(typesOf(events), " "); got != want {
		t.Errorf("events:\n got %s\nwant %s", got, want)
	}
	if got := strings.Join(srv.stages(), " "); got != "decompose wire" {
		t.Errorf("requests: %s", got)
	}
	for _, r := range srv.recorded("") {
		if r.ResponseFormat.Type != "json_schema" || !r.ResponseFormat.JSONSchema.Strict || r.Model != "test-model" {
			t.Errorf("request %s: response_format %+v, model %s", r.stage(), r.ResponseFormat, r.Model)
		}
	}
	if msg := srv.recorded("decompose")[0].lastMessage(); !strings.Contains(msg, `"name": "shout"`) || !strings.Contains(msg, "Shout my notes") {
		t.Errorf("decompose message lacks the intent or the registry:\n%s", msg)
	}
	complete := findEvent(events, "complete")
	if complete["file"] != "loud_notes.flow.hcl" || complete["valid"] != true {
		t.Errorf("complete: %v", complete)
	}
	if found := complete["blocks_found"].(map[string]any); found["read_notes"] != "file" || found["shout"] != "shout" {
		t.Errorf("found: %v", found)
	}
	if got := filesIn(t, dir); strings.Join(got, " ") != "loud_notes.flow.hcl notes.txt" {
		t.Errorf("files: %v", got)
	}
	outputs := applyOutputs(t, "loud_notes.flow.hcl", "--registry", reg)
	if outputs["loud"] != strings.ToUpper(notesText) || len(outputs["sha"].(string)) != 64 {
		t.Errorf("outputs: %v", outputs)
	}
}

// TestThinkHumanHints: the human view says why decompose is asked again,
// and the suggested plan command carries the --registry flags, quoted for
// the shell where needed.
func TestThinkHumanHints(t *testing.T) {
	thinkDir(t)
	for _, dir := range []string{"my reg", "lib"} {
		os.MkdirAll(dir, 0o755)
	}
	os.WriteFile(filepath.Join("my reg", "shout.block.hcl"), []byte(`block "shout" {
  description = "Upper-case a text"
  runtime     = "js"
  input "text" {
    type = string
  }
  output "text" {
    type = string
  }
  source = "function execute(input) { return { text: input.text.toUpperCase() } }"
}
`), 0o644)
	shout := `{"id": "shout", "description": "Upper-case a text", "runtime": "js",
		"inputs": [{"name": "text", "type": "string", "description": "The text"}],
		"outputs": [{"name": "text", "type": "string", "description": "The text in capitals"}]}`
	newThinkServer(t, map[string][]string{
		"decompose": {decompose(strings.Replace(decomposeRead, `"read_notes"`, `"Read Notes"`, 1), shout), decompose(decomposeRead, shout)},
		"wire": {wireReply("loud_notes", []string{`read file path="notes.txt"`, `loud shout text=step.read.text`},
			"loud=step.loud.text")},
	})
	code, out, errOut := runCLI(t, "think", "--no-clarify", "--registry", "my reg", "--registry", "lib", "Shout my notes")
	if code != 0 {
		t.Fatalf("think exited %d:\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"· decompose (try 2)\n    ✗ try 1: the blocks cannot be used: the id \"Read Notes\" is not a snake_case name\n",
		"\nNext: flowctl plan loud_notes.flow.hcl --registry 'my reg' --registry lib\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestThinkCreatesBlocks: three required blocks are missing and created —
// js and go, whose examples run, and llm, which is only checked — then
// wired with a built-in. The human view shows the stages.
func TestThinkCreatesBlocks(t *testing.T) {
	dir := thinkDir(t)
	srv := newThinkServer(t, map[string][]string{
		"decompose": {decompose(decomposeRead, decomposeCount, decomposeLongest, decomposeTopic)},
		"create_block": {
			createReply("count_words", "js", countSource, `{"input": {"text": "a bb  ccc"}, "output": {"count": 3}}`),
			createReply("longest_word", "go", longestSource, `{"input": {"text": "a bb ccc"}, "output": {"word": "ccc"}}`),
			createReply("name_topic", "llm", "Name the topic of this text in three words:\n\n${input.text}", `{"input": {"text": "x"}, "output": {"topic": "y"}}`),
		},
		"wire": {wireReply("note_stats", []string{
			`read file path="notes.txt"`, `count count_words text=step.read.text`,
			`longest longest_word text=step.read.text`, `topic name_topic text=step.read.text`,
		}, "count=step.count.count", "longest=step.longest.word", "topic=step.topic.topic")},
	})
	code, out, errOut := runCLI(t, "think", "--no-clarify", "--sandbox=inprocess", "Count the words of notes.txt and find the longest")
	if code != 0 {
		t.Fatalf("think exited %d:\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"· decompose\n", "4 blocks: read_notes, count_words, longest_word, name_topic\n",
		"✓ read_notes → file (built-in)", "+ count_words: not in the registry",
		"· create_block count_words (try 1)\n", "✓ count_words: its example passed",
		"✓ wrote " + filepath.Join("blocks", "longest_word.block.hcl"),
		"(llm blocks are checked", "· wire\n", "✓ the flow validates",
		"Wrote note_stats.flow.hcl: 4 steps; found read_notes → file; created count_words, longest_word, name_topic.",
		"Next: flowctl plan note_stats.flow.hcl",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if got := strings.Join(filesIn(t, dir), " "); got != "blocks/count_words.block.hcl blocks/longest_word.block.hcl blocks/name_topic.block.hcl note_stats.flow.hcl notes.txt" {
		t.Errorf("files: %s", got)
	}
	create := srv.recorded("create_block")
	if len(create) != 3 || !strings.Contains(create[0].lastMessage(), `"name": "count_words"`) {
		t.Fatalf("create_block requests: %d", len(create))
	}
	var sch map[string]any
	json.Unmarshal(create[1].ResponseFormat.JSONSchema.Schema, &sch)
	example := sch["properties"].(map[string]any)["example"].(map[string]any)["properties"].(map[string]any)
	if _, ok := example["input"].(map[string]any)["properties"].(map[string]any)["text"]; !ok {
		t.Errorf("the create_block schema's example does not have the spec's inputs: %v", example)
	}
	if code, out, _ := runCLI(t, "fmt", "--check", "."); code != 0 {
		t.Errorf("written files are not formatted:\n%s", out)
	}
	outputs := applyOutputs(t, "note_stats.flow.hcl")
	if outputs["count"] != 6.0 || outputs["longest"] != "flowctl" || outputs["topic"] != "a summary" {
		t.Errorf("outputs: %v", outputs)
	}
}

// TestThinkExampleFailsOnce: a created block fails its example; the
// failure goes back to the model, whose second block passes. The examples
// run in the default sandbox (isolated workers).
func TestThinkExampleFailsOnce(t *testing.T) {
	dir := thinkDir(t)
	buggy := strings.Replace(countSource, "words.length", "words.length + 1", 1)
	srv := newThinkServer(t, map[string][]string{
		"decompose": {decompose(decomposeRead, decomposeCount)},
		"create_block": {
			createReply("count_words", "js", buggy, `{"input": {"text": "a bb  ccc"}, "output": {"count": 3}}`),
			createReply("count_words", "js", countSource, `{"input": {"text": "a bb  ccc"}, "output": {"count": 3}}`),
		},
		"wire": {wireReply("note_words", []string{`read file path="notes.txt"`, `count count_words text=step.read.text`}, "count=step.count.count")},
	})
	code, out, errOut := runCLI(t, "think", "--no-clarify", "--json", "--out", "words.flow.hcl", "Count the words of notes.txt")
	if code != 0 {
		t.Fatalf("think exited %d:\n%s%s", code, out, errOut)
	}
	events := thinkEvents(t, out)
	failed := findEvent(events, "block_test_failed")
	if failed == nil || failed["phase"] != "example" || failed["try"] != 1.0 || !strings.Contains(failed["diff"].(string), "count") {
		t.Fatalf("block_test_failed: %v", failed)
	}
	created := findEvent(events, "block_created")
	if created["tries"] != 2.0 || created["tested"] != true {
		t.Errorf("block_created: %v", created)
	}
	reqs := srv.recorded("create_block")
	if len(reqs) != 2 {
		t.Fatalf("%d create_block requests", len(reqs))
	}
	second := reqs[1]
	if n := len(second.Messages); n != 4 || second.Messages[2].Role != "assistant" || !strings.Contains(second.Messages[2].Content, "words.length + 1") {
		t.Fatalf("the second request does not carry the first reply: %+v", second.Messages)
	}
	var feedback struct {
		Problem  string         `json:"problem"`
		Diff     string         `json:"diff"`
		Expected map[string]any `json:"expected"`
		Actual   map[string]any `json:"actual"`
	}
	if err := json.Unmarshal([]byte(second.lastMessage()), &feedback); err != nil {
		t.Fatalf("feedback is not JSON: %v\n%s", err, second.lastMessage())
	}
	if !strings.Contains(feedback.Problem, `output "count" differs from the example`) || feedback.Expected["count"] != 3.0 || feedback.Actual["count"] != 4.0 || !strings.Contains(feedback.Diff, "- ") {
		t.Errorf("feedback: %+v", feedback)
	}
	if got := strings.Join(filesIn(t, dir), " "); got != "blocks/count_words.block.hcl notes.txt words.flow.hcl" {
		t.Errorf("files: %s", got)
	}
	if outputs := applyOutputs(t, "words.flow.hcl"); outputs["count"] != 6.0 {
		t.Errorf("outputs: %v", outputs)
	}
}

// TestThinkRepairsTypeError: the wire reply passes a list where a string
// is wanted; the diagnostics go to repair as validate --json prints them,
// and the repaired flow is written.
func TestThinkRepairsTypeError(t *testing.T) {
	thinkDir(t)
	srv := newThinkServer(t, map[string][]string{
		"decompose":    {decompose(decomposeRead, decomposeCount)},
		"create_block": {createReply("count_words", "js", countSource, `{"input": {"text": "a"}, "output": {"count": 1}}`)},
		"wire":         {wireReply("note_words", []string{`read file path="notes.txt"`, `count count_words text=[step.read.text]`}, "count=step.count.count")},
		"repair":       {wireReply("note_words", []string{`read file path="notes.txt"`, `count count_words text=step.read.text`}, "count=step.count.count")},
	})
	code, out, errOut := runCLI(t, "think", "--no-clarify", "--json", "--sandbox=inprocess", "Count the words of notes.txt")
	if code != 0 {
		t.Fatalf("think exited %d:\n%s%s", code, out, errOut)
	}
	events := thinkEvents(t, out)
	want := "stage:wire wired compile_failed stage:repair repaired complete"
	if got := strings.Join(typesOf(events), " "); !strings.HasSuffix(got, want) {
		t.Errorf("events end with\n%s\nwant %s", got, want)
	}
	cf := findEvent(events, "compile_failed")
	if cf["error_count"] != 1.0 || cf["try"] != 0.0 {
		t.Errorf("compile_failed: %v", cf)
	}
	var msg struct {
		FlowFile    string `json:"flow_file"`
		Flow        string `json:"flow"`
		Diagnostics struct {
			FormatVersion string `json:"format_version"`
			Valid         bool   `json:"valid"`
			ErrorCount    int    `json:"error_count"`
			Diagnostics   []struct {
				Severity string `json:"severity"`
				Summary  string `json:"summary"`
				Range    struct {
					Filename string `json:"filename"`
					Start    struct{ Line int }
				} `json:"range"`
				Snippet struct {
					Code string `json:"code"`
				} `json:"snippet"`
			} `json:"diagnostics"`
		} `json:"diagnostics"`
	}
	repair := srv.recorded("repair")
	if len(repair) != 1 {
		t.Fatalf("%d repair requests", len(repair))
	}
	if err := json.Unmarshal([]byte(repair[0].lastMessage()), &msg); err != nil {
		t.Fatalf("repair message: %v\n%s", err, repair[0].lastMessage())
	}
	d := msg.Diagnostics
	if d.FormatVersion != "1.0" || d.Valid || d.ErrorCount != 1 || len(d.Diagnostics) != 1 {
		t.Fatalf("diagnostics: %+v", d)
	}
	diag := d.Diagnostics[0]
	if diag.Summary != "Incorrect input type" || diag.Range.Filename != "note_words.flow.hcl" || msg.FlowFile != "note_words.flow.hcl" ||
		!strings.Contains(diag.Snippet.Code, "text = [step.read.text]") || !strings.Contains(msg.Flow, "text = [step.read.text]") {
		t.Errorf("diagnostic: %+v\nflow:\n%s", diag, msg.Flow)
	}
	if outputs := applyOutputs(t, "note_words.flow.hcl"); outputs["count"] != 6.0 {
		t.Errorf("outputs: %v", outputs)
	}
}

// TestThinkFailures: malformed replies, an unclear intent without a
// terminal, provider errors and usage errors end with a clear message and
// write nothing.
func TestThinkFailures(t *testing.T) {
	cases := []struct {
		name   string
		script map[string][]string
		args   []string
		code   int
		want   string
	}{
		{"not JSON", map[string][]string{"decompose": {"You will need three blocks: a reader, a counter and a writer."}},
			[]string{"--no-clarify"}, 1, `decompose: the model's reply is malformed: it is not a JSON object`},
		{"wrong shape", map[string][]string{
			"decompose": {decompose(decomposeRead)},
			"wire":      {`{"name": "f", "description": "", "inputs": [], "steps": "read the file", "outputs": []}`},
		}, []string{"--no-clarify"}, 1, `wire: the model's reply is malformed: it does not have the shape of a wire reply: .steps: an array is required`},
		{"unclear intent", map[string][]string{"clarify": {`{"ready": false, "question": "Which notes do you mean?", "refined_intent": ""}`}},
			nil, 1, "clarify: the intent needs clarifying; the model asks: Which notes do you mean?"},
		{"bad out", nil, []string{"--out", "x.hcl"}, 2, `--out must name a *.flow.hcl file`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := thinkDir(t)
			newThinkServer(t, c.script)
			code, out, errOut := runCLI(t, append(append([]string{"think"}, c.args...), "Count my notes")...)
			if code != c.code || !strings.Contains(errOut, c.want) {
				t.Errorf("exit %d, want %d; stderr lacks %q:\n%s%s", code, c.code, c.want, out, errOut)
			}
			if got := filesIn(t, dir); len(got) != 1 {
				t.Errorf("files written: %v", got)
			}
		})
	}

	t.Run("broken registry", func(t *testing.T) {
		dir := thinkDir(t)
		os.Mkdir(filepath.Join(dir, "blocks"), 0o755)
		os.WriteFile(filepath.Join(dir, "blocks", "bad.block.hcl"), []byte("block \"bad\" {\n  runtime = \"cobol\"\n}\n"), 0o644)
		srv := newThinkServer(t, nil)
		code, out, errOut := runCLI(t, "think", "Count my notes")
		if code != 1 || !strings.Contains(errOut, "the registry has errors") || !strings.Contains(errOut, "Unknown runtime") ||
			!strings.Contains(errOut, `runtime = "cobol"`) || len(srv.recorded("")) != 0 {
			t.Errorf("exit %d:\n%s%s", code, out, errOut)
		}
	})

	t.Run("registry code does not compile", func(t *testing.T) {
		dir := thinkDir(t)
		os.Mkdir(filepath.Join(dir, "blocks"), 0o755)
		os.WriteFile(filepath.Join(dir, "blocks", "half.block.hcl"), []byte(`block "half" {
  runtime = "go"
  input "n" {
    type = number
  }
  output "half" {
    type = number
  }
  source = <<-GO
    package block

    import "context"

    func Execute(ctx context.Context, input map[string]any) (map[string]any, error) {
      return map[string]any{"half": halve(input["n"])}, nil
    }
  GO
}
`), 0o644)
		srv := newThinkServer(t, map[string][]string{"decompose": {decompose(decomposeRead)}})
		code, out, errOut := runCLI(t, "think", "--no-clarify", "Count my notes")
		if code != 1 || !strings.Contains(errOut, "the registry has errors") || !strings.Contains(errOut, "Go compile error") ||
			!strings.Contains(errOut, "undefined: halve") || !strings.Contains(errOut, "on blocks/half.block.hcl line 15") || len(srv.recorded("")) != 0 {
			t.Errorf("exit %d after %d requests:\n%s%s", code, len(srv.recorded("")), out, errOut)
		}
	})

	t.Run("unknown model", func(t *testing.T) {
		thinkDir(t)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(404)
			fmt.Fprint(w, `{"error":{"message":"The model `+"`nope`"+` does not exist","type":"invalid_request_error","code":"model_not_found"}}`)
		}))
		defer srv.Close()
		t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
		t.Setenv("OPENAI_API_KEY", "")
		code, out, errOut := runCLI(t, "think", "--no-clarify", "--model", "nope", "Count my notes")
		if code != 1 || !strings.Contains(errOut, `decompose: the model "nope" was not found`) ||
			!strings.Contains(errOut, "name a model the server offers with --model or in FLOWCTL_MODEL") || strings.Contains(errOut, "step's") {
			t.Errorf("exit %d:\n%s%s", code, out, errOut)
		}
	})

	t.Run("json error event", func(t *testing.T) {
		thinkDir(t)
		newThinkServer(t, map[string][]string{"decompose": {"no"}})
		code, out, _ := runCLI(t, "think", "--no-clarify", "--json", "Count my notes")
		events := thinkEvents(t, out)
		last := events[len(events)-1]
		if code != 1 || last["type"] != "error" || last["stage"] != "decompose" || !strings.Contains(last["message"].(string), "malformed") {
			t.Errorf("exit %d, last event %v", code, last)
		}
	})

	t.Run("provider error", func(t *testing.T) {
		thinkDir(t)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(401)
			fmt.Fprint(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`)
		}))
		defer srv.Close()
		t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
		t.Setenv("OPENAI_API_KEY", "sk-wrong")
		code, out, errOut := runCLI(t, "think", "--no-clarify", "Count my notes")
		if code != 1 || !strings.Contains(errOut, "decompose: the model server at") || !strings.Contains(errOut, "refused the API key") || strings.Contains(out+errOut, "panic") {
			t.Errorf("exit %d:\n%s%s", code, out, errOut)
		}
	})

	t.Run("no provider", func(t *testing.T) {
		thinkDir(t)
		t.Setenv("OPENAI_BASE_URL", "")
		t.Setenv("OPENAI_API_KEY", "")
		code, _, errOut := runCLI(t, "think", "Count my notes")
		if code != 1 || !strings.Contains(errOut, "no model server is configured") {
			t.Errorf("exit %d: %s", code, errOut)
		}
	})
}

// TestThinkRetriesExhausted: a block that fails three times, and a flow
// that three repairs do not fix, end with exit 1; --force writes the last
// flow attempt, never a failing block.
func TestThinkRetriesExhausted(t *testing.T) {
	badBlock := createReply("count_words", "js", "function execute(input) { return { count: -1 } }", `{"input": {"text": "a"}, "output": {"count": 1}}`)
	badFlow := wireReply("note_words", []string{`read file path="notes.txt"`, `count value value=step.read.nothing`}, "count=step.count.value")
	for _, force := range []bool{false, true} {
		t.Run(fmt.Sprintf("create force=%v", force), func(t *testing.T) {
			dir := thinkDir(t)
			// Three failed tries, a second plan, three more.
			srv := newThinkServer(t, map[string][]string{
				"decompose":    {decompose(decomposeRead, decomposeCount), decompose(decomposeRead, decomposeCount)},
				"create_block": {badBlock, badBlock, badBlock, badBlock, badBlock, badBlock},
			})
			args := []string{"think", "--no-clarify", "--sandbox=inprocess", "Count my notes"}
			if force {
				args = append(args, "--force")
			}
			code, out, errOut := runCLI(t, args...)
			if code != 1 || !strings.Contains(errOut, `create_block: block "count_words" failed its checks 3 times; the last problem: output "count" differs from the example`) {
				t.Errorf("exit %d:\n%s%s", code, out, errOut)
			}
			if n := len(srv.recorded("create_block")); n != 6 || len(srv.recorded("decompose")) != 2 || len(srv.recorded("wire")) != 0 {
				t.Errorf("%d create_block requests, %d decompose, then wire", n, len(srv.recorded("decompose")))
			}
			if got := filesIn(t, dir); len(got) != 1 {
				t.Errorf("files written: %v", got)
			}
		})
		t.Run(fmt.Sprintf("repair force=%v", force), func(t *testing.T) {
			dir := thinkDir(t)
			srv := newThinkServer(t, map[string][]string{
				"decompose": {decompose(decomposeRead)},
				"wire":      {badFlow},
				"repair":    {badFlow, badFlow, badFlow},
			})
			args := []string{"think", "--no-clarify", "--json", "Count my notes"}
			if force {
				args = append(args, "--force")
			}
			code, out, errOut := runCLI(t, args...)
			if n := len(srv.recorded("repair")); code != 1 || n != 3 {
				t.Fatalf("exit %d after %d repairs:\n%s%s", code, n, out, errOut)
			}
			events := thinkEvents(t, out)
			last := events[len(events)-1]
			if !force {
				if last["type"] != "error" || last["stage"] != "repair" || len(last["diagnostics"].([]any)) != 1 ||
					!strings.Contains(errOut, "the flow still has 1 error after 3 repairs, so it was not written; pass --force") {
					t.Errorf("last event %v\n%s", last, errOut)
				}
				if got := filesIn(t, dir); len(got) != 1 {
					t.Errorf("files written: %v", got)
				}
				return
			}
			if last["type"] != "complete" || last["valid"] != false || last["file"] != "note_words.flow.hcl" {
				t.Errorf("last event %v", last)
			}
			if !strings.Contains(errOut, "written to note_words.flow.hcl anyway (--force)") {
				t.Errorf("stderr: %s", errOut)
			}
			code, _, vErr := runCLI(t, "validate", "note_words.flow.hcl")
			if code != 1 || !strings.Contains(vErr, "nothing") {
				t.Errorf("validate of the forced flow: exit %d\n%s", code, vErr)
			}
		})
	}
}

// TestThinkEmbeddings: with FLOWCTL_EMBEDDINGS_MODEL the search embeds
// the registry (vectors cached in .flowctl next to the flow); a server
// without the model leaves the search to full text, with a warning.
func TestThinkEmbeddings(t *testing.T) {
	for _, model := range []string{"embed-test", "missing"} {
		t.Run(model, func(t *testing.T) {
			dir := thinkDir(t)
			srv := newThinkServer(t, map[string][]string{
				"decompose": {decompose(decomposeRead)},
				"wire":      {wireReply("read_notes", []string{`read file path="notes.txt"`}, "text=step.read.text")},
			})
			t.Setenv("FLOWCTL_EMBEDDINGS_MODEL", model)
			code, out, errOut := runCLI(t, "think", "--no-clarify", "--json", "--model", "other-model", "Read my notes")
			if code != 0 {
				t.Fatalf("think exited %d:\n%s%s", code, out, errOut)
			}
			events := thinkEvents(t, out)
			var search map[string]any
			for _, e := range events {
				if e["type"] == "stage" && e["stage"] == "search" {
					search = e
				}
			}
			found := findEvent(events, "search_found")
			if found == nil || found["found"] != "file" {
				t.Errorf("search_found: %v", found)
			}
			for _, r := range srv.recorded("") {
				if r.Model != "other-model" {
					t.Errorf("request %s asks model %q", r.stage(), r.Model)
				}
			}
			if model == "missing" {
				if search["embeddings"] != false || !strings.Contains(fmt.Sprint(search["note"]), "embeddings are not available") {
					t.Errorf("search stage: %v", search)
				}
				return
			}
			if search["embeddings"] != true || srv.embedded == 0 {
				t.Errorf("search stage: %v; %d texts embedded", search, srv.embedded)
			}
			if _, err := os.Stat(filepath.Join(dir, ".flowctl")); err != nil {
				t.Errorf("no vector cache: %v", err)
			}
		})
	}
}
