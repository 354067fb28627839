package runtime

import (
	"fmt"
	"strings"
	"testing"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// TestGroupFailures: the instances of a step that failed the same way
// are one diagnostic, the first instance in natural order, naming the
// others; other failures and diagnostics stay as they are.
func TestGroupFailures(t *testing.T) {
	at := &hcl.Range{Filename: "f.flow.hcl", Start: hcl.Pos{Line: 10, Column: 1}, End: hcl.Pos{Line: 10, Column: 9}}
	fail := func(label, msg string) *hcl.Diagnostic {
		return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Step failed", Subject: at, Extra: StepDiag{Step: label},
			Detail: fmt.Sprintf("Step %s (block %q) failed: %s.", label, "boom", msg)}
	}
	var diags hcl.Diagnostics
	for _, i := range []int{12, 2, 0, 1, 11, 3, 4, 5, 6, 7, 8, 9, 10, 13} {
		diags = append(diags, fail(fmt.Sprintf("a[%d]", i), "bad thing"))
	}
	diags = append(hcl.Diagnostics{fail("a[14]", "other thing")}, diags...)
	diags = append(diags, fail(`m["x"]`, "bad thing"),
		&hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Run timed out", Detail: "The run did not finish."})
	got := GroupFailures(diags)
	if len(got) != 4 {
		t.Fatalf("%d diagnostics: %v", len(got), got)
	}
	want := "Step a[0] (block \"boom\") failed: bad thing.\n\nAnd 13 more instances failed the same way: a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], and 3 others."
	if got[0].Detail != want || got[0].Extra.(StepDiag).Step != "a[0]" {
		t.Errorf("grouped: %q (%v)", got[0].Detail, got[0].Extra)
	}
	if got[1].Detail != "Step a[14] (block \"boom\") failed: other thing." || got[2].Detail != "Step m[\"x\"] (block \"boom\") failed: bad thing." ||
		got[3].Summary != "Run timed out" {
		t.Errorf("the others: %v", got[1:])
	}
	if diags[1].Detail != "Step a[12] (block \"boom\") failed: bad thing." {
		t.Errorf("the diagnostics given were changed: %q", diags[1].Detail)
	}

	// The run's error text: sentences, with plurals.
	text := RunError(diags)
	if !strings.HasPrefix(text, "f.flow.hcl:10,1: Step a[0] (block \"boom\") failed: bad thing.\n\nAnd 13 more instances failed the same way: a[1],") ||
		!strings.HasSuffix(text, "a[10], and 3 others. There are 3 more errors.") {
		t.Errorf("run error %q", text)
	}
	if got := RunError(diags[1:3]); got != "f.flow.hcl:10,1: Step a[2] (block \"boom\") failed: bad thing.\n\nAnd 1 more instance failed the same way: a[12]." {
		t.Errorf("two instances: %q", got)
	}
	if got := lang.ErrorSummary(hcl.Diagnostics{diags[0], diags[len(diags)-1]}); !strings.HasSuffix(got, " There is 1 more error.") {
		t.Errorf("one more: %q", got)
	}
}
