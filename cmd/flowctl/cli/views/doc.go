// Package views renders what the flowctl commands show: one file per
// command (view_plan.go, view_runs.go, …), each with a human and a JSON
// implementation behind an interface (Plan: planHuman and planJSON, made
// by NewPlan), as Terraform's internal/command/views does. The shared
// parts live here once: the table of step instances (view_table.go), the
// grouping of instances that failed the same way (view_failures.go), the
// diagnostics with their source snippets and their JSON shape
// (diagnostics.go), durations and plurals.
//
// A view renders plain data — the compiler's plans, the blocks'
// definitions, the state's records, the run's and the thinker's events,
// the importer's results, server/api's JSON shapes — on the io.Writers it
// is given. It reads neither the environment nor the working directory:
// the command (package cli) says whether a writer shows colours, which
// model llm steps default to, which directory paths are relative to. It
// imports nothing that executes (TestImports), and its output is pinned
// by the goldens of testdata (TestGoldens, go test -update rewrites them).
package views
