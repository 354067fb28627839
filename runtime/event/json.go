package event

import (
	"strconv"
	"time"

	"github.com/flowctl/flowctl/lang/jsonval"

	"github.com/flowctl/flowctl/lang/diagjson"
	"github.com/hashicorp/hcl/v2"

	"github.com/flowctl/flowctl/blocks"
	"github.com/zclconf/go-cty/cty"
)

// The JSON documents of the events, as apply --json prints them and
// flowctl serve streams them; every one has type and time.
type (
	jsonRunStarted struct {
		Type    string `json:"type"`
		Time    string `json:"time"`
		RunID   string `json:"run_id"`
		Flow    string `json:"flow"`
		Resumed bool   `json:"resumed,omitempty"`
	}
	jsonStepWaiting struct {
		Type     string  `json:"type"`
		Time     string  `json:"time"`
		Step     string  `json:"step"`
		Instance any     `json:"instance"`
		Message  string  `json:"message"`
		Deadline *string `json:"deadline"`
	}
	jsonStepLog struct {
		Type     string `json:"type"`
		Time     string `json:"time"`
		Step     string `json:"step"`
		Instance any    `json:"instance"`
		Stream   string `json:"stream"`
		Line     string `json:"line"`
	}
	jsonStepNotice struct {
		Type     string `json:"type"`
		Time     string `json:"time"`
		Step     string `json:"step"`
		Instance any    `json:"instance"`
		Kind     string `json:"kind"`
		Message  string `json:"message"`
		WaitMS   int64  `json:"wait_ms,omitempty"`
	}
	jsonToolCallStarted struct {
		Type      string `json:"type"`
		Time      string `json:"time"`
		Step      string `json:"step"`
		Instance  any    `json:"instance"`
		Tool      string `json:"tool"`
		CallID    string `json:"call_id"`
		Arguments string `json:"arguments"`
	}
	jsonToolCallFinished struct {
		Type       string `json:"type"`
		Time       string `json:"time"`
		Step       string `json:"step"`
		Instance   any    `json:"instance"`
		Tool       string `json:"tool"`
		CallID     string `json:"call_id"`
		Status     string `json:"status"`
		DurationMS int64  `json:"duration_ms"`
		RunID      string `json:"run_id,omitempty"`
		Error      string `json:"error,omitempty"`
	}
	jsonWaiting struct {
		Step     string  `json:"step"`
		Instance any     `json:"instance"`
		Message  string  `json:"message"`
		Since    string  `json:"since"`
		Deadline *string `json:"deadline"`
	}
	jsonRunWaiting struct {
		Type          string         `json:"type"`
		Time          string         `json:"time"`
		RunID         string         `json:"run_id"`
		Status        string         `json:"status"`
		Waiting       []jsonWaiting  `json:"waiting"`
		Outputs       map[string]any `json:"outputs"`
		FailedOutputs []FailedOutput `json:"failed_outputs,omitempty"`
	}
	jsonStepStarted struct {
		Type     string `json:"type"`
		Time     string `json:"time"`
		Step     string `json:"step"`
		Instance any    `json:"instance"`
		Attempt  int    `json:"attempt"`
	}
	jsonStepFinished struct {
		Type       string        `json:"type"`
		Time       string        `json:"time"`
		Step       string        `json:"step"`
		Instance   any           `json:"instance"`
		Status     string        `json:"status"`
		DurationMS int64         `json:"duration_ms"`
		Error      *string       `json:"error"`
		Reason     string        `json:"reason,omitempty"`
		Attempts   int           `json:"attempts,omitempty"`
		Usage      *blocks.Usage `json:"usage,omitempty"`
		Resumed    bool          `json:"resumed,omitempty"`
		Retries    int           `json:"retries,omitempty"`
		WaitedMS   int64         `json:"waited_ms,omitempty"`
	}
	jsonRunFinished struct {
		Type          string         `json:"type"`
		Time          string         `json:"time"`
		RunID         string         `json:"run_id"`
		Status        string         `json:"status"`
		Outputs       map[string]any `json:"outputs"`
		FailedOutputs []FailedOutput `json:"failed_outputs,omitempty"`
		Error         *jsonRunError  `json:"error,omitempty"`
		Usage         *blocks.Usage  `json:"usage,omitempty"`
	}
	// jsonRunError is why a run failed: the text, and each error as a
	// diagnostic in validate --json's shape, with the step it is about.
	jsonRunError struct {
		Message     string              `json:"message"`
		Diagnostics []jsonRunDiagnostic `json:"diagnostics"`
	}
	jsonRunDiagnostic struct {
		Severity string          `json:"severity"`
		Summary  string          `json:"summary"`
		Detail   string          `json:"detail"`
		Range    *diagjson.Range `json:"range,omitempty"`
		Step     string          `json:"step,omitempty"`
	}
)

// runError is the error document of a run_finished event; nil when the
// run has no error.
func runError(e RunFinished) *jsonRunError {
	if e.Error == "" {
		return nil
	}
	out := &jsonRunError{Message: e.Error, Diagnostics: []jsonRunDiagnostic{}}
	for _, d := range e.Diagnostics {
		if d.Severity != hcl.DiagError {
			continue
		}
		jd := diagjson.NewDiagnostic(nil, d)
		rd := jsonRunDiagnostic{Severity: jd.Severity, Summary: jd.Summary, Detail: jd.Detail, Range: jd.Range}
		if sd, ok := d.Extra.(StepDiag); ok {
			rd.Step = sd.Step
		}
		out.Diagnostics = append(out.Diagnostics, rd)
	}
	return out
}

// EventJSON is an event's type ("step_finished") and the document
// encoding/json writes as apply --json prints it; nil for an event that is
// not printed.
func EventJSON(e Event) (string, any) {
	switch e := e.(type) {
	case RunStarted:
		return "run_started", jsonRunStarted{"run_started", JSONTime(e.Time), e.RunID, e.Flow, e.Resumed}
	case StepStarted:
		return "step_started", jsonStepStarted{"step_started", JSONTime(e.Time), e.Step, e.Instance.JSON(), e.Attempt}
	case StepFinished:
		ev := jsonStepFinished{
			Type: "step_finished", Time: JSONTime(e.Time), Step: e.Step, Instance: e.Instance.JSON(),
			Status: string(e.Status), DurationMS: e.Duration.Milliseconds(), Reason: e.Reason, Usage: e.Usage,
			Resumed: e.Resumed, Retries: e.Retries, WaitedMS: e.Waited.Milliseconds(),
		}
		if e.Attempts > 1 {
			ev.Attempts = e.Attempts // only when the step retried, as documented
		}
		if e.Error != "" {
			ev.Error = &e.Error
		}
		return "step_finished", ev
	case StepNotice:
		return "step_notice", jsonStepNotice{"step_notice", JSONTime(e.Time), e.Step, e.Instance.JSON(), string(e.Kind), e.Message, e.Wait.Milliseconds()}
	case StepLog:
		return "step_log", jsonStepLog{"step_log", JSONTime(e.Time), e.Step, e.Instance.JSON(), e.Stream, e.Line}
	case ToolCallStarted:
		return "tool_call_started", jsonToolCallStarted{"tool_call_started", JSONTime(e.Time), e.Step, e.Instance.JSON(), e.Tool, e.CallID, e.Arguments}
	case ToolCallFinished:
		return "tool_call_finished", jsonToolCallFinished{"tool_call_finished", JSONTime(e.Time), e.Step, e.Instance.JSON(), e.Tool, e.CallID,
			string(e.Status()), e.Duration.Milliseconds(), e.RunID, e.Error}
	case StepWaiting:
		return "step_waiting", jsonStepWaiting{"step_waiting", JSONTime(e.Time), e.Step, e.Instance.JSON(), e.Message, optTime(e.Deadline)}
	case RunWaiting:
		ws := make([]jsonWaiting, len(e.Waiting))
		for i, w := range e.Waiting {
			ws[i] = jsonWaiting{w.Step, w.Instance.JSON(), w.Message, JSONTime(w.Since), optTime(w.Deadline)}
		}
		return "run_waiting", jsonRunWaiting{"run_waiting", JSONTime(e.Time), e.RunID, string(StatusWaiting), ws, PlainOutputs(e.Outputs), e.FailedOutputs}
	case RunFinished:
		return "run_finished", jsonRunFinished{"run_finished", JSONTime(e.Time), e.RunID, string(e.Status), PlainOutputs(e.Outputs), e.FailedOutputs, runError(e), e.Usage}
	}
	return "", nil
}

// AppendEventJSON appends the JSON document of a step_started or
// step_finished event, the events a run has most of, byte for byte as
// encoding/json writes EventJSON's document, without reflection. It
// reports false for other events (and a step_finished with usage): encode
// those with EventJSON.
func AppendEventJSON(b []byte, e Event) ([]byte, bool) {
	switch e := e.(type) {
	case StepStarted:
		b = appendStepHead(b, "step_started", e.Time, e.Step, e.Instance)
		b = append(b, `,"attempt":`...)
		b = strconv.AppendInt(b, int64(e.Attempt), 10)
		return append(b, '}'), true
	case StepFinished:
		if e.Usage != nil {
			return b, false
		}
		b = appendStepHead(b, "step_finished", e.Time, e.Step, e.Instance)
		b = append(b, `,"status":`...)
		b = jsonval.AppendString(b, string(e.Status))
		b = append(b, `,"duration_ms":`...)
		b = strconv.AppendInt(b, e.Duration.Milliseconds(), 10)
		b = append(b, `,"error":`...)
		if e.Error == "" {
			b = append(b, "null"...)
		} else {
			b = jsonval.AppendString(b, e.Error)
		}
		if e.Reason != "" {
			b = append(b, `,"reason":`...)
			b = jsonval.AppendString(b, e.Reason)
		}
		if e.Attempts > 1 {
			b = append(b, `,"attempts":`...)
			b = strconv.AppendInt(b, int64(e.Attempts), 10)
		}
		if e.Resumed {
			b = append(b, `,"resumed":true`...)
		}
		if e.Retries > 0 {
			b = append(b, `,"retries":`...)
			b = strconv.AppendInt(b, int64(e.Retries), 10)
		}
		if ms := e.Waited.Milliseconds(); ms != 0 {
			b = append(b, `,"waited_ms":`...)
			b = strconv.AppendInt(b, ms, 10)
		}
		return append(b, '}'), true
	}
	return b, false
}

// appendStepHead appends the fields every step event starts with.
func appendStepHead(b []byte, typ string, t time.Time, step string, inst Key) []byte {
	b = append(b, `{"type":"`...)
	b = append(b, typ...)
	b = append(b, `","time":"`...)
	b = t.UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","step":`...)
	b = jsonval.AppendString(b, step)
	b = append(b, `,"instance":`...)
	switch k := inst.JSON().(type) {
	case nil:
		b = append(b, "null"...)
	case int64:
		b = strconv.AppendInt(b, k, 10)
	case string:
		b = jsonval.AppendString(b, k)
	}
	return b
}

// optTime is a time that may be zero (none) in JSON.
func optTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := JSONTime(t)
	return &s
}

// JSONTime is how events write a time: RFC 3339 in UTC, to the nanosecond.
func JSONTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// PlainOutputs are outputs as JSON values, sensitive ones redacted.
func PlainOutputs(outputs map[string]cty.Value) map[string]any {
	out := make(map[string]any, len(outputs))
	for name, val := range outputs {
		out[name] = PlainJSON(val)
	}
	return out
}
