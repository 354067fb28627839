package api

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/flowctl/flowctl/runtime"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/zclconf/go-cty/cty"
)

func TestPlainValue(t *testing.T) {
	typed, err := runtime.EncodeValue(cty.ObjectVal(map[string]cty.Value{"n": cty.NumberIntVal(2), "s": cty.ListVal([]cty.Value{cty.StringVal("a")})}))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{string(typed), `{"n":2,"s":["a"]}`},
		{`{"value": 1}`, `{"value": 1}`}, // not typed: as it is
		{`[1]`, `[1]`},
		{``, ``},
	} {
		if got := string(PlainValue(json.RawMessage(c.in))); got != c.want {
			t.Errorf("%s: %s, want %s", c.in, got, c.want)
		}
	}
}

// TestReadRunErrorWithoutEvents: a run whose events are not recorded (made
// by apply) has an error of the same shape, made of its failed steps.
func TestReadRunErrorWithoutEvents(t *testing.T) {
	st, err := state.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Now()
	run := &state.Run{ID: "r1", Flow: "f", StartedAt: now}
	if err := st.CreateRun(run); err != nil {
		t.Fatal(err)
	}
	st.RecordStep(&state.StepResult{RunID: "r1", Step: "s", Instance: "2", Status: "failed", Attempts: 1, StartedAt: now, FinishedAt: now, Error: "boom"})
	run.Status, run.Error = "failed", "it failed"
	if err := st.FinishRun(run); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRun(st, run)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got.Error)
	if want := `{"message":"it failed","diagnostics":[{"severity":"error","summary":"Step failed","detail":"Step s[2] failed: boom.","step":"s[2]"}]}`; string(b) != want {
		t.Errorf("the error:\n got %s\nwant %s", b, want)
	}
}
