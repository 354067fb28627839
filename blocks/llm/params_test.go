package llm

import (
	"math"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
)

// TestMessagesSentAsWritten: the system message first, then the step's
// messages as written (a tool message with its call's id), then the
// prompt as the last user message.
func TestMessagesSentAsWritten(t *testing.T) {
	s := newServer(t, ok("fine"))
	e := NewExecutor(testConfig(s))
	call := builtinCall(t, "And now?")
	call.Inputs["system"] = cty.StringVal("You are terse.")
	call.Inputs["messages"] = cty.ListVal([]cty.Value{
		message("user", "Hi, I am Ann.", ""),
		message("assistant", "Hello Ann.", ""),
		message("tool", `{"weather":"rain"}`, "call_1"),
	})
	if _, err := e.Execute(testCtx(t), call); err != nil {
		t.Fatal(err)
	}
	got := messages(s.recorded()[0])
	want := [][2]string{{"system", "You are terse."}, {"user", "Hi, I am Ann."}, {"assistant", "Hello Ann."}, {"tool", `{"weather":"rain"}`}, {"user", "And now?"}}
	if len(got) != len(want) {
		t.Fatalf("messages %v; want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("message %d is %v; want %v", i, got[i], want[i])
		}
	}
	if !strings.Contains(s.recorded()[0].raw, `"tool_call_id":"call_1"`) {
		t.Errorf("the tool message lost its tool_call_id: %s", s.recorded()[0].raw)
	}

	// Messages alone: no empty prompt after them.
	call = builtinCall(t, "")
	call.Inputs["prompt"] = cty.NullVal(cty.String)
	call.Inputs["messages"] = cty.ListVal([]cty.Value{message("user", "Only this.", "")})
	if _, err := e.Execute(testCtx(t), call); err != nil {
		t.Fatal(err)
	}
	if got := messages(s.recorded()[1]); len(got) != 1 || got[0] != [2]string{"user", "Only this."} {
		t.Errorf("messages alone: %v", got)
	}

	// Neither: an error, and no request.
	call.Inputs["messages"] = cty.NullVal(blocks.MessagesType)
	if _, err := e.Execute(testCtx(t), call); err == nil || !strings.Contains(err.Error(), "set its prompt, or messages") {
		t.Errorf("no prompt and no messages: %v", err)
	}
	if n := len(s.recorded()); n != 2 {
		t.Errorf("%d requests; want 2", n)
	}
}

func message(role, content, id string) cty.Value {
	idv := cty.NullVal(cty.String)
	if id != "" {
		idv = cty.StringVal(id)
	}
	return cty.ObjectVal(map[string]cty.Value{"role": cty.StringVal(role), "content": cty.StringVal(content), "tool_call_id": idv})
}

// TestEnumReasked: a string output with an enum is sent in the schema,
// and a reply outside it is asked again with the problem.
func TestEnumReasked(t *testing.T) {
	s := newServer(t, ok(`{"label":"maybe"}`), ok(`{"label":"yes"}`))
	e := NewExecutor(testConfig(s))
	f := outField("label", cty.String)
	f.Enum = []string{"yes", "no"}
	res, err := e.Execute(testCtx(t), builtinCall(t, "Is it?", f))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Outputs["label"]; got != cty.StringVal("yes") {
		t.Errorf("label %#v", got)
	}
	reqs := s.recorded()
	if len(reqs) != 2 {
		t.Fatalf("%d requests; want 2 (one re-ask)", len(reqs))
	}
	if !strings.Contains(reqs[0].raw, `"label":{"type":"string","enum":["yes","no"]}`) {
		t.Errorf("the schema has no enum: %s", reqs[0].raw)
	}
	last := messages(reqs[1])
	if re := last[len(last)-1][1]; !strings.Contains(re, `.label: the string "maybe" is not one of "yes", "no"`) {
		t.Errorf("the re-ask says %q", re)
	}
}

// TestNumericParametersExact: temperature, top_p, seed and max_tokens
// reach the server exactly as written, at 0 (max_tokens at its least,
// 1) and at their largest; stop is sent as given.
func TestNumericParametersExact(t *testing.T) {
	s := newServer(t, ok("x"))
	e := NewExecutor(testConfig(s))
	for _, c := range []struct {
		temperature, topP float64
		seed              int64
		maxTokens         int64
		want              []string
	}{
		{0, 0, 0, 1, []string{`"temperature":0`, `"top_p":0`, `"seed":0`, `"max_tokens":1`}},
		{2, 1, math.MaxInt64, blocks.MaxTokensLimit, []string{`"temperature":2`, `"top_p":1`, `"seed":9223372036854775807`, `"max_tokens":2147483647`}},
		{0.7, 0.25, -1, 200, []string{`"temperature":0.7`, `"top_p":0.25`, `"seed":-1`, `"max_tokens":200`}},
	} {
		call := builtinCall(t, "p")
		call.Inputs["temperature"] = cty.NumberFloatVal(c.temperature)
		call.Inputs["top_p"] = cty.NumberFloatVal(c.topP)
		call.Inputs["seed"] = cty.NumberIntVal(c.seed)
		call.Inputs["max_tokens"] = cty.NumberIntVal(c.maxTokens)
		call.Inputs["stop"] = cty.ListVal([]cty.Value{cty.StringVal("\n\n"), cty.StringVal("END")})
		for name, v := range call.Inputs {
			if err := call.Block.CheckInput(name, v); err != nil {
				t.Errorf("%s = %#v: %v", name, v, err)
			}
		}
		if _, err := e.Execute(testCtx(t), call); err != nil {
			t.Fatal(err)
		}
		reqs := s.recorded()
		raw := reqs[len(reqs)-1].raw
		for _, w := range append(c.want, `"stop":["\n\n","END"]`) {
			if !strings.Contains(raw, w) {
				t.Errorf("the body has no %s: %s", w, raw)
			}
		}
	}
}

// TestBlockDefParametersExact: an llm block definition's temperature,
// top_p, seed and stop reach the server as written, zeros included.
func TestBlockDefParametersExact(t *testing.T) {
	src := `block "tone" {
  runtime     = "llm"
  prompt      = "Tone of: ${input.text}"
  temperature = 0
  top_p       = 0
  seed        = 0
  stop        = ["END"]
  input "text" {
    type = string
  }
}
`
	f, diags := lang.NewParser().ParseSource([]byte(src), "tone.block.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	defs, diags := lang.DecodeBlockFile(f)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	b, diags := blocks.FromDef(defs[0])
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	s := newServer(t, ok("calm"))
	call := &blocks.Call{Block: b, Inputs: map[string]cty.Value{"text": cty.StringVal("hi")}, Outputs: b.Outputs}
	if _, err := NewExecutor(testConfig(s)).Execute(testCtx(t), call); err != nil {
		t.Fatal(err)
	}
	raw := s.recorded()[0].raw
	for _, w := range []string{`"temperature":0`, `"top_p":0`, `"seed":0`, `"stop":["END"]`} {
		if !strings.Contains(raw, w) {
			t.Errorf("the body has no %s: %s", w, raw)
		}
	}
}
