package thinker

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/blocks/sandbox/jsrun"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
)

const (
	decomposeNotes = `{"blocks": [
		{"id": "read_notes", "description": "Read a local text file", "runtime": "go",
		 "inputs": [{"name": "path", "type": "string", "description": "The file"}],
		 "outputs": [{"name": "text", "type": "string", "description": "Its text"}]},
		{"id": "count_words", "description": "Count the words of a text", "runtime": "js",
		 "inputs": [{"name": "text", "type": "string", "description": "The text"}],
		 "outputs": [{"name": "count", "type": "number", "description": "How many words"}]}]}`
	createCountWords = `{"id": "count_words", "description": "Count the words of a text", "runtime": "js",
		"source": "function execute(input) {\n  return { count: input.text.split(/\\s+/).filter(w => w).length }\n}",
		"prompt": null,
		"inputs": [{"name": "text", "type": "string", "description": "The text"}],
		"outputs": [{"name": "count", "type": "number", "description": "How many words"}],
		"example": {"input": {"text": "one two  three"}, "output": {"count": 3}}}`
	wireNotes = `{"name": "note_words", "description": "Count the words of notes.txt", "inputs": [],
		"steps": [
			{"name": "read", "use": "file", "args": {"path": "\"notes.txt\""}, "depends_on": []},
			{"name": "count", "use": "count_words", "args": {"text": "%s"}, "depends_on": []}],
		"outputs": [{"name": "count", "value": "step.count.count"}]}`
)

func testExecutors() *blocks.Executors {
	return &blocks.Executors{
		Builtins: blocks.BuiltinExecutors(),
		Runtimes: map[string]blocks.Executor{lang.RuntimeJS: jsrun.NewExecutor()},
	}
}

func wire(text string) string { return strings.Replace(wireNotes, "%s", text, 1) }

// TestThinkEvents runs every stage against a scripted model and checks
// the events in order, the files written, and that the flow compiles.
func TestThinkEvents(t *testing.T) {
	dir := t.TempDir()
	m := newFakeModel(map[string][]string{
		StageClarify:     {`{"ready": true, "question": "", "refined_intent": "Count the words of notes.txt"}`},
		StageDecompose:   {decomposeNotes},
		StageCreateBlock: {createCountWords},
		StageWire:        {wire("step.read.text")},
	})
	var events []Event
	res, err := Think(context.Background(), Options{
		Intent: "count words in my notes", Model: m, Dir: dir, Executors: testExecutors(),
		Observe: func(e Event) { events = append(events, e) },
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"StageStarted:clarify", "LLMRequest", "LLMResponse",
		"StageStarted:decompose", "LLMRequest", "LLMResponse", "DecomposeBlocks",
		"StageStarted:search", "SearchFound", "SearchMissing",
		"StageStarted:create_block", "CreatingBlock", "LLMRequest", "LLMResponse", "BlockTestPassed", "BlockCreated",
		"StageStarted:wire", "LLMRequest", "LLMResponse", "Wired", "UsageReported", "Complete",
	}
	if got := eventTypes(events); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("events:\n got %v\nwant %v", got, want)
	}
	for _, e := range events {
		switch e := e.(type) {
		case StageStarted:
			if e.Stage == StageDecompose && e.Intent != "Count the words of notes.txt" {
				t.Errorf("decompose works from %q, not the refined intent", e.Intent)
			}
		case SearchFound:
			if e.Block != "read_notes" || e.Found != "file" || e.Runtime != blocks.RuntimeBuiltin {
				t.Errorf("found %+v", e)
			}
		case SearchMissing:
			if e.Block != "count_words" {
				t.Errorf("missing %+v", e)
			}
		case BlockCreated:
			if e.Name != "count_words" || !e.Tested || e.Tries != 1 || e.File != filepath.Join(dir, "blocks", "count_words.block.hcl") {
				t.Errorf("created %+v", e)
			}
		case Complete:
			if !e.Valid || e.BlocksFound["read_notes"] != "file" || e.BlocksCreated["count_words"] != "count_words" || e.Usage.TotalTokens != 60 {
				t.Errorf("complete %+v", e)
			}
		}
	}
	flow := filepath.Join(dir, "note_words.flow.hcl")
	if res.File != flow || !res.Valid || len(res.BlockFiles) != 1 {
		t.Errorf("result %+v", res)
	}
	if _, diags := compiler.Compile(flow, compiler.Options{}); diags.HasErrors() {
		t.Errorf("the written flow does not compile: %v", diags)
	}
	src, _ := os.ReadFile(flow)
	if formatted, _ := lang.Format(src, flow); string(formatted) != string(src) {
		t.Errorf("the flow is not formatted:\n%s", src)
	}
	// The wire request offers the planned blocks and the glue built-in.
	wireReq := m.requestsFor(StageWire)[0]
	for _, want := range []string{`"name": "file"`, `"name": "count_words"`, `"name": "value"`, `"serves": [`} {
		if !strings.Contains(lastMessage(wireReq), want) {
			t.Errorf("wire message lacks %s:\n%s", want, lastMessage(wireReq))
		}
	}
	// A second flow of the same name does not replace the first.
	m = newFakeModel(map[string][]string{StageDecompose: {decomposeNotes}, StageWire: {wire("step.read.text")}})
	res, err = Think(context.Background(), Options{Intent: "again", Model: m, Dir: dir, Executors: testExecutors(), NoClarify: true})
	if err != nil || res.File != filepath.Join(dir, "note_words_2.flow.hcl") || len(res.BlockFiles) != 0 {
		t.Errorf("second run: %+v, %v", res, err)
	}
}

// TestThinkRepair checks that compile errors go to repair as the JSON of
// validate --json, and that the repaired flow is written.
func TestThinkRepair(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "blocks"), 0o755)
	m := newFakeModel(map[string][]string{
		StageDecompose:   {decomposeNotes},
		StageCreateBlock: {createCountWords},
		StageWire:        {wire(`[\"a\", \"b\"]`)},
		StageRepair:      {wire("step.read.txt"), wire("step.read.text")},
	})
	var events []Event
	res, err := Think(context.Background(), Options{
		Intent: "count", Model: m, Dir: dir, Executors: testExecutors(), NoClarify: true,
		Observe: func(e Event) { events = append(events, e) },
	})
	if err != nil {
		t.Fatal(err)
	}
	var failed []CompileFailed
	for _, e := range events {
		if cf, ok := e.(CompileFailed); ok {
			failed = append(failed, cf)
		}
	}
	if len(failed) != 2 || failed[0].Try != 0 || failed[1].Try != 1 {
		t.Fatalf("compile failures: %+v", failed)
	}
	repairs := m.requestsFor(StageRepair)
	if len(repairs) != 2 {
		t.Fatalf("%d repair requests", len(repairs))
	}
	msg := lastMessage(repairs[0])
	for _, want := range []string{`"format_version": "1.0"`, `"summary": "Incorrect input type"`, `"flow_file": "` + filepath.Join(dir, "note_words.flow.hcl"), `"previous_reply": {`, `"snippet": {`} {
		if !strings.Contains(msg, want) {
			t.Errorf("repair message lacks %s:\n%s", want, msg)
		}
	}
	if !strings.Contains(lastMessage(repairs[1]), `Unknown output field`) {
		t.Errorf("second repair lacks the new diagnostics:\n%s", lastMessage(repairs[1]))
	}
	if !res.Valid || res.File == "" {
		t.Errorf("result %+v", res)
	}
}

func TestClarify(t *testing.T) {
	notReady := `{"ready": false, "question": "Which file?", "refined_intent": "Count words"}`
	ready := `{"ready": true, "question": "", "refined_intent": "Count the words of notes.txt"}`

	t.Run("terminal", func(t *testing.T) {
		m := newFakeModel(map[string][]string{StageClarify: {notReady, ready}})
		var asked []string
		r := &run{opts: Options{Model: m, Answer: func(_ context.Context, q string) (string, error) {
			asked = append(asked, q)
			return "notes.txt", nil
		}}, res: &Result{}}
		intent, err := r.clarify(context.Background(), "count words")
		if err != nil || intent != "Count the words of notes.txt" {
			t.Fatalf("%q, %v", intent, err)
		}
		reqs := m.requestsFor(StageClarify)
		if len(asked) != 1 || len(reqs) != 2 || len(reqs[1].Messages) != 3 || !strings.Contains(lastMessage(reqs[1]), "notes.txt") {
			t.Errorf("asked %v; second request %+v", asked, reqs[1].Messages)
		}
	})
	t.Run("at most three rounds", func(t *testing.T) {
		m := newFakeModel(map[string][]string{StageClarify: {notReady, notReady, notReady, ready}})
		n := 0
		r := &run{opts: Options{Model: m, Answer: func(context.Context, string) (string, error) { n++; return "more", nil }}, res: &Result{}}
		intent, err := r.clarify(context.Background(), "count words")
		if err != nil || intent != "Count words" || n != 2 || len(m.requestsFor(StageClarify)) != MaxClarifyRounds {
			t.Errorf("%q, %v; %d answers, %d requests", intent, err, n, len(m.requestsFor(StageClarify)))
		}
	})
	t.Run("no terminal", func(t *testing.T) {
		dir := t.TempDir()
		m := newFakeModel(map[string][]string{StageClarify: {notReady}})
		var events []Event
		_, err := Think(context.Background(), Options{Intent: "count words", Model: m, Dir: dir,
			Observe: func(e Event) { events = append(events, e) }})
		var te *Error
		if !errors.As(err, &te) || te.Stage != StageClarify || !strings.Contains(err.Error(), "Which file?") || !strings.Contains(err.Error(), "--no-clarify") {
			t.Fatalf("error %v", err)
		}
		if f, ok := events[len(events)-1].(Failed); !ok || f.Stage != StageClarify {
			t.Errorf("last event %#v", events[len(events)-1])
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("files written: %v", entries)
		}
	})
}

// TestMalformedReplies checks that replies that are not JSON, or not of
// the stage's shape, end the run naming the stage.
func TestMalformedReplies(t *testing.T) {
	for _, c := range []struct {
		reply, want string
	}{
		{"Sure! Here are the blocks.", `decompose: the model's reply is malformed: it is not a JSON object`},
		{`{"blocks": [{"id": "a"}]}`, `decompose: the model's reply is malformed: it does not have the shape of a decompose reply: .blocks[0]: the field "runtime" is missing`},
	} {
		m := newFakeModel(map[string][]string{StageDecompose: {c.reply}})
		_, err := Think(context.Background(), Options{Intent: "x", Model: m, Dir: t.TempDir(), NoClarify: true})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("reply %s: error %v", c.reply, err)
		}
	}
}

// TestRetryReasons: a stage asked again says why in its StageStarted
// event: the problems of the previous decompose reply, the last problem
// of a created block, the errors of the flow before a repair.
func TestRetryReasons(t *testing.T) {
	badIDs := strings.Replace(decomposeNotes, `"id": "read_notes"`, `"id": "Read Notes"`, 1)
	buggy := strings.Replace(createCountWords, `"count": 3`, `"count": 4`, 1)
	m := newFakeModel(map[string][]string{
		StageDecompose:   {badIDs, decomposeNotes},
		StageCreateBlock: {buggy, createCountWords},
		StageWire:        {wire("step.read.txt")},
		StageRepair:      {wire("step.read.text")},
	})
	reasons := map[string][]string{}
	_, err := Think(context.Background(), Options{
		Intent: "count", Model: m, Dir: t.TempDir(), Executors: testExecutors(), NoClarify: true,
		Observe: func(e Event) {
			if s, ok := e.(StageStarted); ok && s.Stage != StageSearch {
				reasons[s.Stage] = append(reasons[s.Stage], s.Reason)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		StageDecompose:   {"", `the blocks cannot be used: the id "Read Notes" is not a snake_case name`},
		StageCreateBlock: {"", `output "count" differs from the example`},
		StageWire:        {""},
		StageRepair:      {"the flow has 1 error"},
	}
	for stage, w := range want {
		if strings.Join(reasons[stage], "|") != strings.Join(w, "|") {
			t.Errorf("%s: reasons %q, want %q", stage, reasons[stage], w)
		}
	}
}

// TestTolerantReplies: a wire reply in the shapes models send — a field
// in camel case, another capitalised, optional fields left out, an extra
// field, JSON numbers, booleans and objects as args — is taken, with
// each change in a ReplyAdjusted event, and gives a flow that validates.
func TestTolerantReplies(t *testing.T) {
	dir := t.TempDir()
	m := newFakeModel(map[string][]string{
		StageClarify:     {`{"ready": true, "question": "", "refined_intent": "Count the words of notes.txt"}`},
		StageDecompose:   {decomposeNotes},
		StageCreateBlock: {createCountWords},
		StageWire: {`{"name": "note_words", "confidence": 0.9,
			"Steps": [
				{"name": "read", "use": "file", "args": {"path": "\"notes.txt\""}},
				{"name": "count", "use": "count_words", "args": {"text": "step.read.text"}, "dependsOn": ["read"]},
				{"name": "limit", "use": "value", "args": {"value": 5}},
				{"name": "flags", "use": "value", "args": {"value": {"strict": true, "tags": ["a", "b"]}}}],
			"outputs": [{"name": "count", "value": "step.count.count"}, {"name": "limit", "value": "step.limit.value"},
				{"name": "strict", "value": "step.flags.value.strict"}]}`},
		StageRepair: {`{"name": "note_words",
			"steps": [
				{"name": "read", "use": "file", "args": {"path": "\"notes.txt\""}},
				{"name": "count", "use": "count_words", "args": {"text": "step.read.text"}, "depends_on": ["read"]},
				{"name": "limit", "use": "value", "args": {"value": 5}},
				{"name": "flags", "use": "value", "args": {"value": {"strict": true, "tags": ["a", "b"]}}}],
			"outputs": [{"name": "count", "value": "step.count.count"}, {"name": "limit", "value": "step.limit.value"},
				{"name": "strict", "value": "step.flags.value.strict"}]}`},
	})
	var notes []string
	res, err := Think(context.Background(), Options{
		Intent: "count words in my notes", Model: m, Dir: dir, Executors: testExecutors(),
		Observe: func(e Event) {
			if a, ok := e.(ReplyAdjusted); ok && a.Stage == StageWire {
				notes = append(notes, a.Notes...)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Valid {
		t.Fatalf("the flow does not validate: %v", res.Diagnostics)
	}
	all := strings.Join(notes, "\n")
	for _, want := range []string{
		`reply.Steps read as "steps"`,
		`reply.steps[1].dependsOn read as "depends_on"`,
		`reply.confidence left out`,
		`reply.description missing: taken as ""`,
		`reply.inputs missing: taken as []`,
		`reply.steps[0].depends_on missing: taken as []`,
		`reply.steps[2].args.value: the JSON value 5 read as the HCL expression 5`,
		`the HCL expression {`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("notes lack %q:\n%s", want, all)
		}
	}
	src, err := os.ReadFile(res.File)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"value = 5", "strict = true", `depends_on = [step.read]`} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the flow lacks %q:\n%s", want, src)
		}
	}
	// The field the wire stage does not have was dropped, not repaired.
	if rs := m.requestsFor(StageRepair); len(rs) != 0 {
		t.Errorf("a repair was asked for: %q", lastMessageOf(rs))
	}
}

// TestExtraKeysAreDropped: keys a model in JSON mode adds that the stage
// does not take (reasoning, notes, flow_name, version, a step's notes)
// are dropped and noted, and the flow is written without a repair; a
// field the stage takes elsewhere (for_each beside a step's args rather
// than among them) or a misspelling of one (depend_on) goes back to the
// model, which places it.
func TestExtraKeysAreDropped(t *testing.T) {
	const wire = `{"reasoning": "read, then count", "notes": ["simple"], "flow_name": "note_words", "version": "1.0",
		"name": "note_words", "description": "Count words",
		"steps": [
			{"name": "read", "use": "file", "args": {"path": "\"notes.txt\""}, "depends_on": [], "notes": "reads"},
			{"name": "count", "use": "count_words", "args": {"text": "step.read.text"}, "depends_on": ["read"]}],
		"outputs": [{"name": "count", "value": "step.count.count", "description": ""}]}`
	dir := t.TempDir()
	m := newFakeModel(map[string][]string{
		StageClarify:     {`{"ready": true, "question": "", "refined_intent": "Count the words of notes.txt"}`},
		StageDecompose:   {decomposeNotes},
		StageCreateBlock: {createCountWords},
		StageWire:        {wire},
	})
	var notes []string
	res, err := Think(context.Background(), Options{
		Intent: "count words in my notes", Model: m, Dir: dir, Executors: testExecutors(),
		Observe: func(e Event) {
			if a, ok := e.(ReplyAdjusted); ok && a.Stage == StageWire {
				notes = append(notes, a.Notes...)
			}
		},
	})
	if err != nil {
		t.Fatalf("%v (repair requests: %q)", err, lastMessageOf(m.requestsFor(StageRepair)))
	}
	if !res.Valid {
		t.Fatalf("the flow does not validate: %v", res.Diagnostics)
	}
	if rs := m.requestsFor(StageRepair); len(rs) != 0 {
		t.Errorf("a repair was asked for: %q", lastMessageOf(rs))
	}
	all := strings.Join(notes, "\n")
	for _, k := range []string{"reply.reasoning", "reply.notes", "reply.flow_name", "reply.version", "reply.steps[0].notes"} {
		if !strings.Contains(all, k+" left out: there is no such field") {
			t.Errorf("notes lack %s:\n%s", k, all)
		}
	}

	// A for_each beside the args, and a misspelt depends_on: the repair
	// request says where for_each goes, and what depend_on may mean.
	misplaced := strings.Replace(wire, `"depends_on": [], "notes": "reads"`,
		`"depend_on": [], "for_each": "[\"a\"]"`, 1)
	m = newFakeModel(map[string][]string{
		StageClarify:     {`{"ready": true, "question": "", "refined_intent": "Count the words of notes.txt"}`},
		StageDecompose:   {decomposeNotes},
		StageCreateBlock: {createCountWords},
		StageWire:        {misplaced},
		StageRepair:      {wire},
	})
	res, err = Think(context.Background(), Options{Intent: "count words in my notes", Model: m, Dir: t.TempDir(), Executors: testExecutors()})
	if err != nil || !res.Valid {
		t.Fatalf("think: %v, %v", err, res)
	}
	rs := m.requestsFor(StageRepair)
	if len(rs) != 1 {
		t.Fatalf("%d repair requests, want 1", len(rs))
	}
	msg := lastMessage(rs[0])
	for _, want := range []string{".steps[0].for_each (the fields there are", "for_each is a field of steps[].args",
		".steps[0].depend_on (the fields there are", `did you mean \"depends_on\"?`} {
		if !strings.Contains(msg, want) {
			t.Errorf("the repair request lacks %q:\n%s", want, msg)
		}
	}
	for _, not := range []string{"reasoning", "flow_name"} {
		if strings.Contains(msg, not) {
			t.Errorf("the repair request names %s, which was dropped:\n%s", not, msg)
		}
	}
}

func lastMessageOf(rs []llm.AskRequest) string {
	if len(rs) == 0 {
		return ""
	}
	return lastMessage(rs[len(rs)-1])
}

// TestTemplateReferences: an argument written as a template of another
// tool is rewritten as the reference when it names one step output
// ("{{read.text}}", ${step.read.text} unquoted), with the fix in a
// ReplyAdjusted event; otherwise the repair request says what to write
// instead, and following it gives a flow that validates.
func TestTemplateReferences(t *testing.T) {
	for _, arg := range []string{`{{read.text}}`, `\"{{ read.text }}\"`, `${step.read.text}`} {
		t.Run(arg, func(t *testing.T) {
			m := newFakeModel(map[string][]string{
				StageDecompose:   {decomposeNotes},
				StageCreateBlock: {createCountWords},
				StageWire:        {wire(arg)},
			})
			var notes []string
			res, err := Think(context.Background(), Options{
				Intent: "count words in my notes", Model: m, Dir: t.TempDir(), Executors: testExecutors(), NoClarify: true,
				Observe: func(e Event) {
					if a, ok := e.(ReplyAdjusted); ok {
						notes = append(notes, a.Notes...)
					}
				},
			})
			if err != nil || !res.Valid {
				t.Fatalf("Think: %v, valid %v", err, res.Valid)
			}
			if len(notes) != 1 || !strings.Contains(notes[0], `rewritten as the reference step.read.text`) {
				t.Errorf("notes: %q", notes)
			}
			src, _ := os.ReadFile(res.File)
			if !strings.Contains(string(src), "text = step.read.text") {
				t.Errorf("the flow:\n%s", src)
			}
		})
	}
	for _, c := range []struct{ arg, want string }{
		{`{{fetch.body}}`, `write the reference step.fetch.body (no quotes, no braces)`},
		{`\"Words: {{read.text}}\"`, `write ${step.read.text} inside the quotes`},
	} {
		t.Run(c.arg, func(t *testing.T) {
			m := newFakeModel(map[string][]string{
				StageDecompose:   {decomposeNotes},
				StageCreateBlock: {createCountWords},
				StageWire:        {wire(c.arg)},
				StageRepair:      {wire("step.read.text")},
			})
			res, err := Think(context.Background(), Options{
				Intent: "count words in my notes", Model: m, Dir: t.TempDir(), Executors: testExecutors(), NoClarify: true,
			})
			if err != nil || !res.Valid {
				t.Fatalf("Think: %v, valid %v", err, res.Valid)
			}
			reqs := m.requestsFor(StageRepair)
			if len(reqs) != 1 || !strings.Contains(lastMessage(reqs[0]), c.want) {
				t.Errorf("the repair request lacks %q", c.want)
			}
		})
	}
}

// TestSearchByMeaning: a required block whose inputs and outputs fit a
// registry block that does something else (file reads path → text) is
// not served by it: the search reports the candidate as not relevant and
// the block is created; a relevant one is found with its relevance and
// reason.
func TestSearchByMeaning(t *testing.T) {
	decompose := `{"blocks": [
		{"id": "normalize_text", "description": "Normalize the whitespace and letter case of a text", "runtime": "js",
		 "inputs": [{"name": "path", "type": "string", "description": "The text"}],
		 "outputs": [{"name": "text", "type": "string", "description": "The normalized text"}]},
		{"id": "read_notes", "description": "Read a local text file", "runtime": "go",
		 "inputs": [{"name": "path", "type": "string", "description": "The file"}],
		 "outputs": [{"name": "text", "type": "string", "description": "Its text"}]}]}`
	m := newFakeModel(map[string][]string{StageDecompose: {decompose}})
	var found []SearchFound
	var missing []SearchMissing
	Think(context.Background(), Options{
		Intent: "normalize my notes", Model: m, Dir: t.TempDir(), Executors: testExecutors(), NoClarify: true,
		Observe: func(e Event) {
			switch e := e.(type) {
			case SearchFound:
				found = append(found, e)
			case SearchMissing:
				missing = append(missing, e)
			}
		},
	})
	if len(found) != 1 || found[0].Block != "read_notes" || found[0].Found != "file" || found[0].Relevance < 0.5 ||
		!strings.Contains(found[0].Reason, "share") {
		t.Errorf("found: %+v", found)
	}
	if len(missing) != 1 || missing[0].Block != "normalize_text" {
		t.Fatalf("missing: %+v", missing)
	}
	why := ""
	for _, c := range missing[0].Candidates {
		if c.Name == "file" {
			why = c.Why
		}
	}
	if !strings.Contains(why, "not about what normalize_text does") {
		t.Errorf("why file does not serve normalize_text: %q (candidates %+v)", why, missing[0].Candidates)
	}
	if len(m.requestsFor(StageCreateBlock)) == 0 {
		t.Error("normalize_text was not created")
	}
}

// TestReplan: a block that cannot be written sends the run back to
// decompose once, with what failed; the new plan (which the registry
// serves) is wired into a flow.
func TestReplan(t *testing.T) {
	broken := `{"id": "count_words", "description": "Count the words of a text", "runtime": "js",
		"source": "function execute(input) { return { count: 0 } }", "prompt": null,
		"inputs": [{"name": "text", "type": "string", "description": "The text"}],
		"outputs": [{"name": "count", "type": "number", "description": "How many words"}],
		"example": {"input": {"text": "one two"}, "output": {"count": 2}}}`
	onlyRead := `{"blocks": [{"id": "read_notes", "description": "Read a local text file", "runtime": "go",
		"inputs": [{"name": "path", "type": "string", "description": "The file"}],
		"outputs": [{"name": "text", "type": "string", "description": "Its text"}]}]}`
	m := newFakeModel(map[string][]string{
		StageDecompose:   {decomposeNotes, onlyRead},
		StageCreateBlock: {broken, broken, broken},
		StageWire: {`{"name": "notes", "description": "", "inputs": [],
			"steps": [{"name": "read", "use": "file", "args": {"path": "\"notes.txt\""}, "depends_on": []}],
			"outputs": [{"name": "words", "value": "length(split(\" \", step.read.text))"}]}`},
	})
	var reasons []string
	res, err := Think(context.Background(), Options{
		Intent: "count words in my notes", Model: m, Dir: t.TempDir(), Executors: testExecutors(), NoClarify: true,
		Observe: func(e Event) {
			if s, ok := e.(StageStarted); ok && s.Stage == StageDecompose {
				reasons = append(reasons, s.Reason)
			}
		},
	})
	if err != nil || !res.Valid {
		t.Fatalf("Think: %v", err)
	}
	if len(reasons) != 2 || !strings.Contains(reasons[1], `planning again: block "count_words" failed its checks 3 times`) {
		t.Errorf("decompose reasons: %q", reasons)
	}
	reqs := m.requestsFor(StageDecompose)
	if len(reqs) != 2 || !strings.Contains(lastMessage(reqs[1]), "split that block into smaller ones") {
		t.Errorf("the second decompose request does not say what failed")
	}
}

// TestMaxCalls: the run stops when it has sent MaxCalls requests, saying
// which stages used them.
func TestMaxCalls(t *testing.T) {
	bad := `{"id": "count_words", "description": "Count the words of a text", "runtime": "js",
		"source": "function execute(input) { return { count: 0 } }", "prompt": null,
		"inputs": [{"name": "text", "type": "string", "description": "The text"}],
		"outputs": [{"name": "count", "type": "number", "description": "How many words"}],
		"example": {"input": {"text": "one two"}, "output": {"count": 2}}}`
	m := newFakeModel(map[string][]string{
		StageDecompose:   {decomposeNotes},
		StageCreateBlock: {bad, bad, bad},
	})
	_, err := Think(context.Background(), Options{
		Intent: "count", Model: m, Dir: t.TempDir(), Executors: testExecutors(), NoClarify: true, MaxCalls: 3,
	})
	if err == nil || !strings.Contains(err.Error(), "create_block: the run has used its 3 model calls (decompose 1, create_block 2); allow more with --max-calls") {
		t.Errorf("error: %v", err)
	}
	if n := len(m.requests); n != 3 {
		t.Errorf("%d requests sent, want 3", n)
	}
}
