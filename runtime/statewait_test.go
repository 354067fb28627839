package runtime

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestRunErrorWithoutRange: a run failed by an error that has no source
// range — its results could not be recorded (a full disk, a state gone)
// — has that error as its text, with no "<nil>" for the range it lacks
// (hcl's Diagnostic.Error printed one: "<nil>: Results not recorded; …").
func TestRunErrorWithoutRange(t *testing.T) {
	d := hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Results not recorded",
		Detail: "Step results of this run could not be recorded in the state, so the run is failed: database or disk is full."}}
	got := RunError(d)
	if got != d[0].Detail || strings.Contains(got, "<nil>") {
		t.Errorf("run error %q, want %q", got, d[0].Detail)
	}
}
