package views

import (
	"fmt"
	"io"
	"strings"

	"github.com/flowctl/flowctl/runtime/event"
	"github.com/flowctl/flowctl/runtime/state"
)

// Output renders the outputs of a run: all of them (and the ones
// without a value, on stderr), or one.
type Output interface {
	All(outputs map[string]any, failed []event.FailedOutput) error
	One(value any) error
}

var (
	_ Output = outputHuman{}
	_ Output = outputJSON{}
)

// NewOutput returns the view of output: outputs on out, the outputs
// without a value on errw.
func NewOutput(out, errw io.Writer, jsonOut bool) Output {
	if jsonOut {
		return outputJSON{out, errw}
	}
	return outputHuman{out, errw}
}

// outputHuman prints NAME = JSON lines, and a single string as it is.
type outputHuman struct{ out, err io.Writer }

func (v outputHuman) All(outputs map[string]any, failed []event.FailedOutput) error {
	writeOutputs(v.out, storedOutputs(outputs))
	writeFailedOutputs(v.err, failed)
	return nil
}

func (v outputHuman) One(value any) error {
	if str, ok := value.(string); ok {
		fmt.Fprintln(v.out, str)
		return nil
	}
	return WriteJSON(v.out, value)
}

// outputJSON prints JSON: the object of the outputs, or the one value.
type outputJSON struct{ out, err io.Writer }

func (v outputJSON) All(outputs map[string]any, failed []event.FailedOutput) error {
	if err := WriteJSON(v.out, outputs); err != nil {
		return err
	}
	writeFailedOutputs(v.err, failed)
	return nil
}

func (v outputJSON) One(value any) error { return WriteJSON(v.out, value) }

// WriteOutputHeader says whose outputs follow (one output's: one): the
// run, its flow and when it finished; and others, the flows the state has
// runs of too when output chose the flow, and how to choose one.
func WriteOutputHeader(w io.Writer, run *state.Run, one bool, others []string) {
	when := ""
	if !run.FinishedAt.IsZero() {
		when = ", finished " + run.FinishedAt.Local().Format("2006-01-02 15:04:05")
	}
	what := "Outputs"
	if one {
		what = "Output"
	}
	fmt.Fprintf(w, "%s of run %s of flow %q (%s%s):\n", what, run.ID, run.Flow, run.Status, when)
	if len(others) == 0 {
		return
	}
	fmt.Fprintf(w, "(the newest successful run; the state has runs of %s too: choose one with --flow FLOW, or a run with --run RUN_ID)\n",
		strings.Join(others, ", "))
}
