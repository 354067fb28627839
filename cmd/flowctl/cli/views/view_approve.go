package views

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime/event"
)

// WriteResumePlan says what a resumption will run, from its plan: the
// steps that changed since the run started, and a line for each step with
// instances to run, how many of how many and why, naming them (at most
// compiler.MaxRunLabels); the steps that keep all they recorded have none.
// A changed step with for_each whose instances that succeeded run again
// is followed by how to keep them (--keep-succeeded).
func WriteResumePlan(w io.Writer, runID string, plan *compiler.Plan, changed, keep []string) {
	fmt.Fprintf(w, "Resuming run %s", runID)
	if len(changed) > 0 {
		fmt.Fprintf(w, "; changed since it started: %s", strings.Join(changed, ", "))
	}
	fmt.Fprintln(w, ".")
	width := 0
	for _, s := range plan.Steps {
		width = max(width, len(s.Name))
	}
	for _, s := range plan.Steps {
		if s.ToRun == 0 || s.Action == compiler.ActionSkip {
			continue
		}
		line := fmt.Sprintf("  %-10s %-*s", actionSymbols[s.Action], width, s.Name)
		switch c := instanceCounts(s); {
		case c != "":
			line += "  " + c
			if len(s.RunLabels) > 0 && s.Reason != "" {
				line += ": " + runKeysText(s)
			}
		case s.Reason != "":
			line += "  (" + s.Reason + ")"
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
		for _, r := range s.Why {
			if r.Reason == "changed" && s.ForEach != nil && !slices.Contains(keep, s.Name) && !slices.Contains(keep, "step."+s.Name) {
				fmt.Fprintf(w, "  %-10s %-*s  its %s that succeeded run again with the change; --keep-succeeded step.%s keeps them\n",
					"", width, "", commaPlural(r.N, "instance", "instances"), s.Name)
			}
		}
	}
	fmt.Fprintln(w)
}

// runKeysText names the instances of a step that would run, the first
// compiler.MaxRunLabels of them.
func runKeysText(s *compiler.PlannedStep) string {
	text := strings.Join(s.RunLabels, ", ")
	if more := s.ToRun - len(s.RunLabels); more > 0 {
		text += fmt.Sprintf(" and %s more", comma(more))
	}
	return text
}

// WriteHowToDecide tells what a waiting run waits for, and the commands
// that decide.
func WriteHowToDecide(w io.Writer, runID string, waiting []event.Waiting) {
	fmt.Fprintf(w, "\nRun %s waits for approval:\n", runID)
	for _, wt := range waiting {
		line := fmt.Sprintf("  %s: %s", event.Label(wt.Step, wt.Instance), wt.Message)
		if !wt.Deadline.IsZero() {
			line += fmt.Sprintf(" (until %s)", wt.Deadline.Local().Format("2006-01-02 15:04"))
		}
		fmt.Fprintln(w, line)
	}
	wt := waiting[0]
	inst := ""
	if k := wt.Instance.String(); k != "" {
		inst = " --instance " + ShellQuote(k)
	}
	sets := ""
	for _, f := range wt.Fields {
		sets += " --set " + f + "=VALUE"
	}
	fmt.Fprintf(w, "Decide with:\n  flowctl approve %s %s%s%s [--comment TEXT]\n  flowctl approve %s %s%s --reject [--comment TEXT]\n",
		runID, wt.Step, inst, sets, runID, wt.Step, inst)
}

// Hold stops the view's output (kept until release) and returns the
// terminal, for a question.
func (v *ApplyHuman) Hold() io.Writer {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.clear()
	out := v.w
	v.held = &bytes.Buffer{}
	v.w = v.held
	v.asking = true
	return out
}

// Release prints what the view held, and goes on.
func (v *ApplyHuman) Release() {
	v.mu.Lock()
	defer v.mu.Unlock()
	held := v.held
	v.w, v.held, v.asking = v.term, nil, false
	v.w.Write(held.Bytes())
	v.redraw()
}
