package runtime

import (
	"time"

	"github.com/flowctl/flowctl/runtime/event"
	"github.com/zclconf/go-cty/cty"
)

// The run's events and statuses are data and live in package
// runtime/event, which code that only renders a run imports alone; these
// are their names here, so that the runtime's callers need not know.

// Status of a step instance or a run.
type Status = event.Status

// Statuses (docs/design.md, "Commands").
const (
	StatusOK        = event.StatusOK
	StatusFailed    = event.StatusFailed
	StatusSkipped   = event.StatusSkipped
	StatusCached    = event.StatusCached
	StatusCancelled = event.StatusCancelled
	StatusWaiting   = event.StatusWaiting
)

// The events (see package runtime/event).
type (
	Event            = event.Event
	RunStarted       = event.RunStarted
	StepStarted      = event.StepStarted
	StepFinished     = event.StepFinished
	StepEnded        = event.StepEnded
	StepNotice       = event.StepNotice
	StepLog          = event.StepLog
	ToolCallStarted  = event.ToolCallStarted
	ToolCallFinished = event.ToolCallFinished
	StepWaiting      = event.StepWaiting
	Waiting          = event.Waiting
	RunWaiting       = event.RunWaiting
	RunFinished      = event.RunFinished
	StepDiag         = event.StepDiag
	FailedOutput     = event.FailedOutput
	Key              = event.Key
)

// NoKey is the key of a step without for_each.
var NoKey = event.NoKey

// SensitiveText stands in for a sensitive value wherever values are shown.
const SensitiveText = event.SensitiveText

// Label is the step's name with its key, as step[0] or step["a"].
func Label(step string, k Key) string { return event.Label(step, k) }

// EventJSON is event.EventJSON.
func EventJSON(e Event) (string, any) { return event.EventJSON(e) }

// AppendEventJSON is event.AppendEventJSON.
func AppendEventJSON(b []byte, e Event) ([]byte, bool) { return event.AppendEventJSON(b, e) }

// PlainOutputs are outputs as JSON values, sensitive ones redacted.
func PlainOutputs(outputs map[string]cty.Value) map[string]any { return event.PlainOutputs(outputs) }

// PlainJSON renders a value as plain JSON for people and events: sensitive
// values (anywhere inside) become "(sensitive)", null stays null.
func PlainJSON(v cty.Value) any { return event.PlainJSON(v) }

// ShowJSON is PlainJSON with stand-in in place of each sensitive value.
func ShowJSON(v cty.Value, standIn any) any { return event.ShowJSON(v, standIn) }

// SameWay is event.SameWay: "2 more instances failed the same way: …".
func SameWay(labels []string) string { return event.SameWay(labels) }

// StepOfLabel is the step of an instance label: a of a[2] and of a["k"].
func StepOfLabel(label string) string { return event.StepOfLabel(label) }

// SortLabels sorts instance labels in natural order (event.SortLabels).
func SortLabels(labels []string) { event.SortLabels(labels) }

// CompareLabels orders two instance labels as SortLabels does.
func CompareLabels(a, b string) int { return event.CompareLabels(a, b) }

// JSONTime is how events write a time: RFC 3339 in UTC, to the nanosecond.
func JSONTime(t time.Time) string { return event.JSONTime(t) }
