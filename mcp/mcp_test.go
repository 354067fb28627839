package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/runtime/state"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zclconf/go-cty/cty"
)

const shoutFlow = `flow "shout" {
  description = "Shouts a text"
}

input "text" {
  type = string
}

input "times" {
  type    = number
  default = 1
}

step "loud" {
  use   = "value"
  value = "${upper(input.text)} x${input.times}"
}

output "shouted" {
  value = step.loud.value
}
`

const reviewFlow = `flow "review" {}

step "check" {
  use     = "approval"
  message = "Publish it?"
}

step "publish" {
  use        = "value"
  value      = "published"
  depends_on = [step.check]
}

output "result" {
  value = step.publish.value
}
`

// session serves the flows of files to a client over the SDK's in-memory
// transport, and returns the client's session and the server's state.
func session(t *testing.T, files map[string]string) (*sdk.ClientSession, *state.Store) {
	t.Helper()
	return sessionWith(t, files, &blocks.Executors{Builtins: blocks.BuiltinExecutors()}, nil)
}

// sessionWith is session with the server's executors and the client's
// options.
func sessionWith(t *testing.T, files map[string]string, ex *blocks.Executors, copts *sdk.ClientOptions) (*sdk.ClientSession, *state.Store) {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	st, err := state.Open(filepath.Join(dir, ".flowctl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv := New(Options{Files: func() []string { return paths }, Store: st, Version: "test", Executors: ex})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	ct, stt := sdk.NewInMemoryTransports()
	ss, err := srv.SDK().Connect(ctx, stt, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, copts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, st
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestToolCall: a flow is a tool with its inputs' schema; a call runs it
// and returns its outputs, structured.
func TestToolCall(t *testing.T) {
	cs, _ := session(t, map[string]string{"shout.flow.hcl": shoutFlow})
	ctx := context.Background()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "shout" || tools.Tools[0].Description != "Shouts a text" {
		t.Fatalf("tools: %+v %v", tools, err)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "shout", Arguments: map[string]any{"text": "hi", "times": 2}})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %s", err, text(res))
	}
	b, _ := json.Marshal(res.StructuredContent)
	if string(b) != `{"shouted":"HI x2"}` {
		t.Errorf("outputs: %s", b)
	}
}

// TestToolArgumentErrors: a tool caller's mistake is told in the terms of
// the tool's JSON Schema: the argument, its JSON type, the expectation;
// never a command line's flags or environment variables. Issue 34.
func TestToolArgumentErrors(t *testing.T) {
	cs, _ := session(t, map[string]string{"shout.flow.hcl": shoutFlow})
	ctx := context.Background()
	for _, c := range []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"txt": "hi"}, []string{`Argument "txt" is not in the JSON Schema`, `Did you mean "text"?`, `Argument "text" is missing: the JSON Schema requires it, a string`}},
		{map[string]any{"text": "hi", "times": "two"}, []string{`Argument "times" is a string "two", but the JSON Schema expects a number`}},
		{map[string]any{"text": []any{"a"}}, []string{`Argument "text" is an array ["a"], but the JSON Schema expects a string`}},
	} {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "shout", Arguments: c.args})
		if err != nil {
			t.Fatal(err)
		}
		got := text(res)
		if !res.IsError {
			t.Errorf("%v: not an error: %s", c.args, got)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%v:\n got %s\nwant %s", c.args, got, w)
			}
		}
		if strings.Contains(got, "--input") || strings.Contains(got, "FLOWCTL_") {
			t.Errorf("%v: speaks of the command line: %s", c.args, got)
		}
	}
}

// TestToolWaits: a flow that stops at an approval returns a result that
// says it waits, with its run ID and how a person decides; the run's
// resource spells its record with the API's JSON names.
func TestToolWaits(t *testing.T) {
	cs, st := session(t, map[string]string{"review.flow.hcl": reviewFlow})
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "review", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	got := text(res)
	m := regexp.MustCompile(`Run (\S+) of flow review waits for a person's decision`).FindStringSubmatch(got)
	if m == nil || !strings.Contains(got, "Step check asks: Publish it?") || !strings.Contains(got, "flowctl approve "+m[1]+" check") ||
		!strings.Contains(got, "calling the tool again starts another run") {
		t.Fatalf("the result:\n%s", got)
	}
	run, err := st.Run(m[1])
	if err != nil || run.Status != "waiting" {
		t.Fatalf("the run: %+v %v", run, err)
	}
	rr, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "flowctl://runs/" + m[1]})
	if err != nil {
		t.Fatal(err)
	}
	doc := rr.Contents[0].Text
	var rec struct {
		RunID      string `json:"run_id"`
		Status     string `json:"status"`
		WaitingFor []struct {
			Step    string `json:"step"`
			Message string `json:"message"`
		} `json:"waiting_for"`
		Steps []map[string]any `json:"steps"`
	}
	if err := json.Unmarshal([]byte(doc), &rec); err != nil || rec.RunID != m[1] || rec.Status != "waiting" ||
		len(rec.WaitingFor) != 1 || rec.WaitingFor[0].Message != "Publish it?" || len(rec.Steps) == 0 {
		t.Fatalf("the resource: %v\n%s", err, doc)
	}
	for _, s := range rec.Steps {
		if s["step"] == nil || s["status"] == nil || s["Step"] != nil || s["Status"] != nil {
			t.Errorf("a step record: %v", s)
		}
	}
}

// TestToolCallStreams: the text of a streaming step reaches a caller that
// asked for progress as progress notifications, in order, with progress
// that grows.
func TestToolCallStreams(t *testing.T) {
	const flow = `
flow "talk" {}

block "speak" {
  runtime = "js"
  output "text" { type = string }
  source = "function execute() { return {text: ''} }"
}

step "say" {
  use = "speak"
}

output "text" {
  value = step.say.text
}
`
	ex := &blocks.Executors{Builtins: blocks.BuiltinExecutors(), Runtimes: map[string]blocks.Executor{
		"js": blocks.ExecutorFunc(func(ctx context.Context, call *blocks.Call) (*blocks.Result, error) {
			for _, c := range []string{"Hel", "lo"} {
				call.Delta(c, false)
			}
			return &blocks.Result{Outputs: map[string]cty.Value{"text": cty.StringVal("Hello")}}, nil
		}),
	}}
	var mu sync.Mutex
	var msgs []string
	var progress []float64
	all := make(chan struct{})
	cs, _ := sessionWith(t, map[string]string{"talk.flow.hcl": flow}, ex, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			msgs = append(msgs, req.Params.Message)
			progress = append(progress, req.Params.Progress)
			if len(msgs) == 3 {
				close(all)
			}
		},
	})
	params := &sdk.CallToolParams{Name: "talk", Arguments: map[string]any{}}
	params.SetProgressToken("p1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("call: %v %s", err, text(res))
	}
	// Notifications are handled apart from the call's result.
	select {
	case <-all:
	case <-time.After(time.Minute):
	}
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(msgs, "|"); got != "Hel|lo|step say ok" {
		t.Errorf("progress messages %q", got)
	}
	for i := 1; i < len(progress); i++ {
		if progress[i] <= progress[i-1] {
			t.Errorf("progress does not grow: %v", progress)
		}
	}
}
