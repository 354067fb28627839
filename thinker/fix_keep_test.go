package thinker

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/zclconf/go-cty/cty"
)

// The flow of the keep tests: a for_each step that asks a model about
// each item, and a step after it.
const askFlow = `flow "ask" {}

input "items" {
  type    = list(string)
  default = ["a", "b", "bad", "c"]
}

step "ask" {
  use      = "llm"
  for_each = input.items
  prompt   = "Name ${each.value}"
}

step "all" {
  use   = "value"
  value = join(",", step.ask[*].text)
}
`

// countingModel answers a prompt with its upper case, and fails a prompt
// that names "bad"; it counts the prompts.
type countingModel struct {
	mu      sync.Mutex
	prompts []string
}

func (m *countingModel) Execute(_ context.Context, call *blocks.Call) (*blocks.Result, error) {
	p := call.Inputs["prompt"].AsString()
	m.mu.Lock()
	m.prompts = append(m.prompts, p)
	m.mu.Unlock()
	if strings.Contains(p, "bad") {
		return nil, fmt.Errorf("the model refused %q", p)
	}
	return &blocks.Result{Outputs: map[string]cty.Value{"text": cty.StringVal(strings.ToUpper(p)), "usage": cty.NullVal(blocks.UsageType)}}, nil
}

// TestFixCheckKeepsModelInstances: a fix of a for_each step that calls a
// model is checked with the instances that succeeded kept: the model is
// asked only for the failed item, and the evidence says which instances
// ran and which were kept, and why. A fix of a step that reaches nothing
// outside runs all its instances again (TestExplainVerifiesBatchFix in
// cmd/flowctl/cli).
func TestFixCheckKeepsModelInstances(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ask.flow.hcl")
	os.WriteFile(file, []byte(askFlow), 0o644)
	prog, diags := compiler.Compile(file, compiler.Options{Parser: lang.NewParser()})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	st, err := state.Open(filepath.Join(dir, ".flowctl"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	model := &countingModel{}
	ex := &blocks.Executors{Builtins: blocks.BuiltinExecutors(), Runtimes: map[string]blocks.Executor{}}
	ex.Builtins["llm"] = model
	inputs, diags := prog.ResolveInputs(nil)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	res, err := runtime.Apply(context.Background(), prog, runtime.Options{Inputs: inputs, Store: st, Executors: ex})
	if err != nil || res.Status != runtime.StatusFailed {
		t.Fatalf("the run: %v %v", res.Status, err)
	}
	st.Flush()
	run, err := st.Run(res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	model.prompts = nil

	c := &FixChecker{Store: st, Run: run, Prog: prog, Redactor: NewRedactor(prog, nil),
		Executors: func() (*blocks.Executors, func(), error) { return ex, func() {}, nil }}
	defer c.Close()
	fixed := strings.Replace(askFlow, `prompt   = "Name ${each.value}"`, `prompt   = "Name ${replace(each.value, "bad", "good")}"`, 1)
	v, err := c.Check(context.Background(), &Fix{Summary: "Ask for good, not bad.", Files: []FixFile{{Path: "ask.flow.hcl", Content: fixed}}})
	if err != nil {
		t.Fatal(err)
	}
	if !v.OK {
		t.Fatalf("not verified: %s %s", v.Phase, v.Problem)
	}
	if got := strings.Join(model.prompts, " | "); got != "Name good" {
		t.Errorf("the check asked the model %q, want only the failed item's prompt", got)
	}
	var ev FixEvidence
	if err := json.Unmarshal(v.Evidence, &ev); err != nil {
		t.Fatal(err)
	}
	if strings.Join(ev.SucceededNow, " ") != "ask[2]" || strings.Join(ev.Ran, " ") != "ask[2] all" || ev.RanCount != 2 || len(ev.Rechecked) != 0 ||
		strings.Join(ev.Kept, " ") != "ask[0] ask[1] ask[3]" || ev.KeptCount != 3 || ev.KeptBecause["ask"] != "it calls a model" || len(ev.KeptBecause) != 1 {
		t.Errorf("evidence: %s", v.Evidence)
	}

	// A fix that removes a step that finished cannot resume the run: the
	// model is told what a fix may change and what it must keep.
	removed := askFlow[:strings.Index(askFlow, `step "ask"`)]
	v, err = c.Check(context.Background(), &Fix{Summary: "Ask nothing.", Files: []FixFile{{Path: "ask.flow.hcl", Content: removed}}})
	if err != nil {
		t.Fatal(err)
	}
	if v.OK || v.Phase != "run" || !strings.Contains(v.Problem, "finished step ask, which the flow no longer has") ||
		!strings.HasSuffix(v.Problem, "a fix may change any step, one that finished in the run too (it runs again with the fix), but it must keep the flow's name and every step that finished in the run") {
		t.Errorf("a step removed: %+v", v)
	}
}

// TestReachesOutside: what makes a changed step's succeeded instances
// kept when a fix is checked.
func TestReachesOutside(t *testing.T) {
	prog := compileIn(t, `flow "items" {}

step "get" {
  use = "http"
  url = "https://api.example.com/items"
}

step "ok" {
  use = "approval"
  message = "Go on?"
}

step "v" {
  use   = "value"
  value = 1
}
`)
	got := keepOnCheck(prog, []string{"get", "ok", "v"})
	if len(got) != 2 || got["get"] != "it reaches the network (http)" || got["ok"] != "it waits for a person's decision" {
		t.Errorf("kept: %v", got)
	}
}
