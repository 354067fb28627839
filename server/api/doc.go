// Package api is the JSON of flowctl's API, version 1 (docs/serve.md,
// "API shapes"): the runs and step instances of flowctl serve's /v1 and of
// flowctl mcp's run resources, built from the records of the state
// (package runtime/state). One shape everywhere: a run's error is the
// object of apply --json's run_finished event, and values are plain JSON
// (a step's outputs as its run's, not the typed form the state keeps).
//
// A step of more than MaxListed instances (a for_each over many items) is
// not listed instance by instance: it is a StepSummary (counts by status,
// the instances that did not succeed), and its instances are read a page
// at a time (package server, GET /v1/runs/{id}/steps/{step}).
//
// What enters: a run record of the state and a Source to read the rest
// from (its step instances, its events' last number and run_finished
// event), or the diagnostics of a run that did not start; and a client's
// arguments for a run (JSON values by input name). What leaves: a Run
// (ReadRun), a RunError (ReadRunError, DiagnosticsError) and a Step
// (NewStep), which package server and package mcp write as they are; and
// the problems of the arguments as sentences in the client's words
// (CheckArguments), never those of a command line.
//
// The files:
//
//   - api.go: the shapes, and reading a run into them.
//   - arguments.go: checking a client's arguments against a flow's inputs.
package api
