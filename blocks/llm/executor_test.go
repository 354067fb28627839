package llm

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

var bulletsField = outField("bullets", cty.List(cty.String))

func TestPlainCompletion(t *testing.T) {
	s := newServer(t, ok("Hello there"))
	e := NewExecutor(testConfig(s))
	call := builtinCall(t, "Say hello")
	call.Inputs["system"] = cty.StringVal("Be brief")
	call.Inputs["temperature"] = cty.NumberFloatVal(0)
	call.Inputs["max_tokens"] = cty.NumberIntVal(20)
	res, err := e.Execute(testCtx(t), call)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Outputs["text"]; !got.RawEquals(cty.StringVal("Hello there")) {
		t.Errorf("text = %#v", got)
	}
	if *res.Usage != (blocks.Usage{PromptTokens: 10, CompletionTokens: 5, TotalTokens: 15, Unpriced: 1, Calls: 1}) {
		t.Errorf("usage = %+v", *res.Usage)
	}
	if got := res.Outputs["usage"].GetAttr("total_tokens"); !got.RawEquals(cty.NumberIntVal(15)) {
		t.Errorf("usage output total_tokens = %#v", got)
	}
	reqs := s.recorded()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if want := [][2]string{{"system", "Be brief"}, {"user", "Say hello"}}; !equalMessages(messages(r), want) {
		t.Errorf("messages = %q, want %q", messages(r), want)
	}
	if _, has := r.body["response_format"]; has {
		t.Errorf("a plain call sent response_format: %s", r.raw)
	}
	if r.body["model"] != "test-model" || r.body["max_tokens"] != 20.0 {
		t.Errorf("model or max_tokens wrong: %s", r.raw)
	}
	// A temperature of 0 must reach the server as 0, not be dropped.
	if temp, has := r.body["temperature"].(float64); !has || temp != 0 {
		t.Errorf("temperature = %v, want 0: %s", r.body["temperature"], r.raw)
	}
	if got := r.header.Get("Authorization"); got != "Bearer sk-test-key-0123456789" {
		t.Errorf("Authorization = %q", got)
	}
}

func equalMessages(a, b [][2]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestStructuredOutput(t *testing.T) {
	s := newServer(t, ok(`{"bullets": ["a", "b", "c"], "count": 3}`))
	e := NewExecutor(testConfig(s))
	count := outField("count", cty.Number)
	count.Description = "how many bullets"
	res, err := e.Execute(testCtx(t), builtinCall(t, "Summarize", bulletsField, count))
	if err != nil {
		t.Fatal(err)
	}
	want := cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b"), cty.StringVal("c")})
	if got := res.Outputs["bullets"]; !got.RawEquals(want) {
		t.Errorf("bullets = %#v", got)
	}
	if got := res.Outputs["count"]; !got.RawEquals(cty.NumberIntVal(3)) {
		t.Errorf("count = %#v", got)
	}
	if got := res.Outputs["text"].AsString(); got != `{"bullets": ["a", "b", "c"], "count": 3}` {
		t.Errorf("text = %q", got)
	}
	reqs := s.recorded()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	f := responseFormat(reqs[0])
	if f["type"] != "json_schema" {
		t.Fatalf("response_format = %v", f)
	}
	js := f["json_schema"].(map[string]any)
	if js["name"] != "llm" || js["strict"] != true {
		t.Errorf("json_schema name/strict = %v/%v", js["name"], js["strict"])
	}
	got, _ := json.Marshal(js["schema"])
	wantSchema := `{"additionalProperties":false,"properties":{"bullets":{"items":{"type":"string"},"type":"array"},"count":{"description":"how many bullets","type":"number"}},"required":["bullets","count"],"type":"object"}`
	if string(got) != wantSchema {
		t.Errorf("schema =\n%s\nwant\n%s", got, wantSchema)
	}
	// The schema lists the properties in the order the fields were
	// declared.
	if i, j := strings.Index(reqs[0].raw, `"bullets":{`), strings.Index(reqs[0].raw, `"count":{`); i < 0 || j < i {
		t.Errorf("properties out of declaration order: %s", reqs[0].raw)
	}
}

// Replies that are not bare JSON are still understood, in one request.
func TestLenientReplies(t *testing.T) {
	tests := []struct{ name, reply string }{
		{"fenced", "```json\n{\"bullets\": [\"a\", \"b\"]}\n```"},
		{"bare fence", "```\n{\"bullets\": [\"a\", \"b\"]}\n```"},
		{"prose around", "Sure! Here is the summary {as asked}:\n{\"bullets\": [\"a\", \"b\"]}\nLet me know if you need more."},
		{"trailing commas", "{\"bullets\": [\"a\", \"b\",],}"},
		{"braces in strings", "{\"bullets\": [\"a\", \"b\"], \"note\": \"} not the end {\"}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t, ok(tt.reply))
			res, err := NewExecutor(testConfig(s)).Execute(testCtx(t), builtinCall(t, "Summarize", bulletsField))
			if err != nil {
				t.Fatal(err)
			}
			want := cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")})
			if got := res.Outputs["bullets"]; !got.RawEquals(want) {
				t.Errorf("bullets = %#v", got)
			}
			if got := res.Outputs["text"].AsString(); got != tt.reply {
				t.Errorf("text = %q, want the raw reply", got)
			}
			if n := len(s.recorded()); n != 1 {
				t.Errorf("%d requests, want 1", n)
			}
		})
	}
}

func TestReaskOnMismatch(t *testing.T) {
	first := `{"bullets": ["a", {"x": 1}]}`
	s := newServer(t, ok(first), ok(`{"bullets": ["a", "b"]}`))
	res, err := NewExecutor(testConfig(s)).Execute(testCtx(t), builtinCall(t, "Summarize", bulletsField))
	if err != nil {
		t.Fatal(err)
	}
	want := cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")})
	if got := res.Outputs["bullets"]; !got.RawEquals(want) {
		t.Errorf("bullets = %#v", got)
	}
	if res.Usage.TotalTokens != 30 || res.Usage.PromptTokens != 20 || res.Usage.CompletionTokens != 10 {
		t.Errorf("usage = %+v, want the sum of both round trips", *res.Usage)
	}
	reqs := s.recorded()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	msgs := messages(reqs[1])
	wantMsgs := [][2]string{
		{"user", "Summarize"},
		{"assistant", first},
		{"user", "Your reply could not be used: .bullets[1]: a string is required, not an object. Reply with only the corrected JSON object, with no other text."},
	}
	if !equalMessages(msgs, wantMsgs) {
		t.Errorf("second request's messages =\n%q\nwant\n%q", msgs, wantMsgs)
	}
}

func TestPermanentlyWrong(t *testing.T) {
	s := newServer(t, ok(`{"bullets": 3}`))
	res, err := NewExecutor(testConfig(s)).Execute(testCtx(t), builtinCall(t, "Summarize", bulletsField))
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"after 3 tries", ".bullets: a list is required, not the number 3"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not contain %q", err, want)
		}
	}
	if n := len(s.recorded()); n != 3 {
		t.Errorf("%d requests, want 3", n)
	}
	if res == nil || res.Usage == nil || res.Usage.TotalTokens != 45 {
		t.Errorf("result = %+v, want the usage of 3 round trips (45 tokens)", res)
	}
}

func TestReaskOnUnparsableReply(t *testing.T) {
	s := newServer(t, ok("I cannot decide."), ok(`{"bullets": ["x"]}`))
	if _, err := NewExecutor(testConfig(s)).Execute(testCtx(t), builtinCall(t, "Summarize", bulletsField)); err != nil {
		t.Fatal(err)
	}
	reqs := s.recorded()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if last := messages(reqs[1])[2][1]; !strings.Contains(last, "the reply has no JSON object") {
		t.Errorf("re-ask = %q", last)
	}
}

func TestSchemaRejectedFallsBackToJSONMode(t *testing.T) {
	s := newServer(t,
		fail(400, "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."),
		ok(`{"bullets": ["a"]}`))
	e := NewExecutor(testConfig(s))
	call := builtinCall(t, "Summarize", bulletsField)
	call.Inputs["system"] = cty.StringVal("You are terse.")
	if _, err := e.Execute(testCtx(t), call); err != nil {
		t.Fatal(err)
	}
	reqs := s.recorded()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if f := responseFormat(reqs[0]); f["type"] != "json_schema" {
		t.Errorf("first response_format = %v", f)
	}
	if f := responseFormat(reqs[1]); f["type"] != "json_object" || f["json_schema"] != nil {
		t.Errorf("second response_format = %v, want json_object", f)
	}
	sys := messages(reqs[1])[0]
	if sys[0] != "system" || !strings.HasPrefix(sys[1], "You are terse.\n\n") ||
		!strings.Contains(sys[1], "Reply with only a JSON object") ||
		!strings.Contains(sys[1], `"required":["bullets"]`) {
		t.Errorf("second system message = %q, want the step's system, the instruction and the schema", sys)
	}

	// The executor remembers: later calls use JSON mode from the start.
	if _, err := e.Execute(testCtx(t), builtinCall(t, "Again", bulletsField)); err != nil {
		t.Fatal(err)
	}
	reqs = s.recorded()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	if f := responseFormat(reqs[2]); f["type"] != "json_object" {
		t.Errorf("third response_format = %v, want json_object", f)
	}
}

func TestSchema422FallsBack(t *testing.T) {
	s := newServer(t, fail(422, "value is not a valid enumeration member"), ok(`{"bullets": []}`))
	if _, err := NewExecutor(testConfig(s)).Execute(testCtx(t), builtinCall(t, "Summarize", bulletsField)); err != nil {
		t.Fatal(err)
	}
	if reqs := s.recorded(); len(reqs) != 2 || responseFormat(reqs[1])["type"] != "json_object" {
		t.Errorf("requests: %d, want a second in JSON mode", len(reqs))
	}
}

func TestConcurrencyLimit(t *testing.T) {
	s := newServer(t, ok("hi"))
	s.delay = 100 * time.Millisecond
	cfg := testConfig(s)
	cfg.Concurrency = 5
	e := NewExecutor(cfg)
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for range 20 {
		wg.Go(func() {
			_, err := e.Execute(testCtx(t), builtinCall(t, "hi"))
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := len(s.recorded()); n != 20 {
		t.Errorf("%d requests, want 20", n)
	}
	if got := s.maxInFlight.Load(); got != 5 {
		t.Errorf("at most %d requests were in flight, want 5", got)
	}
}

func TestUserBlockTemplates(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "style.txt"), []byte("Write plainly."), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "summarize.block.hcl")
	parse := func(src string) hcl.Expression {
		expr, diags := hclsyntax.ParseTemplate([]byte(src), file, hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		return expr
	}
	temp := 0.3
	def := &lang.BlockDef{
		Name:    "summarize",
		Runtime: lang.RuntimeLLM,
		Inputs: []*lang.Field{
			{Name: "topic", Type: lang.TypeSpec{Type: cty.String}},
			{Name: "n", Type: lang.TypeSpec{Type: cty.Number}},
		},
		Outputs:     []*lang.Field{outField("points", cty.List(cty.String))},
		Prompt:      parse(`Summarize ${upper(input.topic)} in ${input.n} points.`),
		System:      parse(`${file("style.txt")}`),
		Model:       "block-model",
		Temperature: &temp,
		MaxTokens:   64,
	}
	b, diags := blocks.FromDef(def)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	s := newServer(t, ok(`{"points": ["one", "two"]}`))
	var touched []string
	call := &blocks.Call{
		Block:   b,
		Inputs:  map[string]cty.Value{"topic": cty.StringVal("go"), "n": cty.NumberIntVal(2)},
		Outputs: b.Outputs,
		Touch:   func(p string) { touched = append(touched, p) },
	}
	res, err := NewExecutor(testConfig(s)).Execute(testCtx(t), call)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Outputs["points"]; !got.RawEquals(cty.ListVal([]cty.Value{cty.StringVal("one"), cty.StringVal("two")})) {
		t.Errorf("points = %#v", got)
	}
	r := s.recorded()[0]
	if want := [][2]string{{"system", "Write plainly."}, {"user", "Summarize GO in 2 points."}}; !equalMessages(messages(r), want) {
		t.Errorf("messages = %q, want %q", messages(r), want)
	}
	if r.body["model"] != "block-model" || r.body["max_tokens"] != 64.0 {
		t.Errorf("model/max_tokens wrong: %s", r.raw)
	}
	if temp, _ := r.body["temperature"].(float64); temp < 0.299 || temp > 0.301 {
		t.Errorf("temperature = %v", r.body["temperature"])
	}
	if js := responseFormat(r)["json_schema"].(map[string]any); js["name"] != "summarize" {
		t.Errorf("schema name = %v", js["name"])
	}
	if len(touched) != 1 || touched[0] != filepath.Join(dir, "style.txt") {
		t.Errorf("touched = %q", touched)
	}

	// A template that fails says which block and template.
	call.Inputs["topic"] = cty.NullVal(cty.String)
	_, err = NewExecutor(testConfig(s)).Execute(testCtx(t), call)
	if err == nil || !strings.Contains(err.Error(), `the prompt template of block "summarize"`) {
		t.Errorf("error = %v", err)
	}
}

func TestPromptLog(t *testing.T) {
	const secret = "hunter2-secret"
	s := newServer(t, fail(500, "overloaded"), ok(`the password is `+secret))
	var buf bytes.Buffer
	cfg := testConfig(s)
	cfg.LogPrompts = &buf
	e := NewExecutor(cfg)
	call := builtinCall(t, "Use the password "+secret+" to log in")
	call.Inputs["temperature"] = cty.NumberFloatVal(0.5)
	call.Redact = func(s string) string { return strings.ReplaceAll(s, secret, "(sensitive)") }
	res, err := e.Execute(testCtx(t), call)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Outputs["text"].AsString(), secret) {
		t.Errorf("the step's own output must keep the real value")
	}
	if strings.Contains(buf.String(), secret) || strings.Contains(buf.String(), cfg.APIKey) {
		t.Fatalf("the log shows a secret:\n%s", buf.String())
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d log lines, want 2 (a failed try and a success):\n%s", len(lines), buf.String())
	}
	var failed, good map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &failed); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(lines[1]), &good); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"time", "step", "model", "request", "response", "duration_ms", "usage", "error"} {
		if _, has := good[key]; !has {
			t.Errorf("log line has no %q: %s", key, lines[1])
		}
	}
	if good["step"] != "summary" || good["model"] != "test-model" || good["response"] != "the password is (sensitive)" || good["error"] != nil {
		t.Errorf("success line = %s", lines[1])
	}
	req := good["request"].(map[string]any)
	msg := req["messages"].([]any)[0].(map[string]any)
	if msg["content"] != "Use the password (sensitive) to log in" || req["temperature"] != 0.5 || req["max_tokens"] != nil {
		t.Errorf("request = %v", req)
	}
	if u := good["usage"].(map[string]any); u["total_tokens"] != 15.0 {
		t.Errorf("usage = %v", u)
	}
	if failed["response"] != nil || !strings.Contains(failed["error"].(string), "500") {
		t.Errorf("failure line = %s", lines[0])
	}
}

func TestCacheKeyNamesTheModel(t *testing.T) {
	e := NewExecutor(Config{Model: "default-model"})
	call := builtinCall(t, "x")
	if k, _ := e.CacheKey(call); k != "model=default-model" {
		t.Errorf("key = %q", k)
	}
	call.Inputs["model"] = cty.StringVal("other")
	if k, _ := e.CacheKey(call); k != "model=other" {
		t.Errorf("key = %q", k)
	}
}

// TestNumericParamsExact: every numeric parameter reaches the server as
// the step gives it, at 0 and at its largest, in the request's body.
func TestNumericParamsExact(t *testing.T) {
	cases := []struct {
		name  string
		input string
		value cty.Value
		want  string // as the body's JSON has it
	}{
		{"temperature 0", "temperature", cty.NumberFloatVal(0), `"temperature":0`},
		{"temperature 2", "temperature", cty.NumberFloatVal(2), `"temperature":2`},
		{"temperature 0.7", "temperature", cty.NumberFloatVal(0.7), `"temperature":0.7`},
		{"max_tokens 1", "max_tokens", cty.NumberIntVal(1), `"max_tokens":1`},
		{"max_tokens 2^31-1", "max_tokens", cty.NumberIntVal(1<<31 - 1), `"max_tokens":2147483647`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newServer(t, ok("fine"))
			call := builtinCall(t, "Say hello")
			call.Inputs[c.input] = c.value
			if _, err := NewExecutor(testConfig(s)).Execute(testCtx(t), call); err != nil {
				t.Fatal(err)
			}
			reqs := s.recorded()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			if !strings.Contains(reqs[0].raw, c.want) {
				t.Errorf("the body lacks %s: %s", c.want, reqs[0].raw)
			}
		})
	}
}
