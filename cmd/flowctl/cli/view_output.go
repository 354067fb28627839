package cli

import (
	"fmt"

	"github.com/flowctl/flowctl/runtime"
)

// outputView renders the outputs of a run: all of them (and the ones
// without a value, on stderr), or one.
type outputView interface {
	All(outputs map[string]any, failed []runtime.FailedOutput) error
	One(value any) error
}

var (
	_ outputView = outputHuman{}
	_ outputView = outputJSON{}
)

// outputHuman prints NAME = JSON lines, and a single string as it is.
type outputHuman struct{ s streams }

func (v outputHuman) All(outputs map[string]any, failed []runtime.FailedOutput) error {
	writeOutputs(v.s.out, storedOutputs(outputs))
	writeFailedOutputs(v.s.err, failed)
	return nil
}

func (v outputHuman) One(value any) error {
	if str, ok := value.(string); ok {
		fmt.Fprintln(v.s.out, str)
		return nil
	}
	return writeJSON(v.s.out, value)
}

// outputJSON prints JSON: the object of the outputs, or the one value.
type outputJSON struct{ s streams }

func (v outputJSON) All(outputs map[string]any, failed []runtime.FailedOutput) error {
	if err := writeJSON(v.s.out, outputs); err != nil {
		return err
	}
	writeFailedOutputs(v.s.err, failed)
	return nil
}

func (v outputJSON) One(value any) error { return writeJSON(v.s.out, value) }
