package event

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// TestEventJSONShape: each event's JSON document as apply --json prints
// it and serve streams it (docs/runtime.md, "Events"): its type, its
// fields and their names, times in UTC, sensitive values redacted, and
// the events that are not printed.
func TestEventJSONShape(t *testing.T) {
	at := time.Date(2026, 12, 7, 10, 0, 1, 5, time.FixedZone("X", 3600))
	utc := `"2026-12-07T09:00:01.000000005Z"`
	k := Key{Value: cty.StringVal("a")}
	subject := &hcl.Range{Filename: "f.flow.hcl", Start: hcl.Pos{Line: 3, Column: 2, Byte: 20}, End: hcl.Pos{Line: 3, Column: 9, Byte: 27}}
	secret := cty.ObjectVal(map[string]cty.Value{
		"user": cty.StringVal("ann"),
		"pass": cty.StringVal("hunter2").Mark(lang.Sensitive),
	})
	cases := []struct {
		e         Event
		typ, want string
	}{
		{RunStarted{Time: at, RunID: "r1", Flow: "f", Steps: 3, Resumed: true}, "run_started",
			`{"type":"run_started","time":` + utc + `,"run_id":"r1","flow":"f","resumed":true}`},
		{StepStarted{Time: at, Step: "s", Instance: NoKey, Attempt: 2}, "step_started",
			`{"type":"step_started","time":` + utc + `,"step":"s","instance":null,"attempt":2}`},
		{StepFinished{Time: at, Step: "s", Instance: Key{Value: cty.NumberIntVal(4)}, Status: StatusFailed, Attempts: 1,
			Duration: 1500 * time.Millisecond, Error: "boom", Usage: &blocks.Usage{PromptTokens: 1, CompletionTokens: 2, TotalTokens: 3}}, "step_finished",
			`{"type":"step_finished","time":` + utc + `,"step":"s","instance":4,"status":"failed","duration_ms":1500,"error":"boom",` +
				`"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}`},
		{StepNotice{Time: at, Step: "s", Instance: k, Kind: blocks.NoticeRetry, Message: "429", Wait: 2 * time.Second}, "step_notice",
			`{"type":"step_notice","time":` + utc + `,"step":"s","instance":"a","kind":"retry","message":"429","wait_ms":2000}`},
		{StepLog{Time: at, Step: "s", Instance: k, Stream: "stdout", Line: "hi"}, "step_log",
			`{"type":"step_log","time":` + utc + `,"step":"s","instance":"a","stream":"stdout","line":"hi"}`},
		{ToolCallStarted{Time: at, Step: "s", Instance: k, Tool: "flow.x", CallID: "c1", Arguments: "{}"}, "tool_call_started",
			`{"type":"tool_call_started","time":` + utc + `,"step":"s","instance":"a","tool":"flow.x","call_id":"c1","arguments":"{}"}`},
		{ToolCallFinished{Time: at, Step: "s", Instance: k, Tool: "flow.x", CallID: "c1", Duration: time.Second, Cached: true, RunID: "r2"}, "tool_call_finished",
			`{"type":"tool_call_finished","time":` + utc + `,"step":"s","instance":"a","tool":"flow.x","call_id":"c1","status":"cached","duration_ms":1000,"run_id":"r2"}`},
		{ToolCallFinished{Time: at, Step: "s", Instance: k, Tool: "block.y", CallID: "c2", Cached: true, Error: "no"}, "tool_call_finished",
			`{"type":"tool_call_finished","time":` + utc + `,"step":"s","instance":"a","tool":"block.y","call_id":"c2","status":"failed","duration_ms":0,"error":"no"}`},
		{StepWaiting{Time: at, Step: "ok", Instance: NoKey, Message: "Go?"}, "step_waiting",
			`{"type":"step_waiting","time":` + utc + `,"step":"ok","instance":null,"message":"Go?","deadline":null}`},
		{RunWaiting{Time: at, RunID: "r1", Waiting: []Waiting{{Step: "ok", Instance: k, Message: "Go?", Since: at, Deadline: at.Add(time.Hour)}},
			Outputs: map[string]cty.Value{"login": secret}}, "run_waiting",
			`{"type":"run_waiting","time":` + utc + `,"run_id":"r1","status":"waiting","waiting":[{"step":"ok","instance":"a","message":"Go?","since":` + utc +
				`,"deadline":"2026-12-07T10:00:01.000000005Z"}],"outputs":{"login":{"pass":"(sensitive)","user":"ann"}}}`},
		{RunFinished{Time: at, RunID: "r1", Status: StatusFailed,
			Outputs:       map[string]cty.Value{"n": cty.NumberIntVal(1), "token": cty.StringVal("t").Mark(lang.Sensitive), "none": cty.NullVal(cty.String)},
			FailedOutputs: []FailedOutput{{Name: "out", Step: `s["a"]`, Reason: "failed"}},
			Error:         "f.flow.hcl:3,2: Step failed.",
			Diagnostics: hcl.Diagnostics{
				{Severity: hcl.DiagWarning, Summary: "Not an error"},
				{Severity: hcl.DiagError, Summary: "Step failed", Detail: "It did.", Subject: subject, Extra: StepDiag{Step: `s["a"]`}},
			}}, "run_finished",
			`{"type":"run_finished","time":` + utc + `,"run_id":"r1","status":"failed","outputs":{"n":1,"none":null,"token":"(sensitive)"},` +
				`"failed_outputs":[{"name":"out","step":"s[\"a\"]","reason":"failed"}],"error":{"message":"f.flow.hcl:3,2: Step failed.","diagnostics":[` +
				`{"severity":"error","summary":"Step failed","detail":"It did.","range":{"filename":"f.flow.hcl","start":{"line":3,"column":2,"byte":20},` +
				`"end":{"line":3,"column":9,"byte":27}},"step":"s[\"a\"]"}]}}`},
		{RunFinished{Time: at, RunID: "r1", Status: StatusOK, Outputs: map[string]cty.Value{}}, "run_finished",
			`{"type":"run_finished","time":` + utc + `,"run_id":"r1","status":"ok","outputs":{}}`},
	}
	for _, c := range cases {
		typ, doc := EventJSON(c.e)
		got, err := json.Marshal(doc)
		if err != nil {
			t.Fatalf("%T: %v", c.e, err)
		}
		if typ != c.typ || string(got) != c.want {
			t.Errorf("%T: %s\n%s\nwant %s\n%s", c.e, typ, got, c.typ, c.want)
		}
	}
	// StepEnded is said by the step_finished events of its instances.
	if typ, doc := EventJSON(StepEnded{Time: at, Step: "s", Instances: 2}); typ != "" || doc != nil {
		t.Errorf("step_ended: %q %v", typ, doc)
	}
}

// TestAt: an event takes the time it is delivered at, but a tool call
// keeps the time it was made at.
func TestAt(t *testing.T) {
	made, delivered := time.Unix(100, 0), time.Unix(200, 0)
	stamped := []interface{ At(time.Time) Event }{
		RunStarted{Time: made}, StepStarted{Time: made}, StepFinished{Time: made}, StepEnded{Time: made}, StepNotice{Time: made},
		StepLog{Time: made}, StepWaiting{Time: made}, RunWaiting{Time: made}, RunFinished{Time: made},
	}
	for _, e := range stamped {
		if got := timeOf(e.At(delivered)); !got.Equal(delivered) {
			t.Errorf("%T at %v: %v", e, delivered, got)
		}
	}
	for _, e := range []interface{ At(time.Time) Event }{ToolCallStarted{Time: made}, ToolCallFinished{Time: made}} {
		if got := timeOf(e.At(delivered)); !got.Equal(made) {
			t.Errorf("%T at %v: %v, not the time it was made at", e, delivered, got)
		}
	}
}

func timeOf(e Event) time.Time {
	switch e := e.(type) {
	case RunStarted:
		return e.Time
	case StepStarted:
		return e.Time
	case StepFinished:
		return e.Time
	case StepEnded:
		return e.Time
	case StepNotice:
		return e.Time
	case StepLog:
		return e.Time
	case StepWaiting:
		return e.Time
	case RunWaiting:
		return e.Time
	case RunFinished:
		return e.Time
	case ToolCallStarted:
		return e.Time
	case ToolCallFinished:
		return e.Time
	}
	return time.Time{}
}
