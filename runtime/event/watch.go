package event

import (
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

// The events of a watch session (package runtime/watch) come around
// each cycle's run: CycleStarted, the run's events, CycleFinished. They
// are not run events (Event): a session's observer takes any.

// CycleStarted begins a cycle: a compilation and, if it succeeds, a run.
type CycleStarted struct {
	Time    time.Time
	Cycle   int
	Changed []string // the files whose change started it; none for the first
}

// CycleFinished ends a cycle.
type CycleFinished struct {
	Time     time.Time
	Cycle    int
	Status   string // "ok", "failed", "cancelled", or "invalid" when the flow did not compile
	Duration time.Duration
	// Diagnostics are the compiler's (status invalid) or the run's; Files
	// holds the sources for printing them.
	Diagnostics hcl.Diagnostics
	Files       map[string]*hcl.File
	// Outputs are the outputs of this cycle, or of the last good cycle when
	// this one failed; Changed names those that differ from the previous
	// good cycle's.
	Outputs        map[string]cty.Value
	ChangedOutputs []string
	Ran, Cached    int
}
