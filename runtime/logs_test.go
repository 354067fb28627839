package runtime

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/zclconf/go-cty/cty"
)

// TestStepLogs: what a code step prints is reported as step_log events and
// stored with the step instance, redacted, and cut with a marker past
// MaxStepLog; a failed step keeps its log too.
func TestStepLogs(t *testing.T) {
	prog := compile(t, `
flow "logs" {}

secret "token" {
  env = "TOKEN"
}

block "talk" {
  runtime = "js"
  input "n" { type = number }
  input "t" { type = string }
  output "n" { type = number }
  source = "function execute(input) { return input }"
}

step "chatty" {
  use      = "talk"
  for_each = [1, 2]
  n        = each.value
  t        = "x"
}

step "leaky" {
  use = "talk"
  n   = 0
  t   = secret.token
}

step "loud" {
  use = "talk"
  n   = 1000
  t   = "y"
}
`)
	st := openStore(t)
	ex := &blocks.Executors{Runtimes: map[string]blocks.Executor{"js": blocks.ExecutorFunc(func(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
		n, _ := call.Inputs["n"].AsBigFloat().Int64()
		switch {
		case n == 0:
			call.Log("token is " + call.Inputs["t"].AsString())
			return nil, errors.New("refused")
		case n == 1000:
			for range 5000 {
				call.Log(strings.Repeat("z", 40))
			}
		default:
			call.Log("hello from " + call.Step)
			call.Log("second line")
		}
		return &blocks.Result{Outputs: map[string]cty.Value{"n": call.Inputs["n"]}}, nil
	})}}
	res, rec := apply(t, prog, Options{Store: st, Executors: ex, LookupEnv: func(k string) (string, bool) { return "s3cr3t", k == "TOKEN" }})
	if res.Status != StatusFailed {
		t.Fatalf("status %s", res.Status)
	}
	lines := map[string][]string{}
	for _, e := range rec.events {
		if l, ok := e.(StepLog); ok {
			lines[Label(l.Step, l.Instance)] = append(lines[Label(l.Step, l.Instance)], l.Line)
		}
	}
	if got := strings.Join(lines["chatty[1]"], "|"); got != "hello from chatty[1]|second line" {
		t.Errorf("chatty[1] events: %q", got)
	}
	if got := strings.Join(lines["leaky"], "|"); got != "token is (sensitive)" {
		t.Errorf("leaky events: %q", got)
	}
	if n := len(lines["loud"]); n == 0 || n >= 5000 {
		t.Errorf("loud: %d events", n)
	}
	steps, _ := st.Steps(res.RunID)
	logs := map[string]string{}
	for _, s := range steps {
		logs[s.Step+"["+s.Instance+"]"] = s.Log
	}
	if logs["chatty[0]"] != "hello from chatty[0]\nsecond line" || logs["leaky[]"] != "token is (sensitive)" {
		t.Errorf("stored logs: %q", logs)
	}
	if l := logs["loud[]"]; len(l) > MaxStepLog+200 || !strings.HasSuffix(l, "more lines not kept: a step's log keeps 64 KiB)") {
		t.Errorf("loud's log: %d bytes, ends %q", len(l), l[max(0, len(l)-80):])
	}
}
