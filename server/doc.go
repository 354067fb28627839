// Package server is flowctl serve: an HTTP API that runs the flows under a
// directory with the local runtime and the same state as apply, and
// streams each run's events (the documents of apply --json) as
// Server-Sent Events, replayed from the state for a client that connects
// late or reconnects.
//
// Requests enter through Server.ServeHTTP, which checks the token
// (auth.go) and hands them to one handler per resource, methods of Server:
// flows.go (the flows and their graphs, compiled by the flowSet of
// flowset.go, again when their files change), runs.go (starting, listing,
// reading and cancelling runs, and the queue), events.go (a run's event
// stream), approvals.go (decisions, and the runs that wait for them), explain.go
// (explaining a failed run with Options.Model, package thinker) and
// proposals.go (the changes staged in the state, accepted or rejected). A run
// the server started or queued is a liveRun (liverun.go) until it has
// finished: runtime.Apply, or the Engine of the options (Temporal), runs it
// and records it in the state (package runtime/state), and its events go
// both to the state and to the streams that follow it. Every reply body is
// JSON written by respond.go, errors in one shape. Around the runs:
// schedule.go starts the runs of the flows' schedules, notify.go POSTs
// finished runs' summaries, metrics.go serves Prometheus metrics, and
// dashboard.go serves the web dashboard of package directory web (plain
// ES modules over the same API).
//
// The CLI (cmd/flowctl/cli, serve.go) opens the state and the executors and
// makes a Server with them; tokenfile.go reads and watches its tokens
// (TokenFiles), and listen.go listens (Listen, TLS, NewHTTPServer) and
// serves it until a signal, then drains and closes it (Server.Serve).
package server
