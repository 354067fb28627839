package runtime

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/llm"
	"github.com/flowctl/flowctl/blocks/llm/llmtest"
)

const callsFlow = `
flow "calls" {
  %s
}

secret "token" {
  env = "TOKEN"
}

provider "p" {
  base_url = "%s"
}

step "ask" {
  use      = "llm"
  provider = provider.p
  model    = "m"
  prompt   = "Use ${secret.token}"
}
`

// TestCallsRecorded: each round trip of a step with its model server is
// recorded with the run, redacted, the failed try too; a flow with
// record_prompts = false and a run with NoRecordPrompts record none.
func TestCallsRecorded(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if n.Add(1)%2 == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`{"error":{"message":"busy"}}`))
			return
		}
		llmtest.Reply(w, "m", "used hunter22", llmtest.Usage{Prompt: 3, Completion: 2})
	}))
	t.Cleanup(srv.Close)
	ex := &blocks.Executors{Builtins: blocks.BuiltinExecutors()}
	ex.Builtins["llm"] = llm.NewExecutor(llm.Config{})
	env := func(k string) (string, bool) { return "hunter22", k == "TOKEN" }
	for _, c := range []struct {
		name, attr string
		opts       Options
		want       int
	}{
		{"recorded", "", Options{}, 2},
		{"flow", "record_prompts = false", Options{}, 0},
		{"run", "", Options{NoRecordPrompts: true}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			prog := compile(t, strings.NewReplacer("%s\n", c.attr+"\n", `"%s"`, `"`+srv.URL+`/v1"`).Replace(callsFlow))
			st := openStore(t)
			c.opts.Store, c.opts.Executors, c.opts.LookupEnv = st, ex, env
			res, _ := apply(t, prog, c.opts)
			if res.Status != StatusOK {
				t.Fatalf("status %s: %v", res.Status, res.Diagnostics)
			}
			calls, err := st.Calls(res.RunID, "", 0, 0)
			if err != nil || len(calls) != c.want {
				t.Fatalf("%d calls recorded, %v; want %d", len(calls), err, c.want)
			}
			if c.want == 0 {
				return
			}
			var first, second blocks.ModelCall
			json.Unmarshal(calls[0].Data, &first)
			json.Unmarshal(calls[1].Data, &second)
			if calls[0].Step != "ask" || first.Try != 1 || first.Status != 503 || second.Try != 2 || second.Status != 200 || second.Attempt != 1 {
				t.Errorf("calls: %s\n%s", calls[0].Data, calls[1].Data)
			}
			if second.Response == nil || *second.Response != "used (sensitive)" || second.Request.Messages[0].Content != "(sensitive)" {
				t.Errorf("the reply: %s", calls[1].Data)
			}
			for _, call := range calls {
				if strings.Contains(string(call.Data), "hunter22") {
					t.Errorf("a secret in a recorded call: %s", call.Data)
				}
			}
		})
	}
}
