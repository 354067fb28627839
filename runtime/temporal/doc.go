// Package temporal is the temporal engine: it runs flows on Temporal
// (docs/scale-out.md) with the same semantics, events and state as the
// parent package runtime runs them in one process.
//
// One generic workflow, flowctl.run (Engine.Run, workflow.go), interprets
// a compiled program with a runtime.Machine: expressions, value steps and
// what is ready are decided inside the workflow, deterministically; every
// other step instance is an activity (driver.go; engine.go's step runs it
// with runtime.RunTask), a sleep is a Temporal timer and an approval
// waits for a signal. A run that waits only for approvals records that it
// waits, and that it goes on (waiting.go); a run recorded in the state
// can start again on Temporal, keeping what finished (resume.go).
//
// Data enters a run as its workflow input, RunInput: the flow's name and
// source hash, the run's ID and its inputs as typed JSON (wire.go), which
// a client makes (NewRunInput, Runner). A worker (Engine, programs.go)
// has the programs of the flows under its directory, in every version an
// unfinished run still needs, and refuses a run of a version it does not
// have. Values cross the workflow's history as typed JSON: a sensitive
// one only when payloads are encrypted, and a large one as a reference
// to the state (codec.go, DataConverter). Events leave through the
// workflow's events query, which Follow polls for apply and serve; the
// run, its step results, events and memory leave through the worker's
// local activities into the state (package runtime/state), where runs,
// output and the API read them. Reconcile and Runner find runs whose
// workflow Temporal lost or ended without recording them, and record
// them interrupted.
//
// Package devserver, under this one, starts the temporal CLI's dev server for
// tests and benchmarks.
package temporal
