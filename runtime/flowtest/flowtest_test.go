package flowtest

import (
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

func TestAggregate(t *testing.T) {
	pass := Result{Test: "t", Status: StatusPassed, Duration: time.Second}
	fail := Result{Test: "t", Status: StatusFailed, Duration: time.Second,
		Failures: hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Test assertion failed"}}}
	errored := Result{Test: "t", Status: StatusErrored, Failures: hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Unmocked step"}}}
	for _, c := range []struct {
		runs    []Result
		rate    float64
		status  Status
		passes  int
		failure string
	}{
		{[]Result{pass, pass, pass}, 0, StatusPassed, 3, ""},
		{[]Result{pass, fail, pass}, 0, StatusFailed, 2, "Test assertion failed"},
		{[]Result{pass, fail, pass}, 0.6, StatusPassed, 2, "Test assertion failed"},
		{[]Result{pass, fail, fail}, 0.6, StatusFailed, 1, "Test assertion failed"},
		{[]Result{errored, errored}, 0, StatusErrored, 0, "Unmocked step"},
		{[]Result{errored, fail}, 0, StatusFailed, 0, "Unmocked step"},
	} {
		got := Aggregate(c.runs, c.rate)
		summary := ""
		if len(got.Failures) > 0 {
			summary = got.Failures[0].Summary
		}
		if got.Status != c.status || got.Passes != c.passes || got.Runs != len(c.runs) || summary != c.failure {
			t.Errorf("%v at %g: %s, %d of %d, %q", c.runs, c.rate, got.Status, got.Passes, got.Runs, summary)
		}
	}
	if got := Aggregate([]Result{pass, pass}, 0); got.Duration != 2*time.Second {
		t.Errorf("duration %s", got.Duration)
	}
}

// TestStructural: what asserts see compares equal to the tuples and
// objects they write.
func TestStructural(t *testing.T) {
	v := cty.ObjectVal(map[string]cty.Value{
		"list":  cty.ListVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")}),
		"empty": cty.ListValEmpty(cty.Number),
		"set":   cty.SetVal([]cty.Value{cty.NumberIntVal(1)}),
		"map":   cty.MapVal(map[string]cty.Value{"k": cty.ListVal([]cty.Value{cty.True})}),
		"null":  cty.NullVal(cty.List(cty.String)),
	})
	want := cty.ObjectVal(map[string]cty.Value{
		"list":  cty.TupleVal([]cty.Value{cty.StringVal("a"), cty.StringVal("b")}),
		"empty": cty.EmptyTupleVal,
		"set":   cty.TupleVal([]cty.Value{cty.NumberIntVal(1)}),
		"map":   cty.ObjectVal(map[string]cty.Value{"k": cty.TupleVal([]cty.Value{cty.True})}),
		"null":  cty.NullVal(cty.DynamicPseudoType),
	})
	if got := structural(v); !got.RawEquals(want) {
		t.Errorf("structural = %#v", got)
	}
}
