// Package engine says which executors and which engine run a program:
// the executors of this build (the built-in blocks, one LLM executor for
// every llm step and block, the sandbox's pool for go, js and python
// code) with the options of flags and the environment, and where the
// runs run: in this process (local) or on Temporal's workers, dialled
// with the data converter every worker and client shares.
//
// The CLI's commands (plan, apply, approve, watch, test, think, worker,
// serve, mcp) take their executors and their Temporal client from here,
// so that every entry point runs blocks the same way. A setting that
// cannot be used is a *SettingError, which a command reports as a
// mistake in its command line; a failure that people must act on
// (Temporal not answering, a run that cannot be resumed) is returned as
// hcl.Diagnostics. The sibling package runtime runs a program with the
// executors; runtime/temporal is the temporal engine itself.
package engine

import "fmt"

// SettingError is a setting, given by a flag or by the environment, that
// cannot be used: an unknown engine or sandbox, a number out of range, a
// malformed allow list. Commands report it as a mistake in their command
// line.
type SettingError struct{ Msg string }

func (e *SettingError) Error() string { return e.Msg }

// settingf is a *SettingError with a formatted message.
func settingf(format string, args ...any) error {
	return &SettingError{fmt.Sprintf(format, args...)}
}
