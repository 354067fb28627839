package llm

import (
	"strings"
	"sync"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/zclconf/go-cty/cty"
)

// TestCallTrace: every round trip of a step reaches its trace, redacted:
// a failed try with its status, then the reply with its tokens, cost,
// finish reason and time to the first chunk.
func TestCallTrace(t *testing.T) {
	const secret = "hunter2-secret"
	s := newServer(t, fail(500, "overloaded "+secret), streamed("the password ", "is "+secret))
	call := builtinCall(t, "Use the password "+secret)
	call.Provider = &blocks.Provider{Name: "p", BaseURL: s.url(), Prices: map[string]lang.Price{"test-model": {Input: 1, Output: 2}}}
	call.Inputs["model"] = cty.StringVal("test-model")
	call.Attempt = 1
	call.Redact = func(s string) string { return strings.ReplaceAll(s, secret, "(sensitive)") }
	var mu sync.Mutex
	var got []blocks.ModelCall
	call.Trace = func(c blocks.ModelCall) { mu.Lock(); got = append(got, c); mu.Unlock() }
	if _, err := NewExecutor(Config{}).Execute(testCtx(t), call); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d traced round trips; want 2", len(got))
	}
	bad, good := got[0], got[1]
	if bad.Try != 1 || bad.Status != 500 || bad.Error == nil || strings.Contains(*bad.Error, secret) || bad.Response != nil {
		t.Errorf("the failed try: %+v", bad)
	}
	if good.Try != 2 || good.Status != 200 || good.Attempt != 1 || good.Provider != "p" || good.Model != "test-model" || !good.Request.Stream {
		t.Errorf("the reply: %+v", good)
	}
	if good.Response == nil || *good.Response != "the password is (sensitive)" || good.FinishReason != "stop" {
		t.Errorf("response %v, finish %q", good.Response, good.FinishReason)
	}
	if m := good.Request.Messages; len(m) != 1 || m[0].Content != "Use the password (sensitive)" {
		t.Errorf("messages %+v", m)
	}
	if u := good.Usage; u == nil || u.PromptTokens != 7 || u.CompletionTokens != 3 || u.CostUSD == nil || *u.CostUSD != 13e-6 {
		t.Errorf("usage %+v", u)
	}
	if good.FirstTokenMS == nil {
		t.Error("a streamed reply has no time to its first chunk")
	}
}
