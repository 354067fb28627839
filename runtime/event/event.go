package event

import (
	"strconv"

	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/flowctl/flowctl/blocks"
	"github.com/zclconf/go-cty/cty"
)

// Status of a step instance or a run.
type Status string

// Statuses (docs/design.md, "Commands").
const (
	StatusOK        Status = "ok"
	StatusFailed    Status = "failed"
	StatusSkipped   Status = "skipped"
	StatusCached    Status = "cached"
	StatusCancelled Status = "cancelled"
	// StatusWaiting is the status of an approval step instance that waits
	// for a person's decision, and of a run that has nothing left to do
	// but wait for one (docs/design.md, "Approvals").
	StatusWaiting Status = "waiting"
)

// Event is something that happened during a run, in the order the runner
// reports them. Observers are called one event at a time.
type Event interface{ event() }

// RunStarted is the first event of a run, and of each resumption of it
// (Resumed).
type RunStarted struct {
	Time    time.Time
	RunID   string
	Flow    string
	Steps   int
	Resumed bool
}

// StepStarted reports the start of an attempt of a step instance.
type StepStarted struct {
	Time     time.Time
	Step     string
	Instance Key
	Attempt  int
}

// StepFinished reports the end of a step instance.
type StepFinished struct {
	Time     time.Time
	Step     string
	Instance Key
	Status   Status
	Attempts int
	Duration time.Duration
	Error    string // redacted: no sensitive value appears in it
	Reason   string // why a step was skipped
	Outputs  cty.Value
	Usage    *blocks.Usage
	// Resumed: the instance finished before the run was resumed, and
	// keeps what it recorded then.
	Resumed bool
	// Retries are the requests its block tried again within its attempts
	// (an llm call the provider answered 429), and Waited how long it
	// waited before them in all (StepNotice).
	Retries int
	Waited  time.Duration
}

// StepEnded reports that every instance of a step with for_each has
// ended (each with its StepFinished before it): a view that shows such a
// step as one line of counts prints it then. It has no JSON event (the
// step_finished events of its instances say it all), and an engine that
// runs the instances elsewhere (Temporal) may not report it: a view then
// ends the step's line with the run.
type StepEnded struct {
	Time      time.Time
	Step      string
	Instances int
	// Duration is from the step's start to the end of its last instance.
	Duration time.Duration
}

// StepNotice reports what a step instance's block says while it runs
// (blocks.Notice): that it waits before trying a request again, or builds
// a compiled block's program first.
type StepNotice struct {
	Time     time.Time
	Step     string
	Instance Key
	Kind     blocks.NoticeKind
	Message  string        // redacted
	Wait     time.Duration // before the next try (blocks.NoticeRetry)
}

// StepLog reports a line a step instance printed (console.log in js,
// print and println in go), redacted.
type StepLog struct {
	Time     time.Time
	Step     string
	Instance Key
	Stream   string // "stdout": the sandboxes give no other
	Line     string
}

// StepDelta carries text of a streaming llm step's reply as it comes
// (docs/llm.md, "Streaming"), in order and before the instance's
// StepFinished, secrets redacted. Reset: the text of this instance that
// came before is not part of the reply (a try after a broken stream, a
// re-ask, another attempt); the reply is what follows.
type StepDelta struct {
	Time     time.Time
	Step     string
	Instance Key
	Text     string
	Reset    bool
}

// ToolCallStarted reports that the model of an llm step called one of the
// step's tools.
type ToolCallStarted struct {
	Time      time.Time
	Step      string
	Instance  Key
	Tool      string // flow.NAME or block.NAME; the name the model gave when no tool has it
	CallID    string
	Arguments string // as the model wrote them, with sensitive text redacted
}

// ToolCallFinished reports how a tool call ended. Error is what the model
// was told when the call failed; RunID is the run of a flow tool.
type ToolCallFinished struct {
	Time     time.Time
	Step     string
	Instance Key
	Tool     string
	CallID   string
	Duration time.Duration
	Cached   bool
	RunID    string
	Error    string
}

// Status is how the call ended: ok, cached or failed.
func (e ToolCallFinished) Status() Status {
	switch {
	case e.Error != "":
		return StatusFailed
	case e.Cached:
		return StatusCached
	}
	return StatusOK
}

// StepWaiting reports an approval step instance that waits for a
// decision.
type StepWaiting struct {
	Time     time.Time
	Step     string
	Instance Key
	Message  string
	Deadline time.Time // zero for none
}

// Waiting is an approval step instance a run waits for.
type Waiting struct {
	Step     string
	Instance Key
	Message  string
	Since    time.Time
	Deadline time.Time // zero for none
	// Fields are the names of the step's input fields, which a decision
	// fills in (flowctl approve --set).
	Fields []string
}

// RunWaiting is the last event of a run that stops to wait for approvals:
// everything that did not depend on them has finished. Outputs are those
// it could evaluate, as for a failed run. The run goes on when it is
// resumed (runtime.Options.Resume), after a decision.
type RunWaiting struct {
	Time          time.Time
	RunID         string
	Waiting       []Waiting
	Outputs       map[string]cty.Value
	FailedOutputs []FailedOutput
}

// RunFinished is the last event of a run.
type RunFinished struct {
	Time    time.Time
	RunID   string
	Status  Status
	Outputs map[string]cty.Value // sensitive outputs keep their mark
	// FailedOutputs are the outputs the run could not evaluate (see
	// runtime.Result).
	FailedOutputs []FailedOutput
	Error         string          // the errors as one text
	Diagnostics   hcl.Diagnostics // the errors, redacted (runtime.Result.Diagnostics)
	Usage         *blocks.Usage   // the tokens of the run's LLM calls; nil when none
}

// StepDiag is the Extra of a diagnostic about a step instance's failure:
// which one (its label, step[key]).
type StepDiag struct{ Step string }

// FailedOutput is an output that a run could not evaluate.
type FailedOutput struct {
	Name string `json:"name"`
	// Step is the step whose failure, skipping or cancellation left the
	// output without a value; empty when the output's own expression
	// failed.
	Step   string `json:"step,omitempty"`
	Reason string `json:"reason"` // redacted
}

func (RunStarted) event()   {}
func (StepStarted) event()  {}
func (StepFinished) event() {}
func (RunFinished) event()  {}
func (StepWaiting) event()  {}
func (RunWaiting) event()   {}
func (StepNotice) event()   {}
func (StepEnded) event()    {}

func (StepLog) event()          {}
func (StepDelta) event()        {}
func (ToolCallStarted) event()  {}
func (ToolCallFinished) event() {}

// At returns the event stamped with the time t it is delivered at: the
// runtime stamps each event as it hands it to the observer, so that
// times never go backwards in the order observers see them.
func (e RunStarted) At(t time.Time) Event   { e.Time = t; return e }
func (e StepStarted) At(t time.Time) Event  { e.Time = t; return e }
func (e StepFinished) At(t time.Time) Event { e.Time = t; return e }
func (e RunFinished) At(t time.Time) Event  { e.Time = t; return e }
func (e StepWaiting) At(t time.Time) Event  { e.Time = t; return e }
func (e RunWaiting) At(t time.Time) Event   { e.Time = t; return e }
func (e StepLog) At(t time.Time) Event      { e.Time = t; return e }
func (e StepDelta) At(t time.Time) Event    { e.Time = t; return e }
func (e StepNotice) At(t time.Time) Event   { e.Time = t; return e }
func (e StepEnded) At(t time.Time) Event    { e.Time = t; return e }

// Tool calls keep the times they were made at.
func (e ToolCallStarted) At(time.Time) Event  { return e }
func (e ToolCallFinished) At(time.Time) Event { return e }

// Key is a step instance's key: none for a step without for_each, the index
// for a list, set or tuple, the key for a map or object.
type Key struct {
	Value cty.Value // cty.NilVal for a single instance
}

// NoKey is the key of a step without for_each.
var NoKey = Key{}

// IsNone reports whether k is NoKey.
func (k Key) IsNone() bool { return k.Value == cty.NilVal }

// JSON returns the key as a JSON-ready value: nil, an int or a string.
func (k Key) JSON() any {
	switch {
	case k.IsNone():
		return nil
	case k.Value.Type() == cty.Number:
		i, _ := k.Value.AsBigFloat().Int64()
		return i
	}
	return k.Value.AsString()
}

// String is "" for NoKey, else the index or the key.
func (k Key) String() string {
	switch v := k.JSON().(type) {
	case nil:
		return ""
	case int64:
		return strconv.FormatInt(v, 10)
	default:
		return v.(string)
	}
}

// Label is the step's name with its key, as step[0] or step["a"].
func Label(step string, k Key) string {
	switch v := k.JSON().(type) {
	case nil:
		return step
	case int64:
		return step + "[" + strconv.FormatInt(v, 10) + "]"
	default:
		return step + "[" + strconv.Quote(v.(string)) + "]"
	}
}
