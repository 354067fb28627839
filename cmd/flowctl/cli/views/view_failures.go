package views

import (
	"io"

	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/event"
	"github.com/hashicorp/hcl/v2"
)

// A failed step is reported once, in full, where it happened: under its
// line in the run's table (apply, watch, runs show). The instances of a
// step with for_each that fail the same way are one report: the first in
// full, the others on their lines as "failed the same way as a[2]", and
// the grouped count where the run's failures are listed. The run's
// diagnostics at the end leave out the step failures the table showed.

// sameFailures remembers, for each step and error, the first instance
// that failed with it.
type sameFailures map[string]string

// first returns the instance label that first failed with the error err
// of step, and whether that was an earlier instance than label (which it
// records otherwise).
func (f sameFailures) first(step, err, label string) (string, bool) {
	key := step + "\x00" + err
	if first, ok := f[key]; ok {
		return first, true
	}
	f[key] = label
	return label, false
}

// endOfLine is what a finished instance's line ends with: its reason, and
// the instance that first failed the same way; same reports that one did
// (its error is not shown again).
func (f sameFailures) endOfLine(e event.StepFinished, label string) (end string, same bool) {
	if e.Reason != "" {
		end += "  (" + lang.EscapeControlLine(e.Reason) + ")"
	}
	if e.Error == "" {
		return end, false
	}
	first, same := f.first(e.Step, e.Error, label)
	if same {
		end += "  (failed the same way as " + first + ")"
	}
	return end, same
}

// notShownInline are the diagnostics of a run that its table did not show:
// all but the failures of step instances.
func notShownInline(diags hcl.Diagnostics) hcl.Diagnostics {
	var out hcl.Diagnostics
	for _, d := range diags {
		if _, ok := d.Extra.(event.StepDiag); !ok {
			out = append(out, d)
		}
	}
	return out
}

// WriteRunDiagnostics prints, after a run's table, the diagnostics the
// table did not show, in colour with color.
func WriteRunDiagnostics(w io.Writer, color bool, files map[string]*hcl.File, diags hcl.Diagnostics) {
	WriteDiagnostics(w, color, files, notShownInline(diags))
}
