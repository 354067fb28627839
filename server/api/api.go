package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/lang/diagjson"
	"github.com/flowctl/flowctl/runtime/event"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/hashicorp/hcl/v2"
)

// Version is the version of the shapes, the /v1 of the API's paths.
const Version = 1

// MaxListed is how many instances a step may have and be listed instance
// by instance in a run.
const MaxListed = 50

// A Run is a run with its step instances (GET /v1/runs/{id}).
type Run struct {
	RunID         string          `json:"run_id"`
	Flow          string          `json:"flow"`
	Namespace     string          `json:"namespace"`
	Status        string          `json:"status"`
	StartedAt     *string         `json:"started_at"`
	FinishedAt    *string         `json:"finished_at"`
	Inputs        json.RawMessage `json:"inputs"`
	Outputs       json.RawMessage `json:"outputs"`
	FailedOutputs json.RawMessage `json:"failed_outputs"`
	Error         *RunError       `json:"error,omitempty"`
	// Usage is the tokens the run's llm steps used, in all; absent when
	// none.
	Usage *blocks.Usage `json:"usage,omitempty"`
	// Steps are the step instances of the steps with at most MaxListed
	// of them; Summarized the other steps.
	Steps      []Step        `json:"steps"`
	Summarized []StepSummary `json:"summarized,omitempty"`
	// WaitingFor, of a waiting run, are the approvals it waits for; of
	// a queued run, the limit it waits for.
	WaitingFor []Waiting `json:"waiting_for,omitempty"`
	// Version is the version of the flow the run runs (its sources'
	// content hash, and the git commit of the flow's directory); absent
	// when it recorded none.
	Version *FlowVersion `json:"version,omitempty"`
	// Paused, of a paused run, says since when and by whom: no step
	// starts until it is resumed.
	Paused    *Pause            `json:"paused,omitempty"`
	LastEvent int64             `json:"last_event"` // the number of the last event recorded (0: none)
	Links     map[string]string `json:"links"`
}

// A Step is a step instance.
type Step struct {
	Step       string          `json:"step"`
	Instance   string          `json:"instance,omitempty"`
	Status     string          `json:"status"`
	Attempts   int             `json:"attempts"`
	StartedAt  *string         `json:"started_at"`
	FinishedAt *string         `json:"finished_at"`
	Error      string          `json:"error,omitempty"`
	Outputs    json.RawMessage `json:"outputs,omitempty"`
	Sensitive  bool            `json:"sensitive,omitempty"` // its outputs are sensitive, so not recorded
	Log        string          `json:"log,omitempty"`
	// Usage is the tokens an llm step's instance used; absent for other
	// steps.
	Usage *blocks.Usage `json:"usage,omitempty"`
}

// A StepSummary is a step of more than MaxListed instances: how many
// ended how, the most attempts one took, the first start and the last
// finish, and the first MaxListed instances that did not succeed.
type StepSummary struct {
	Step       string         `json:"step"`
	Instances  int            `json:"instances"`
	Counts     map[string]int `json:"counts"`
	Attempts   int            `json:"attempts"`
	StartedAt  *string        `json:"started_at"`
	FinishedAt *string        `json:"finished_at"`
	// Unsuccessful are instances that failed, were cancelled or wait;
	// More says there are more of them than are listed.
	Unsuccessful []Step            `json:"unsuccessful"`
	More         bool              `json:"more,omitempty"`
	Links        map[string]string `json:"links"`
}

// A Waiting is an approval a run waits for.
type Waiting struct {
	// Limit, of a queued run, is the limit of its flow it waits for:
	// `concurrency key "c-17"` (Step is empty then).
	Limit    string  `json:"limit,omitempty"`
	Step     string  `json:"step,omitempty"`
	Instance string  `json:"instance,omitempty"`
	Message  string  `json:"message"`
	Deadline *string `json:"deadline"`
	// Fields are the input fields the person deciding fills in
	// (runtime.ApprovalField); absent when none.
	Fields json.RawMessage `json:"fields,omitempty"`
}

// A FlowVersion is the version of its flow a run runs.
type FlowVersion struct {
	Hash   string `json:"hash"`
	Commit string `json:"commit,omitempty"`
}

// A Pause is a run's pause.
type Pause struct {
	Since *string `json:"since"`
	By    string  `json:"by"`
}

// versioned is a Source that knows runs' versions and pauses (the
// state does).
type versioned interface {
	RunVersion(runID string) (*state.RunVersion, error)
	Paused(runID string) (*state.Pause, error)
}

// readVersion adds to out the run's version and pause, when src knows them.
func readVersion(src Source, out *Run) error {
	vs, ok := src.(versioned)
	if !ok {
		return nil
	}
	v, err := vs.RunVersion(out.RunID)
	if err != nil {
		return err
	}
	if v != nil {
		out.Version = &FlowVersion{Hash: v.Hash, Commit: v.Commit}
	}
	p, err := vs.Paused(out.RunID)
	if err != nil {
		return err
	}
	if p != nil {
		out.Paused = &Pause{Since: Time(p.At), By: p.By}
	}
	return nil
}

// A RunError is why a run did not succeed: the text, and each error as a
// diagnostic with the step it is about, as run_finished has it.
type RunError struct {
	Message     string       `json:"message"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// A Diagnostic of a RunError.
type Diagnostic struct {
	Severity string          `json:"severity"`
	Summary  string          `json:"summary"`
	Detail   string          `json:"detail"`
	Range    *diagjson.Range `json:"range,omitempty"`
	Step     string          `json:"step,omitempty"` // the step instance: step or step[key]
}

// Unsuccessful are the statuses of the instances a StepSummary lists.
var Unsuccessful = []string{"failed", "cancelled", "waiting"}

// Time is a time as the API writes it; nil for the zero time.
func Time(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := event.JSONTime(t)
	return &s
}

// RawOrNull is a JSON value, null when absent.
func RawOrNull(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("null")
	}
	return b
}

// RunLinks are a run's URLs.
func RunLinks(id string) map[string]string {
	return map[string]string{"self": "/v1/runs/" + id, "events": "/v1/runs/" + id + "/events"}
}

// NewStep is a step record as the API shows it: its outputs plain.
func NewStep(st *state.StepResult) Step {
	return Step{Step: st.Step, Instance: st.Instance, Status: st.Status, Attempts: st.Attempts,
		StartedAt: Time(st.StartedAt), FinishedAt: Time(st.FinishedAt), Error: st.Error,
		Outputs: PlainValue(st.Outputs), Sensitive: st.Sensitive, Log: st.Log, Usage: UsageOf(st.Usage)}
}

// UsageOf is token usage as the state keeps it (JSON of blocks.Usage);
// nil when there is none.
func UsageOf(raw json.RawMessage) *blocks.Usage {
	var u blocks.Usage
	if len(raw) == 0 || json.Unmarshal(raw, &u) != nil || u.PromptTokens+u.CompletionTokens+u.TotalTokens == 0 {
		return nil
	}
	if u.TotalTokens == 0 {
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	return &u
}

// PlainValue is a value the state keeps with its type
// (runtime.EncodeValue: {"type": …, "value": …}) as plain JSON, its
// value; anything else as it is.
func PlainValue(raw json.RawMessage) json.RawMessage {
	t := bytes.TrimLeft(raw, " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return raw
	}
	var typed struct {
		Type  json.RawMessage `json:"type"`
		Value json.RawMessage `json:"value"`
	}
	if json.Unmarshal(raw, &typed) != nil || typed.Type == nil || typed.Value == nil {
		return raw
	}
	return typed.Value
}

// A Source is what a Run is read from: the state's queries.
type Source interface {
	StepCounts(runID string) ([]state.StepCount, error)
	StepResults(runID string, q state.StepQuery) ([]*state.StepResult, error)
	LastEventSeq(runID string) (int64, error)
	LastEvent(runID, typ string) (*state.Event, error)
	OpenApprovals(runIDs []string) (map[string][]*state.Approval, error)
}

// ReadRun reads a run's step instances and error from src: the steps of
// at most MaxListed instances whole, the others summarized. It reads the
// number of the last event first, so that a client that follows the
// events after it misses none of what happened after the steps were read.
func ReadRun(src Source, run *state.Run) (*Run, error) {
	last, err := src.LastEventSeq(run.ID)
	if err != nil {
		return nil, err
	}
	counts, err := src.StepCounts(run.ID)
	if err != nil {
		return nil, err
	}
	out := &Run{
		RunID: run.ID, Flow: run.Flow, Namespace: run.Namespace, Status: run.Status,
		StartedAt: Time(run.StartedAt), FinishedAt: Time(run.FinishedAt),
		Inputs: RawOrNull(run.Inputs), Outputs: RawOrNull(run.Outputs), FailedOutputs: RawOrNull(run.FailedOutputs),
		Steps: []Step{}, LastEvent: last, Links: RunLinks(run.ID), Usage: UsageOf(run.Usage),
	}
	var big []string
	bySteps := map[string]*StepSummary{}
	for _, c := range counts {
		s := bySteps[c.Step]
		if s == nil {
			s = &StepSummary{Step: c.Step, Counts: map[string]int{}, Unsuccessful: []Step{},
				Links: map[string]string{"instances": "/v1/runs/" + run.ID + "/steps/" + c.Step}}
			bySteps[c.Step] = s
			big = append(big, c.Step)
		}
		s.Instances += c.Instances
		s.Counts[c.Status] += c.Instances
		s.Attempts = max(s.Attempts, c.Attempts)
		if st := Time(c.Started); st != nil && (s.StartedAt == nil || *st < *s.StartedAt) {
			s.StartedAt = st
		}
		if fin := Time(c.Finished); fin != nil && (s.FinishedAt == nil || *fin > *s.FinishedAt) {
			s.FinishedAt = fin
		}
	}
	big = slices.DeleteFunc(big, func(step string) bool { return bySteps[step].Instances <= MaxListed })
	steps, err := src.StepResults(run.ID, state.StepQuery{Except: big})
	if err != nil {
		return nil, err
	}
	for _, st := range steps {
		out.Steps = append(out.Steps, NewStep(st))
	}
	for _, step := range big {
		s := bySteps[step]
		failed, err := src.StepResults(run.ID, state.StepQuery{Step: step, Statuses: Unsuccessful, Limit: MaxListed + 1})
		if err != nil {
			return nil, err
		}
		if len(failed) > MaxListed {
			failed, s.More = failed[:MaxListed], true
		}
		for _, st := range failed {
			s.Unsuccessful = append(s.Unsuccessful, NewStep(st))
		}
		out.Summarized = append(out.Summarized, *s)
	}
	if out.Error, err = ReadRunError(src, run, steps); err != nil {
		return nil, err
	}
	if run.Status == string(event.StatusWaiting) {
		open, err := src.OpenApprovals([]string{run.ID})
		if err != nil {
			return nil, err
		}
		for _, a := range open[run.ID] {
			out.WaitingFor = append(out.WaitingFor, Waiting{Step: a.Step, Instance: a.Instance, Message: a.Message, Deadline: Time(a.Deadline), Fields: a.Fields})
		}
	}
	if run.Status == state.StatusQueued && run.WaitingFor != "" {
		out.WaitingFor = append(out.WaitingFor, Waiting{Limit: run.WaitingFor,
			Message: "The run waits for its turn: " + run.WaitingFor + "."})
	}
	if err := readVersion(src, out); err != nil {
		return nil, err
	}
	return out, nil
}

// ReadRunError is a run's error: the one its run_finished event gave,
// when the events are recorded (flowctl serve records them), else one
// made of the run's error text and its failed steps' errors (steps, when
// not nil, are some of them already read). Nil for a run without an
// error.
func ReadRunError(src Source, run *state.Run, steps []*state.StepResult) (*RunError, error) {
	if run.Error == "" {
		return nil, nil
	}
	ev, err := src.LastEvent(run.ID, "run_finished")
	if err != nil {
		return nil, err
	}
	if ev != nil {
		var doc struct {
			Error *RunError `json:"error"`
		}
		if json.Unmarshal(ev.Data, &doc) == nil && doc.Error != nil && doc.Error.Message == run.Error {
			return doc.Error, nil
		}
	}
	failed, err := src.StepResults(run.ID, state.StepQuery{Statuses: []string{"failed"}, Limit: MaxListed})
	if err != nil {
		return nil, err
	}
	e := &RunError{Message: run.Error, Diagnostics: []Diagnostic{}}
	for _, st := range failed {
		label := st.Step
		if st.Instance != "" {
			label += "[" + st.Instance + "]"
		}
		e.Diagnostics = append(e.Diagnostics, Diagnostic{Severity: "error", Summary: "Step failed",
			Detail: fmt.Sprintf("Step %s failed: %s.", label, st.Error), Step: label})
	}
	return e, nil
}

// DiagnosticsError is the error of a run that did not start, from the
// diagnostics that stopped it.
func DiagnosticsError(message string, files map[string]*hcl.File, diags hcl.Diagnostics) *RunError {
	e := &RunError{Message: message, Diagnostics: []Diagnostic{}}
	for _, d := range diagjson.New(files, diags).Diagnostics {
		e.Diagnostics = append(e.Diagnostics, Diagnostic{Severity: d.Severity, Summary: d.Summary, Detail: d.Detail, Range: d.Range})
	}
	return e
}
