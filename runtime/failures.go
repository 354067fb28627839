package runtime

import (
	"fmt"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// A step with for_each whose instances fail the same way — the same
// block error for every item — would give one diagnostic per instance:
// a hundred items, a hundred copies of one message. A run reports each
// distinct failure once (GroupFailures), and says which other instances
// failed the same way.

// GroupFailures folds the diagnostics of the instances of one step that
// failed the same way (the same summary, place and error, all but the
// instance) into the first of them, in natural order of the instances,
// whose detail then ends "And 97 more instances failed the same way:
// s[1], s[2], …". The failures of a step are in the order of their
// instances; other diagnostics are kept as they are, in their order.
func GroupFailures(diags hcl.Diagnostics) hcl.Diagnostics {
	type group struct {
		first  *hcl.Diagnostic
		labels []string
	}
	groups := map[string]*group{}
	var out hcl.Diagnostics
	for _, d := range diags {
		sd, ok := d.Extra.(StepDiag)
		if !ok || d.Subject == nil {
			out = append(out, d)
			continue
		}
		key := failureKey(d, sd)
		g := groups[key]
		if g == nil {
			g = &group{first: d}
			groups[key] = g
			out = append(out, d)
		}
		g.labels = append(g.labels, sd.Step)
	}
	for i, d := range out {
		sd, ok := d.Extra.(StepDiag)
		if !ok || d.Subject == nil {
			continue
		}
		g := groups[failureKey(d, sd)]
		if len(g.labels) < 2 {
			continue
		}
		SortLabels(g.labels)
		first := *g.first
		first.Detail = strings.Replace(g.first.Detail, sd.Step, g.labels[0], 1) + "\n\nAnd " + SameWay(g.labels[1:])
		first.Extra = StepDiag{Step: g.labels[0]}
		out[i] = &first
	}
	// The failures at one step (next to one another, as Normalize sorts
	// by place) in the order of their instances, not of their ends.
	for i := 0; i < len(out); {
		j := i + 1
		for j < len(out) && sameStepPlace(out[i], out[j]) {
			j++
		}
		slices.SortStableFunc(out[i:j], func(a, b *hcl.Diagnostic) int {
			return CompareLabels(a.Extra.(StepDiag).Step, b.Extra.(StepDiag).Step)
		})
		i = j
	}
	return out
}

// sameStepPlace reports whether a and b are failures of instances at the
// same place (of the same step).
func sameStepPlace(a, b *hcl.Diagnostic) bool {
	_, okA := a.Extra.(StepDiag)
	_, okB := b.Extra.(StepDiag)
	return okA && okB && a.Subject != nil && b.Subject != nil && *a.Subject == *b.Subject
}

// failureKey is what two failures of instances of a step have alike when
// they failed the same way: all of the diagnostic but the instance.
func failureKey(d *hcl.Diagnostic, sd StepDiag) string {
	return fmt.Sprintf("%d\x00%s\x00%s\x00%s\x00%s", d.Severity, d.Subject, d.Summary, StepOfLabel(sd.Step),
		strings.Replace(d.Detail, sd.Step, "", 1))
}

// RunError is a run's error text: its errors as sentences
// (lang.ErrorSummary), the instances of a step that failed the same way
// grouped (GroupFailures). It is what run_finished, runs show and the
// dashboard show.
func RunError(diags hcl.Diagnostics) string {
	return lang.ErrorSummary(GroupFailures(diags))
}
