package temporal

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime"
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// Values cross Temporal as runtime.EncodeValue's typed JSON; a sensitive
// value never does (see Sensitive fields).

// encode encodes a value, nil for cty.NilVal.
func encode(v cty.Value) (json.RawMessage, error) {
	if v == cty.NilVal {
		return nil, nil
	}
	return runtime.EncodeValue(v)
}

// decode reverses encode.
func decode(raw json.RawMessage) (cty.Value, error) {
	if len(raw) == 0 {
		return cty.NilVal, nil
	}
	return runtime.DecodeValue(raw)
}

func encodeMap(m map[string]cty.Value) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(m))
	for name, v := range m {
		raw, err := encode(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = raw
	}
	return out, nil
}

func decodeMap(m map[string]json.RawMessage) (map[string]cty.Value, error) {
	out := make(map[string]cty.Value, len(m))
	for name, raw := range m {
		v, err := decode(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = v
	}
	return out, nil
}

// Event is a run's event as it crosses Temporal: the events query
// returns them, and apply prints them as it prints a local run's
// (Event.Runtime). The run's outputs are typed JSON; a sensitive one is
// left out and its Sensitive says so.
type Event struct {
	Type          string                 `json:"type"`
	Time          time.Time              `json:"time"`
	RunID         string                 `json:"run_id,omitempty"`
	Flow          string                 `json:"flow,omitempty"`
	Steps         int                    `json:"steps,omitempty"`
	Step          string                 `json:"step,omitempty"`
	Instance      json.RawMessage        `json:"instance,omitempty"`
	Attempt       int                    `json:"attempt,omitempty"`
	Attempts      int                    `json:"attempts,omitempty"`
	Status        string                 `json:"status,omitempty"`
	Duration      time.Duration          `json:"duration,omitempty"`
	Error         string                 `json:"error,omitempty"`
	Reason        string                 `json:"reason,omitempty"`
	Message       string                 `json:"message,omitempty"`
	Deadline      time.Time              `json:"deadline,omitzero"`
	RunOutputs    map[string]wireOutput  `json:"run_outputs,omitempty"`
	FailedOutputs []runtime.FailedOutput `json:"failed_outputs,omitempty"`
	Diagnostics   []wireDiagnostic       `json:"diagnostics,omitempty"`
	Usage         *blocks.Usage          `json:"usage,omitempty"`
	Stream        string                 `json:"stream,omitempty"`
	Line          string                 `json:"line,omitempty"`
	// Resumed: a run_started of a run that goes on after it waited, or a
	// step_finished of an instance that kept what it recorded before the
	// run was started again.
	Resumed bool          `json:"resumed,omitempty"`
	Waiting []wireWaiting `json:"waiting,omitempty"` // of a run_waiting
}

// wireWaiting is an approval a waiting run waits for.
type wireWaiting struct {
	Step     string          `json:"step"`
	Instance json.RawMessage `json:"instance,omitempty"`
	Message  string          `json:"message,omitempty"`
	Since    time.Time       `json:"since"`
	Deadline time.Time       `json:"deadline,omitzero"`
}

type wireOutput struct {
	Value     json.RawMessage `json:"value,omitempty"`
	Sensitive bool            `json:"sensitive,omitempty"`
}

type wireDiagnostic struct {
	Severity hcl.DiagnosticSeverity `json:"severity"`
	Summary  string                 `json:"summary"`
	Detail   string                 `json:"detail,omitempty"`
	Subject  *hcl.Range             `json:"subject,omitempty"`
	Step     string                 `json:"step,omitempty"`
}

// encodeValueOf encodes a value that may be sensitive: nil and true when
// it is.
func encodeValueOf(v cty.Value) (json.RawMessage, bool, error) {
	if v == cty.NilVal {
		return nil, false, nil
	}
	if v.ContainsMarked() {
		return nil, true, nil
	}
	raw, err := runtime.EncodeValue(v)
	return raw, false, err
}

// encodeCrossing encodes a value that crosses into the history: a
// sensitive one only when payloads are encrypted (unmarked, and sensitive
// says so), else it is an error naming what.
func encodeCrossing(v cty.Value, encrypted bool, what string) (json.RawMessage, bool, error) {
	if v == cty.NilVal || !v.ContainsMarked() {
		raw, err := encode(v)
		return raw, false, err
	}
	if !encrypted {
		return nil, true, fmt.Errorf("%s sensitive, and without %s the temporal engine puts no sensitive value into a workflow's history (set it on workers and clients, or run the flow with the local engine)", what, EnvKey)
	}
	v, _ = v.UnmarkDeep()
	raw, err := encode(v)
	return raw, true, err
}

// toWire converts an event of a Machine; ok is false for events that do
// not cross (tool calls, which a task's log reports).
func toWire(e runtime.Event) (Event, bool, error) {
	var w Event
	var err error
	key := func(k runtime.Key) json.RawMessage {
		if k.IsNone() {
			return nil
		}
		raw, _ := runtime.EncodeValue(k.Value)
		return raw
	}
	switch e := e.(type) {
	case runtime.RunStarted:
		w = Event{Type: "run_started", Time: e.Time, RunID: e.RunID, Flow: e.Flow, Steps: e.Steps, Resumed: e.Resumed}
	case runtime.StepStarted:
		w = Event{Type: "step_started", Time: e.Time, Step: e.Step, Instance: key(e.Instance), Attempt: e.Attempt}
	case runtime.StepFinished:
		// Without its outputs, which no view of a run shows and which may
		// be megabytes: the run's outputs and the state have them.
		w = Event{Type: "step_finished", Time: e.Time, Step: e.Step, Instance: key(e.Instance), Status: string(e.Status),
			Attempts: e.Attempts, Duration: e.Duration, Error: e.Error, Reason: e.Reason, Usage: e.Usage}
	case runtime.StepLog:
		w = Event{Type: "step_log", Time: e.Time, Step: e.Step, Instance: key(e.Instance), Stream: e.Stream, Line: e.Line}
	case runtime.StepWaiting:
		w = Event{Type: "step_waiting", Time: e.Time, Step: e.Step, Instance: key(e.Instance), Message: e.Message, Deadline: e.Deadline}
	case runtime.RunFinished:
		w = Event{Type: "run_finished", Time: e.Time, RunID: e.RunID, Status: string(e.Status), Error: e.Error,
			FailedOutputs: e.FailedOutputs, Usage: e.Usage, RunOutputs: map[string]wireOutput{}}
		for name, v := range e.Outputs {
			var o wireOutput
			if o.Value, o.Sensitive, err = encodeValueOf(v); err != nil {
				return w, false, fmt.Errorf("output %s: %w", name, err)
			}
			w.RunOutputs[name] = o
		}
		for _, d := range e.Diagnostics {
			wd := wireDiagnostic{Severity: d.Severity, Summary: d.Summary, Detail: d.Detail, Subject: d.Subject}
			if sd, ok := d.Extra.(runtime.StepDiag); ok {
				wd.Step = sd.Step
			}
			w.Diagnostics = append(w.Diagnostics, wd)
		}
	default:
		return w, false, nil
	}
	return w, true, err
}

// decodeKey decodes an instance's key; none for nothing.
func decodeKey(raw json.RawMessage) (runtime.Key, error) {
	if len(raw) == 0 {
		return runtime.NoKey, nil
	}
	v, err := runtime.DecodeValue(raw)
	return runtime.Key{Value: v}, err
}

// Runtime converts the event back to the runtime's.
func (w Event) Runtime() (runtime.Event, error) {
	key, err := decodeKey(w.Instance)
	if err != nil {
		return nil, err
	}
	switch w.Type {
	case "run_started":
		return runtime.RunStarted{Time: w.Time, RunID: w.RunID, Flow: w.Flow, Steps: w.Steps, Resumed: w.Resumed}, nil
	case "run_waiting":
		e := runtime.RunWaiting{Time: w.Time, RunID: w.RunID}
		for _, ww := range w.Waiting {
			k, err := decodeKey(ww.Instance)
			if err != nil {
				return nil, err
			}
			e.Waiting = append(e.Waiting, runtime.Waiting{Step: ww.Step, Instance: k, Message: ww.Message, Since: ww.Since, Deadline: ww.Deadline})
		}
		return e, nil
	case "step_started":
		return runtime.StepStarted{Time: w.Time, Step: w.Step, Instance: key, Attempt: w.Attempt}, nil
	case "step_log":
		return runtime.StepLog{Time: w.Time, Step: w.Step, Instance: key, Stream: w.Stream, Line: w.Line}, nil
	case "step_waiting":
		return runtime.StepWaiting{Time: w.Time, Step: w.Step, Instance: key, Message: w.Message, Deadline: w.Deadline}, nil
	case "step_finished":
		return runtime.StepFinished{Time: w.Time, Step: w.Step, Instance: key, Status: runtime.Status(w.Status),
			Attempts: w.Attempts, Duration: w.Duration, Error: w.Error, Reason: w.Reason, Usage: w.Usage, Resumed: w.Resumed}, nil
	case "run_finished":
		e := runtime.RunFinished{Time: w.Time, RunID: w.RunID, Status: runtime.Status(w.Status), Error: w.Error,
			FailedOutputs: w.FailedOutputs, Usage: w.Usage, Outputs: map[string]cty.Value{}}
		for name, o := range w.RunOutputs {
			v, err := decodeOutput(o.Value, o.Sensitive)
			if err != nil {
				return nil, err
			}
			e.Outputs[name] = v
		}
		for _, d := range w.Diagnostics {
			hd := &hcl.Diagnostic{Severity: d.Severity, Summary: d.Summary, Detail: d.Detail, Subject: d.Subject}
			if d.Step != "" {
				hd.Extra = runtime.StepDiag{Step: d.Step}
			}
			e.Diagnostics = append(e.Diagnostics, hd)
		}
		return e, nil
	}
	return nil, fmt.Errorf("unknown event type %q", w.Type)
}

// decodeOutput decodes a value that may have been left out as sensitive.
func decodeOutput(raw json.RawMessage, sensitive bool) (cty.Value, error) {
	if sensitive {
		return cty.DynamicVal.Mark(lang.Sensitive), nil
	}
	return decode(raw)
}
