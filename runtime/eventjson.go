package runtime

import (
	"time"

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
	}
	jsonRunFinished struct {
		Type          string         `json:"type"`
		Time          string         `json:"time"`
		RunID         string         `json:"run_id"`
		Status        string         `json:"status"`
		Outputs       map[string]any `json:"outputs"`
		FailedOutputs []FailedOutput `json:"failed_outputs,omitempty"`
		Error         string         `json:"error,omitempty"`
		Usage         *blocks.Usage  `json:"usage,omitempty"`
	}
)

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
			Status: string(e.Status), DurationMS: e.Duration.Milliseconds(), Reason: e.Reason, Attempts: e.Attempts, Usage: e.Usage,
			Resumed: e.Resumed,
		}
		if e.Error != "" {
			ev.Error = &e.Error
		}
		return "step_finished", ev
	case StepWaiting:
		return "step_waiting", jsonStepWaiting{"step_waiting", JSONTime(e.Time), e.Step, e.Instance.JSON(), e.Message, optTime(e.Deadline)}
	case RunWaiting:
		ws := make([]jsonWaiting, len(e.Waiting))
		for i, w := range e.Waiting {
			ws[i] = jsonWaiting{w.Step, w.Instance.JSON(), w.Message, JSONTime(w.Since), optTime(w.Deadline)}
		}
		return "run_waiting", jsonRunWaiting{"run_waiting", JSONTime(e.Time), e.RunID, string(StatusWaiting), ws, PlainOutputs(e.Outputs), e.FailedOutputs}
	case RunFinished:
		return "run_finished", jsonRunFinished{"run_finished", JSONTime(e.Time), e.RunID, string(e.Status), PlainOutputs(e.Outputs), e.FailedOutputs, e.Error, e.Usage}
	}
	return "", nil
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
