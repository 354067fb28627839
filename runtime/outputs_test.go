package runtime

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

const partialFlow = `
flow "partial" {}

secret "tok" {}

step "ok" {
  use   = "value"
  value = "computed"
}

step "bad" {
  use  = "file"
  path = "missing.txt"
}

step "after" {
  use   = "value"
  value = upper(step.bad.text)
}

step "tolerant" {
  use      = "file"
  path     = "missing-too.txt"
  on_error = "continue"
}

step "secretive" {
  use   = "value"
  value = "x${secret.tok}"
}

locals {
  via_local = step.after.value
}

output "a" {
  value = step.ok.value
}

output "b" {
  value = local.via_local
}

output "c" {
  value = step.tolerant.text
}

output "d" {
  value = step.bad.text
}

output "e" {
  value     = step.secretive.value
  sensitive = true
}

output "f" {
  value = tonumber(step.ok.value)
}
`

// TestPartialOutputs: a failed run keeps every output whose steps all
// finished and says why each other one has no value, in the result, the
// run_finished event and the state.
func TestPartialOutputs(t *testing.T) {
	prog := compile(t, partialFlow)
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	res, rec := apply(t, prog, Options{Store: st, Secrets: map[string]string{"tok": "s3cr3t-value"}})
	if res.Status != StatusFailed {
		t.Fatalf("status %s, want failed", res.Status)
	}
	got := map[string]string{}
	for name, v := range res.Outputs {
		got[name] = outputJSON(t, v)
	}
	want := map[string]string{"a": `"computed"`, "c": `null`, "e": `"(sensitive)"`}
	if len(got) != len(want) {
		t.Errorf("outputs %v, want %v", got, want)
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("output %s = %s, want %s", name, got[name], w)
		}
	}
	wantFailed := []FailedOutput{
		{Name: "b", Step: "after", Reason: `step "after" was skipped because step "bad" failed`},
		{Name: "d", Step: "bad", Reason: `step "bad" failed`},
		{Name: "f", Reason: "test.flow.hcl:"},
	}
	if len(res.FailedOutputs) != len(wantFailed) {
		t.Fatalf("failed outputs %+v, want %+v", res.FailedOutputs, wantFailed)
	}
	for i, w := range wantFailed {
		f := res.FailedOutputs[i]
		if f.Name != w.Name || f.Step != w.Step || (w.Step != "" && f.Reason != w.Reason) {
			t.Errorf("failed output %d = %+v, want %+v", i, f, w)
		}
	}
	if r := res.FailedOutputs[2].Reason; !strings.Contains(r, "test.flow.hcl:58,") || !strings.Contains(r, "Invalid function argument") {
		t.Errorf("the failed expression's reason is %q", r)
	}

	// The event carries the same.
	var fin RunFinished
	for _, e := range rec.events {
		if f, ok := e.(RunFinished); ok {
			fin = f
		}
	}
	if len(fin.Outputs) != 3 || len(fin.FailedOutputs) != 3 || fin.FailedOutputs[0].Name != "b" {
		t.Errorf("run_finished: outputs %v, failed %+v", fin.Outputs, fin.FailedOutputs)
	}

	// And the state.
	run, err := st.Run(res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var outputs map[string]any
	var failed []FailedOutput
	if err := json.Unmarshal(run.Outputs, &outputs); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(run.FailedOutputs, &failed); err != nil {
		t.Fatal(err)
	}
	if outputs["a"] != "computed" || outputs["e"] != "(sensitive)" || len(outputs) != 3 || len(failed) != 3 || failed[1].Step != "bad" {
		t.Errorf("stored outputs %s, failed outputs %s", run.Outputs, run.FailedOutputs)
	}
	if strings.Contains(string(run.Outputs)+string(run.FailedOutputs), "s3cr3t") {
		t.Error("the secret is in the stored outputs")
	}
}

// TestPartialOutputsCancelled: a cancelled run keeps the outputs of the
// steps that finished before it was cancelled.
func TestPartialOutputsCancelled(t *testing.T) {
	prog := compile(t, `
flow "cancelled" {}

step "quick" {
  use   = "value"
  value = 1
}

step "slow" {
  use      = "sleep"
  duration = "10m"
}

step "later" {
  use   = "value"
  value = step.slow.slept_ms + step.quick.value
}

output "quick" {
  value = step.quick.value
}

output "slow" {
  value = step.slow.slept_ms
}

output "later" {
  value = step.later.value
}
`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in, _ := prog.ResolveInputs(nil)
	// Events are delivered one at a time: cancel once quick has finished
	// and slow has started, whichever comes last.
	quickDone, slowStarted := false, false
	res, err := Apply(ctx, prog, Options{Inputs: in, Observe: func(e Event) {
		switch e := e.(type) {
		case StepStarted:
			slowStarted = slowStarted || e.Step == "slow"
		case StepFinished:
			quickDone = quickDone || (e.Step == "quick" && e.Status == StatusOK)
		}
		if quickDone && slowStarted {
			cancel()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != StatusCancelled {
		t.Fatalf("status %s", res.Status)
	}
	if len(res.Outputs) != 1 || outputJSON(t, res.Outputs["quick"]) != "1" {
		t.Errorf("outputs %v", res.Outputs)
	}
	want := []FailedOutput{
		{Name: "slow", Step: "slow", Reason: `step "slow" was cancelled`},
		{Name: "later", Step: "later", Reason: `step "later" was cancelled`},
	}
	if len(res.FailedOutputs) != 2 || res.FailedOutputs[0] != want[0] || res.FailedOutputs[1] != want[1] {
		t.Errorf("failed outputs %+v, want %+v", res.FailedOutputs, want)
	}
}

// TestRecordingFailureFailsTheRun: when step results cannot be recorded,
// the run is failed, in its result and in the state, with the reason.
func TestRecordingFailureFailsTheRun(t *testing.T) {
	big := strings.Repeat("x", 2<<20) // kept in a blob file of the state
	prog := compileFiles(t, "test.flow.hcl", `
flow "big" {}

step "read" {
  use  = "file"
  path = "big.txt"
}

output "n" {
  value = step.read.sha256
}
`, map[string]string{"big.txt": big})
	dir := t.TempDir()
	st, err := state.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// A file where the blobs' directory should be: the result of read
	// cannot be stored.
	if err := os.WriteFile(filepath.Join(dir, "blobs"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	res, _ := apply(t, prog, Options{Store: st})
	if res.Status != StatusFailed || !strings.Contains(res.Diagnostics.Error(), "Results not recorded") {
		t.Fatalf("status %s, diagnostics %s", res.Status, res.Diagnostics.Error())
	}
	run, err := st.Run(res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != "failed" || !strings.Contains(run.Error, "could not be recorded") || !strings.Contains(run.Error, "storing a value of 2097") {
		t.Errorf("the state says %s: %s", run.Status, run.Error)
	}
}

// TestOutputsTooLargeForTheState: a step whose outputs are larger than a
// step result may hold fails, with a clear error, before anything is
// recorded.
func TestOutputsTooLargeForTheState(t *testing.T) {
	v, err := storable(cty.ObjectVal(map[string]cty.Value{"text": cty.StringVal(strings.Repeat("y", 2<<20))}), 1<<20)
	if err == nil || v != nil || err.Error() != "its outputs are 2.0 MiB as the state stores them, more than the 1.0 MiB a step result may hold" {
		t.Errorf("storable = %d bytes, %v", len(v), err)
	}
	if _, err := storable(cty.ObjectVal(map[string]cty.Value{"text": cty.StringVal("small")}), 1<<20); err != nil {
		t.Error(err)
	}
}

// TestCorruptMemory: a stored memory value that cannot be read stops the
// run before it starts, with an error at the memory, unless
// ResetCorruptMemory starts it over (a warning); a value of another type
// starts over with a warning.
func TestCorruptMemory(t *testing.T) {
	prog := compile(t, `
flow "remember" {}

memory "count" {
  type    = number
  default = 0
  value   = memory.count + 1
}

step "read" {
  use   = "value"
  value = memory.count
}

output "was" {
  value = step.read.value
}
`)
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	set := func(raw string) {
		if err := st.SetMemory("remember", "", map[string]json.RawMessage{"count": json.RawMessage(raw)}); err != nil {
			t.Fatal(err)
		}
	}
	set(`{"type":"number","value":"not a number"}`)
	res, _ := apply(t, prog, Options{Store: st})
	if res.RunID != "" || !res.Diagnostics.HasErrors() || res.Diagnostics[0].Summary != "Corrupt memory" ||
		res.Diagnostics[0].Subject == nil || res.Diagnostics[0].Subject.Start.Line != 4 {
		t.Fatalf("run %q: %v", res.RunID, res.Diagnostics)
	}
	if runs, _ := st.Runs("", 0); len(runs) != 0 {
		t.Errorf("%d runs recorded", len(runs))
	}
	res, _ = apply(t, prog, Options{Store: st, ResetCorruptMemory: true})
	if res.Status != StatusOK || len(res.Diagnostics) != 1 || res.Diagnostics[0].Summary != "Memory reset" || outputJSON(t, res.Outputs["was"]) != "0" {
		t.Fatalf("with the reset: %s, %v, %v", res.Status, res.Diagnostics, res.Outputs)
	}
	// The run stored the next value.
	res, _ = apply(t, prog, Options{Store: st})
	if res.Status != StatusOK || len(res.Diagnostics) != 0 || outputJSON(t, res.Outputs["was"]) != "1" {
		t.Fatalf("after the reset: %s, %v, %v", res.Status, res.Diagnostics, res.Outputs)
	}
	set(`{"type":"string","value":"seven"}`)
	res, _ = apply(t, prog, Options{Store: st})
	if res.Status != StatusOK || len(res.Diagnostics) != 1 || res.Diagnostics[0].Severity != hcl.DiagWarning ||
		!strings.Contains(res.Diagnostics[0].Detail, "was stored as a string, which does not convert to its type now, a number") || outputJSON(t, res.Outputs["was"]) != "0" {
		t.Errorf("another type: %s, %v, %v", res.Status, res.Diagnostics, res.Outputs)
	}
}

// TestReleaseValues: a run that releases values drops a step's value once
// the steps that refer to it, directly or through a local, have finished,
// and keeps those that an output or a memory refers to, which are
// evaluated when the run ends.
func TestReleaseValues(t *testing.T) {
	prog := compile(t, `
flow "keep" {}

memory "last" {
  type    = number
  default = 0
  value   = step.b.value
}

locals {
  l = step.c.value
}

step "a" {
  use   = "value"
  value = memory.last + 1
}

step "b" {
  use   = "value"
  value = step.a.value + 1
}

step "c" {
  use   = "value"
  value = step.b.value + 1
}

step "d" {
  use   = "value"
  value = local.l + 1
}

step "e" {
  use      = "value"
  for_each = [1, 2]
  value    = step.b.value + each.value
}

output "d" {
  value = step.d.value
}

output "e" {
  value = [for v in step.e : v.value]
}
`)
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i, want := range []struct{ d, e string }{{"4", "[3,4]"}, {"6", "[5,6]"}} {
		r, diags := newRun(prog, Options{Store: st, Inputs: map[string]cty.Value{}})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		r.releaseValues()
		res, err := r.apply(context.Background())
		if err != nil || res.Status != StatusOK {
			t.Fatalf("run %d: %v %s %v", i, err, res.Status, res.Diagnostics)
		}
		if d, e := outputJSON(t, res.Outputs["d"]), outputJSON(t, res.Outputs["e"]); d != want.d || e != want.e {
			t.Errorf("run %d: outputs d = %s, e = %s; want %s, %s", i, d, e, want.d, want.e)
		}
		var kept []string
		for _, s := range r.steps {
			if s.value != cty.NilVal {
				kept = append(kept, s.step.Name)
			}
		}
		if got := strings.Join(kept, " "); got != "b d e" {
			t.Errorf("run %d: values kept of %s, want b d e", i, got)
		}
		if res.Steps != nil {
			t.Errorf("run %d: Steps without Options.StepValues", i)
		}
	}
	// Memory: the second run started from the first's b (2), so a = 3.
	res, _ := apply(t, prog, Options{Store: st, StepValues: true})
	if got := outputJSON(t, res.Steps["a"].GetAttr("value")); got != "5" || len(res.Steps) != 5 {
		t.Errorf("third run: a = %s, %d step values", got, len(res.Steps))
	}
}
