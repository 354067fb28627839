package thinker_test

// Contract tests of the thinker (docs/design.md, "The thinker", and docs/thinker.md), written against the exported
// API only: thinker.Think with a real *llm.Executor talking to an
// httptest server that plays an OpenAI-compatible model. The server
// answers by response_format.json_schema.name, so these tests see the
// stage names exactly as they go over the wire.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/blocks/sandbox/jsrun"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/thinker"
	"github.com/hashicorp/hcl/v2"
)

// The only names a stage's json_schema may have.
var contractStages = []string{"clarify", "decompose", "create_block", "wire", "repair"}

// The event types of --json, in the order the table lists them.
var contractEvents = []string{
	"stage", "llm_request", "llm_response", "decompose_blocks", "search_found",
	"search_missing", "creating_block", "block_test_passed", "block_test_failed",
	"block_created", "wired", "compile_failed", "repaired", "usage", "complete", "error",
}

// eventName maps the thinker's Go events to the documented event names, as the
// package documents them (Failed is the JSON event "error"). The JSON
// rendering itself lives in the CLI and cannot be reached from here.
func eventName(t *testing.T, e thinker.Event) string {
	t.Helper()
	switch e.(type) {
	case thinker.StageStarted:
		return "stage"
	case thinker.LLMRequest:
		return "llm_request"
	case thinker.LLMResponse:
		return "llm_response"
	case thinker.DecomposeBlocks:
		return "decompose_blocks"
	case thinker.SearchFound:
		return "search_found"
	case thinker.SearchMissing:
		return "search_missing"
	case thinker.CreatingBlock:
		return "creating_block"
	case thinker.BlockTestPassed:
		return "block_test_passed"
	case thinker.BlockTestFailed:
		return "block_test_failed"
	case thinker.BlockCreated:
		return "block_created"
	case thinker.Wired:
		return "wired"
	case thinker.CompileFailed:
		return "compile_failed"
	case thinker.Repaired:
		return "repaired"
	case thinker.UsageReported:
		return "usage"
	case thinker.Complete:
		return "complete"
	case thinker.Failed:
		return "error"
	}
	t.Errorf("event %T is not one of the documented events", e)
	return fmt.Sprintf("%T", e)
}

// sent is one chat completions request as the server saw it.
type sent struct {
	Format string         // response_format.type
	Name   string         // response_format.json_schema.name
	Strict bool           // response_format.json_schema.strict
	Schema map[string]any // response_format.json_schema.schema
}

// fakeModel is an OpenAI-compatible server with a queue of replies per
// stage, chosen by the json_schema name of each request.
type fakeModel struct {
	t       *testing.T
	mu      sync.Mutex
	replies map[string][]string
	got     []sent
	srv     *httptest.Server
}

func newFakeModel(t *testing.T, replies map[string][]string) *fakeModel {
	t.Helper()
	f := &fakeModel{t: t, replies: replies}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeModel) serve(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	var req struct {
		ResponseFormat *struct {
			Type       string `json:"type"`
			JSONSchema *struct {
				Name   string         `json:"name"`
				Strict bool           `json:"strict"`
				Schema map[string]any `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":{"message":"unreadable request"}}`, http.StatusBadRequest)
		return
	}
	var s sent
	if rf := req.ResponseFormat; rf != nil {
		s.Format = rf.Type
		if js := rf.JSONSchema; js != nil {
			s.Name, s.Strict, s.Schema = js.Name, js.Strict, js.Schema
		}
	}
	f.mu.Lock()
	f.got = append(f.got, s)
	queue := f.replies[s.Name]
	var reply string
	ok := len(queue) > 0
	if ok {
		reply, f.replies[s.Name] = queue[0], queue[1:]
	}
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if !ok {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"message":%q}}`, "the test has no reply left for "+s.Name)
		return
	}
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": "test-model",
		"choices": []any{map[string]any{
			"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": reply},
		}},
		"usage": map[string]any{"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10},
	})
}

func (f *fakeModel) requests() []sent {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.got)
}

func (f *fakeModel) executor() *llm.Executor {
	return llm.NewExecutor(llm.Config{BaseURL: f.srv.URL + "/v1", Model: "test-model", MaxRetries: -1})
}

// Replies in the documented shapes.
const (
	replyClarify = `{"ready": true, "question": "", "refined_intent": "Count the words of notes.txt"}`

	// read_notes is served by the file built-in; count_words is missing.
	replyDecompose = `{"blocks": [
	  {"id": "read_notes", "description": "Read a local text file", "runtime": "go",
	   "inputs": [{"name": "path", "type": "string", "description": "The file"}],
	   "outputs": [{"name": "text", "type": "string", "description": "Its text"}]},
	  {"id": "count_words", "description": "Count the words of a text", "runtime": "js",
	   "inputs": [{"name": "text", "type": "string", "description": "The text"}],
	   "outputs": [{"name": "count", "type": "number", "description": "How many words"}]}]}`

	// The first try's example expects the wrong count.
	replyCreateWrong = `{"id": "count_words", "description": "Count the words of a text", "runtime": "js",
	  "source": "function execute(input) { return { count: input.text.split(/\\s+/).filter(w => w).length } }",
	  "prompt": null,
	  "inputs": [{"name": "text", "type": "string", "description": "The text"}],
	  "outputs": [{"name": "count", "type": "number", "description": "How many words"}],
	  "example": {"input": {"text": "one two three"}, "output": {"count": 4}}}`
	// The shape has "source" or "prompt": this reply gives source alone.
	replyCreateRight = `{"id": "count_words", "description": "Count the words of a text", "runtime": "js",
	  "source": "function execute(input) { return { count: input.text.split(/\\s+/).filter(w => w).length } }",
	  "inputs": [{"name": "text", "type": "string", "description": "The text"}],
	  "outputs": [{"name": "count", "type": "number", "description": "How many words"}],
	  "example": {"input": {"text": "one two three"}, "output": {"count": 3}}}`
)

// replyWire is a wire or repair reply; countText is the expression given
// to count_words' text input (step.read is an object: a type error).
func replyWire(countText string) string {
	return fmt.Sprintf(`{"name": "note_words", "description": "Count the words of a notes file",
	  "inputs": [{"name": "path", "type": "string", "description": "The notes", "default": "notes.txt"}],
	  "steps": [
	    {"name": "read", "use": "file", "args": {"path": "input.path"}, "depends_on": []},
	    {"name": "count", "use": "count_words", "args": {"text": %q}, "depends_on": []}],
	  "outputs": [{"name": "count", "value": "step.count.count"}]}`, countText)
}

// outcome is what one Think call did: its result and error, the events
// it emitted, and the directory it worked in.
type outcome struct {
	res    *thinker.Result
	err    error
	events []thinker.Event
	dir    string
}

// think runs the thinker in a fresh directory.
func think(t *testing.T, m *fakeModel, opts thinker.Options) outcome {
	t.Helper()
	dir := t.TempDir()
	var mu sync.Mutex
	var events []thinker.Event
	opts.Intent = "Count the words of notes.txt"
	opts.Model = m.executor()
	opts.Dir = dir
	opts.Executors = &blocks.Executors{
		Builtins: blocks.BuiltinExecutors(),
		Runtimes: map[string]blocks.Executor{lang.RuntimeJS: jsrun.NewExecutor()},
	}
	opts.ExampleTimeout = 5 * time.Second
	opts.Observe = func(e thinker.Event) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, e)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := thinker.Think(ctx, opts)
	return outcome{res, err, events, dir}
}

// flowFiles lists the *.flow.hcl files under dir, and any temporary
// files left behind.
func flowFiles(t *testing.T, dir string) (flows, temps []string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case strings.HasSuffix(p, ".flow.hcl"):
			flows = append(flows, rel)
		case strings.HasSuffix(p, ".tmp"):
			temps = append(temps, rel)
		}
		return nil
	})
	return flows, temps
}

// compileErrors compiles a written flow file as validate does and
// returns its errors.
func compileErrors(t *testing.T, path string) []string {
	t.Helper()
	_, diags := compiler.Compile(path, compiler.Options{})
	var errs []string
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			errs = append(errs, d.Summary+": "+d.Detail)
		}
	}
	return errs
}

// props returns the property names of an object schema and its required
// list, failing when the schema is no object schema.
func props(t *testing.T, where string, schema any) (properties, required []string) {
	t.Helper()
	s, ok := schema.(map[string]any)
	if !ok {
		t.Fatalf("%s: the schema is %T, not an object schema", where, schema)
	}
	p, _ := s["properties"].(map[string]any)
	for k := range p {
		properties = append(properties, k)
	}
	sort.Strings(properties)
	r, _ := s["required"].([]any)
	for _, k := range r {
		required = append(required, fmt.Sprint(k))
	}
	sort.Strings(required)
	return properties, required
}

// wantKeys checks that an object schema has exactly the documented keys as its
// properties and that each is required (strict structured outputs).
func wantKeys(t *testing.T, where string, schema any, keys ...string) {
	t.Helper()
	sort.Strings(keys)
	p, r := props(t, where, schema)
	if !reflect.DeepEqual(p, keys) {
		t.Errorf("%s: properties %v, want the documented keys %v", where, p, keys)
	}
	if !reflect.DeepEqual(r, keys) {
		t.Errorf("%s: required %v, want %v", where, r, keys)
	}
}

func prop(t *testing.T, where string, schema any, name string) any {
	t.Helper()
	s, _ := schema.(map[string]any)
	p, _ := s["properties"].(map[string]any)
	v, ok := p[name]
	if !ok {
		t.Fatalf("%s: no property %q", where, name)
	}
	return v
}

func items(t *testing.T, where string, schema any) any {
	t.Helper()
	s, _ := schema.(map[string]any)
	if s["type"] != "array" {
		t.Fatalf("%s: type %v, want array", where, s["type"])
	}
	return s["items"]
}

// checkSchema checks the schema a stage sent against the documented reply shape
// gives for that stage.
func checkSchema(t *testing.T, r sent) {
	t.Helper()
	s := r.Schema
	if s == nil {
		t.Errorf("%s: no schema was sent", r.Name)
		return
	}
	field := func(where string, sch any) { wantKeys(t, where, sch, "name", "type", "description") }
	switch r.Name {
	case "clarify":
		wantKeys(t, "clarify", s, "ready", "question", "refined_intent")
	case "decompose":
		wantKeys(t, "decompose", s, "blocks")
		b := items(t, "decompose.blocks", prop(t, "decompose", s, "blocks"))
		wantKeys(t, "decompose.blocks[]", b, "id", "description", "runtime", "inputs", "outputs")
		rt, _ := prop(t, "decompose.blocks[]", b, "runtime").(map[string]any)
		if got := fmt.Sprint(rt["enum"]); got != "[go js python llm]" {
			t.Errorf("decompose.blocks[].runtime: enum %s, want [go js python llm]", got)
		}
		field("decompose.blocks[].inputs[]", items(t, "inputs", prop(t, "decompose.blocks[]", b, "inputs")))
		field("decompose.blocks[].outputs[]", items(t, "outputs", prop(t, "decompose.blocks[]", b, "outputs")))
	case "create_block":
		wantKeys(t, "create_block", s, "id", "description", "runtime", "source", "prompt", "inputs", "outputs", "example")
		wantKeys(t, "create_block.example", prop(t, "create_block", s, "example"), "input", "output")
		field("create_block.inputs[]", items(t, "inputs", prop(t, "create_block", s, "inputs")))
		field("create_block.outputs[]", items(t, "outputs", prop(t, "create_block", s, "outputs")))
	case "wire", "repair":
		wantKeys(t, r.Name, s, "name", "description", "inputs", "secrets", "memory", "steps", "outputs", "schedules")
		wantKeys(t, r.Name+".secrets[]", items(t, "secrets", prop(t, r.Name, s, "secrets")), "name", "description")
		wantKeys(t, r.Name+".memory[]", items(t, "memory", prop(t, r.Name, s, "memory")), "name", "type", "default", "value", "description")
		wantKeys(t, r.Name+".schedules[]", items(t, "schedules", prop(t, r.Name, s, "schedules")), "name", "cron", "timezone", "inputs")
		wantKeys(t, r.Name+".inputs[]", items(t, "inputs", prop(t, r.Name, s, "inputs")), "name", "type", "description", "default")
		wantKeys(t, r.Name+".outputs[]", items(t, "outputs", prop(t, r.Name, s, "outputs")), "name", "value")
		step := items(t, "steps", prop(t, r.Name, s, "steps"))
		variants := []any{step}
		if m, ok := step.(map[string]any); ok {
			if alts, ok := m["anyOf"].([]any); ok {
				variants = alts
			}
		}
		uses := map[string]bool{}
		for i, v := range variants {
			where := fmt.Sprintf("%s.steps[] variant %d", r.Name, i)
			wantKeys(t, where, v, "name", "use", "args", "depends_on", "retry", "timeout", "on_error")
			u, _ := prop(t, where, v, "use").(map[string]any)
			for _, e := range u["enum"].([]any) {
				uses[fmt.Sprint(e)] = true
			}
		}
		for _, b := range []string{"file", "count_words"} {
			if !uses[b] {
				t.Errorf("%s: the steps' schema does not offer block %q (offers %v)", r.Name, b, uses)
			}
		}
	default:
		t.Errorf("a request was sent with json_schema name %q, which is not a thinker stage", r.Name)
	}
}

// TestContractFullRun runs every stage once or more: clarify, decompose,
// search (one block found, one missing), create_block (a failing example,
// then a passing one), wire (a type error) and repair.
func TestContractFullRun(t *testing.T) {
	m := newFakeModel(t, map[string][]string{
		"clarify":      {replyClarify},
		"decompose":    {replyDecompose},
		"create_block": {replyCreateWrong, replyCreateRight},
		"wire":         {replyWire("step.read")},
		"repair":       {replyWire("step.read.text")},
	})
	o := think(t, m, thinker.Options{})
	res, err, events, dir := o.res, o.err, o.events, o.dir
	if err != nil {
		t.Fatalf("Think: %v", err)
	}

	// The stage names on the wire.
	reqs := m.requests()
	var names []string
	for _, r := range reqs {
		if r.Format != "json_schema" {
			t.Errorf("%s: response_format.type %q, want json_schema", r.Name, r.Format)
		}
		if !slices.Contains(contractStages, r.Name) {
			t.Errorf("json_schema.name %q is not one of the thinker stages %v", r.Name, contractStages)
		}
		checkSchema(t, r)
		names = append(names, r.Name)
	}
	wantNames := []string{"clarify", "decompose", "create_block", "create_block", "wire", "repair"}
	if !slices.Equal(names, wantNames) {
		t.Errorf("json_schema names sent: %v, want %v", names, wantNames)
	}

	// The events.
	seen := map[string]int{}
	var order []string
	stages := map[string]bool{}
	var llmStages []string
	for _, e := range events {
		n := eventName(t, e)
		seen[n]++
		order = append(order, n)
		switch e := e.(type) {
		case thinker.StageStarted:
			stages[e.Stage] = true
		case thinker.LLMRequest:
			llmStages = append(llmStages, e.Stage)
		}
	}
	for _, n := range contractEvents {
		if n == "error" {
			if seen[n] > 0 {
				t.Errorf("a successful run emitted %d error events", seen[n])
			}
			continue
		}
		if seen[n] == 0 {
			t.Errorf("event %q was not emitted; got %v", n, order)
		}
	}
	for n := range seen {
		if !slices.Contains(contractEvents, n) {
			t.Errorf("event %q is not a documented event", n)
		}
	}
	if len(order) == 0 || order[len(order)-1] != "complete" {
		t.Errorf("the last event is not complete: %v", order)
	}
	wantStages := map[string]bool{"clarify": true, "decompose": true, "search": true, "create_block": true, "wire": true, "repair": true}
	if !reflect.DeepEqual(stages, wantStages) {
		t.Errorf("stage events named %v, want %v", stages, wantStages)
	}
	if !slices.Equal(llmStages, wantNames) {
		t.Errorf("llm_request stages %v, want those sent %v", llmStages, wantNames)
	}

	// Found, created, repaired.
	var complete thinker.Complete
	for _, e := range events {
		switch e := e.(type) {
		case thinker.Complete:
			complete = e
		case thinker.SearchFound:
			if e.Block != "read_notes" || e.Found != "file" {
				t.Errorf("search_found %s → %s, want read_notes → file", e.Block, e.Found)
			}
		case thinker.SearchMissing:
			if e.Block != "count_words" {
				t.Errorf("search_missing %s, want count_words", e.Block)
			}
		case thinker.BlockTestFailed:
			if e.Phase != thinker.PhaseExample || e.Try != 1 {
				t.Errorf("block_test_failed phase %q try %d, want example, 1", e.Phase, e.Try)
			}
		case thinker.CompileFailed:
			if e.Try != 0 {
				t.Errorf("compile_failed try %d, want 0 (the wire reply)", e.Try)
			}
		case thinker.Repaired:
			if e.Try != 1 {
				t.Errorf("repaired try %d, want 1", e.Try)
			}
		}
	}
	if !complete.Valid || !reflect.DeepEqual(complete.BlocksFound, map[string]string{"read_notes": "file"}) ||
		!reflect.DeepEqual(complete.BlocksCreated, map[string]string{"count_words": "count_words"}) {
		t.Errorf("complete: valid %v, found %v, created %v", complete.Valid, complete.BlocksFound, complete.BlocksCreated)
	}

	// The files: the flow validates, the created block is in blocks/.
	if !res.Valid || res.File == "" {
		t.Fatalf("result: valid %v, file %q", res.Valid, res.File)
	}
	if errs := compileErrors(t, res.File); len(errs) > 0 {
		t.Errorf("the written flow %s does not validate: %v", res.File, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "blocks", "count_words.block.hcl")); err != nil {
		t.Errorf("the created block was not written: %v", err)
	}
	flows, temps := flowFiles(t, dir)
	if !slices.Equal(flows, []string{"note_words.flow.hcl"}) || len(temps) > 0 {
		t.Errorf("files: flows %v, temporary files %v; want only note_words.flow.hcl", flows, temps)
	}
}

// TestContractNoFlowUnlessValid: a flow that still has errors after the
// repairs is not written, and the run ends with an error event; --force
// writes it, and says it does not validate.
func TestContractNoFlowUnlessValid(t *testing.T) {
	bad := replyWire("step.read")
	replies := func() map[string][]string {
		return map[string][]string{
			"decompose":    {replyDecompose},
			"create_block": {replyCreateRight},
			"wire":         {bad},
			"repair":       {bad, bad, bad},
		}
	}

	t.Run("not written", func(t *testing.T) {
		m := newFakeModel(t, replies())
		o := think(t, m, thinker.Options{NoClarify: true})
		res, err, events, dir := o.res, o.err, o.events, o.dir
		var te *thinker.Error
		if !errors.As(err, &te) || te.Stage != "repair" {
			t.Fatalf("Think: %v, want a *thinker.Error of stage repair", err)
		}
		if res.File != "" || res.Valid {
			t.Errorf("result: file %q, valid %v; want no file", res.File, res.Valid)
		}
		if flows, temps := flowFiles(t, dir); len(flows)+len(temps) > 0 {
			t.Errorf("files were written: flows %v, temporary %v", flows, temps)
		}
		if n := len(events); n == 0 || eventName(t, events[n-1]) != "error" {
			t.Fatalf("the last event is not error")
		}
		for _, e := range events {
			if _, ok := e.(thinker.Complete); ok {
				t.Errorf("complete was emitted for a flow that was not written")
			}
		}
		if f := events[len(events)-1].(thinker.Failed); f.Stage != "repair" || len(f.Diagnostics) == 0 {
			t.Errorf("error event: stage %q, %d diagnostics; want repair with the flow's diagnostics", f.Stage, len(f.Diagnostics))
		}
		repairs := 0
		for _, r := range m.requests() {
			if r.Name == "repair" {
				repairs++
			}
		}
		if repairs != thinker.MaxRepairs || thinker.MaxRepairs != 3 {
			t.Errorf("%d repair requests (MaxRepairs %d), want 3", repairs, thinker.MaxRepairs)
		}
	})

	t.Run("force", func(t *testing.T) {
		m := newFakeModel(t, replies())
		o := think(t, m, thinker.Options{NoClarify: true, Force: true})
		res, err, events := o.res, o.err, o.events
		if err == nil {
			t.Fatalf("Think with Force wrote an invalid flow without an error")
		}
		if res.File == "" || res.Valid {
			t.Fatalf("result: file %q, valid %v; want the file, not valid", res.File, res.Valid)
		}
		if errs := compileErrors(t, res.File); len(errs) == 0 {
			t.Errorf("the forced flow validates, but the thinker said it does not")
		}
		c, ok := events[len(events)-1].(thinker.Complete)
		if !ok || c.Valid {
			t.Errorf("the last event is %T (valid %v), want complete with valid false", events[len(events)-1], c.Valid)
		}
	})
}

// TestContractMalformedReplies: a reply that lacks the stage's shape ends
// the run with an error naming the stage, and writes nothing.
func TestContractMalformedReplies(t *testing.T) {
	for _, tc := range []struct {
		name, stage string
		replies     map[string][]string
	}{
		{"decompose without runtime", "decompose", map[string][]string{
			"decompose": {`{"blocks": [{"id": "count_words", "description": "d",
			  "inputs": [{"name": "text", "type": "string", "description": ""}],
			  "outputs": [{"name": "count", "type": "number", "description": ""}]}]}`},
		}},
		{"decompose blocks not a list", "decompose", map[string][]string{
			"decompose": {`{"blocks": "count_words"}`},
		}},
		{"clarify in prose", "clarify", map[string][]string{
			"clarify": {`I think the intent is clear enough.`},
		}},
		{"wire without steps", "wire", map[string][]string{
			"decompose": {`{"blocks": [{"id": "read_notes", "description": "Read a local text file", "runtime": "go",
			  "inputs": [{"name": "path", "type": "string", "description": ""}],
			  "outputs": [{"name": "text", "type": "string", "description": ""}]}]}`},
			"wire": {`{"name": "x", "description": "", "inputs": [], "outputs": []}`},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newFakeModel(t, tc.replies)
			o := think(t, m, thinker.Options{NoClarify: tc.stage != "clarify"})
			res, err, events, dir := o.res, o.err, o.events, o.dir
			var te *thinker.Error
			if !errors.As(err, &te) || te.Stage != tc.stage || !strings.Contains(te.Msg, "malformed") {
				t.Fatalf("Think: %v; want a malformed-reply error of stage %s", err, tc.stage)
			}
			if res.File != "" {
				t.Errorf("a flow was written: %s", res.File)
			}
			if flows, temps := flowFiles(t, dir); len(flows)+len(temps) > 0 {
				t.Errorf("files were written: %v %v", flows, temps)
			}
			f, ok := events[len(events)-1].(thinker.Failed)
			if !ok || f.Stage != tc.stage {
				t.Errorf("the last event is %T %+v, want error of stage %s", events[len(events)-1], f, tc.stage)
			}
		})
	}
}
