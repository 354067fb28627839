package runtime

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/blocks/llm/llmtest"
)

// budgetFlow makes two model calls in turn, $0.06 each at its provider's
// prices, under a budget of $0.065, beside a step that needs no model.
const budgetFlow = `
flow "budget" {
  max_cost_usd = 0.065
}

provider "p" {
  base_url = "%s"
  prices = {
    "m" = { input = 1000, output = 10000 }
  }
}

step "first" {
  use      = "llm"
  provider = provider.p
  model    = "m"
  prompt   = "one"
}

step "second" {
  use      = "llm"
  provider = provider.p
  model    = "m"
  prompt   = "two ${step.first.text}"
}

step "other" {
  use   = "value"
  value = "no model"
}
`

// TestBudgetStopsTheRun: the request that would pass the run's budget is
// not sent; its step fails saying so while a step without a model
// finishes; resuming the run with a larger budget finishes it, counting
// what it spent before.
func TestBudgetStopsTheRun(t *testing.T) {
	var sent atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent.Add(1)
		llmtest.Reply(w, "m", "ok", llmtest.Usage{Prompt: 10, Completion: 5})
	}))
	t.Cleanup(srv.Close)
	prog := compile(t, strings.Replace(budgetFlow, "%s", srv.URL+"/v1", 1))
	st := openStore(t)
	ex := &blocks.Executors{Builtins: blocks.BuiltinExecutors(), Runtimes: map[string]blocks.Executor{"llm": llm.NewExecutor(llm.Config{})}}
	ex.Builtins["llm"] = ex.Runtimes["llm"]
	res, rec := apply(t, prog, Options{Store: st, Executors: ex})
	if res.Status != StatusFailed || sent.Load() != 1 {
		t.Fatalf("status %s after %d requests; want failed after 1", res.Status, sent.Load())
	}
	fin := rec.finished()
	if fin["other"].Status != StatusOK || fin["first"].Status != StatusOK || fin["second"].Status != StatusFailed {
		t.Fatalf("finished: %+v", fin)
	}
	if got := fin["second"].Error; !strings.Contains(got, "budget of $0.065 reached after 1 call ($0.0600)") {
		t.Errorf("second's error: %q", got)
	}
	if fin["second"].Attempts != 1 {
		t.Errorf("a budget error was tried %d times", fin["second"].Attempts)
	}
	if res.Usage == nil || res.Usage.CostUSD == nil || *res.Usage.CostUSD != 0.06 || res.Usage.Calls != 1 {
		t.Errorf("the run's usage %+v", res.Usage)
	}

	run, err := st.Run(res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	res2, _ := apply(t, prog, Options{Store: st, Executors: ex, RunID: res.RunID, Resume: true, Inputs: inputsOf(t, prog, run), MaxCostUSD: 1})
	if res2.Status != StatusOK || sent.Load() != 2 {
		t.Fatalf("resumed with $1: %s after %d requests: %v", res2.Status, sent.Load(), res2.Diagnostics)
	}
	res3, _ := apply(t, prog, Options{Store: st, Executors: ex, MaxCostUSD: 0.001})
	if res3.Status != StatusFailed || sent.Load() != 2 {
		t.Errorf("a budget of $0.001 sent a request: %s, %d", res3.Status, sent.Load())
	}
}
