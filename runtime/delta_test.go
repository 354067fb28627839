package runtime

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/zclconf/go-cty/cty"
)

// TestStepDeltas: the text a step streams becomes step_delta events, in
// order and before its step_finished; a secret split across two chunks
// never appears in any of them, and a second attempt's text starts with a
// reset.
func TestStepDeltas(t *testing.T) {
	prog := compile(t, `
flow "deltas" {}

secret "token" {
  env = "TOKEN"
}

block "talk" {
  runtime = "js"
  input "t" { type = string }
  output "n" { type = number }
  source = "function execute(input) { return input }"
}

step "speak" {
  use   = "talk"
  t     = secret.token
  retry {
    attempts = 2
    backoff  = "1ms"
  }
}
`)
	attempts := 0
	ex := &blocks.Executors{Runtimes: map[string]blocks.Executor{"js": blocks.ExecutorFunc(func(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
		attempts++
		if attempts == 1 {
			call.Delta("lost ", false)
			return nil, errors.New("the stream broke")
		}
		for _, c := range []string{"the key is s3c", "r3t-v4lue and", " more", " s3c"} {
			call.Delta(c, false)
		}
		return &blocks.Result{Outputs: map[string]cty.Value{"n": cty.NumberIntVal(1)}}, nil
	})}}
	res, rec := apply(t, prog, Options{Executors: ex, LookupEnv: func(k string) (string, bool) { return "s3cr3t-v4lue", k == "TOKEN" }})
	if res.Status != StatusOK {
		t.Fatalf("status %s", res.Status)
	}
	var texts []string
	var resets []bool
	finished := false
	for _, e := range rec.events {
		switch e := e.(type) {
		case StepDelta:
			if finished {
				t.Error("a step_delta after the step finished")
			}
			texts = append(texts, e.Text)
			resets = append(resets, e.Reset)
		case StepFinished:
			finished = true
		}
	}
	all := strings.Join(texts, "")
	if strings.Contains(all, "s3cr3t") || strings.Contains(all, "r3t-v4lue") {
		t.Fatalf("a secret in the deltas: %q", texts)
	}
	if len(texts) < 2 || texts[0] != "lost " || !resets[1] || slicesCount(resets, true) != 1 {
		t.Fatalf("deltas %q, resets %v: want the first attempt's text, then a reset", texts, resets)
	}
	if got := strings.Join(texts[1:], ""); got != "the key is (sensitive) and more s3c" {
		t.Errorf("the reply relayed %q", got)
	}
}

func slicesCount(bs []bool, v bool) int {
	n := 0
	for _, b := range bs {
		if b == v {
			n++
		}
	}
	return n
}
