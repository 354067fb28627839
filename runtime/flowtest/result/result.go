// Package result holds the outcome of a flow test (package flowtest runs
// them) as data: what renders or stores it imports this package, which
// executes nothing.
package result

import (
	"time"

	"github.com/hashicorp/hcl/v2"
)

// Status is how a test ended.
type Status string

// The statuses of a Result.
const (
	// StatusPassed: exactly the expected steps failed and every assert
	// held.
	StatusPassed Status = "passed"
	// StatusFailed: an assert did not hold, or other steps failed than
	// the expected ones.
	StatusFailed Status = "failed"
	// StatusErrored: the test could not run as written (it would call a
	// model or the network, its state could not be made, an assert could
	// not be evaluated).
	StatusErrored Status = "errored"
)

// Result is the outcome of one test.
type Result struct {
	Test     string
	Range    hcl.Range // the test's name in its file
	Status   Status
	Duration time.Duration
	// Failures say why a test failed or errored: diagnostics with the
	// ranges of the test file (an assert's condition, with the values of
	// its references) or of the flow (a step that failed).
	Failures hcl.Diagnostics
	// Runs and Passes count the runs of a test run several times
	// (--repeat); both are 0 for a test run once.
	Runs, Passes int
}
