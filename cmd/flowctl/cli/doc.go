// Package cli implements the flowctl commands: one file per subcommand
// (validate.go, plan.go, apply.go, …) that reads its command line with
// package arguments (arguments.Validate, arguments.Plan, …: the flags,
// the positional arguments and every usage error) and calls the compiler
// and the runtime, and one view file per command that renders its
// results (view_plan.go: planHuman and planJSON behind the planView
// interface). Errors that end a command go back to Run, which prints them
// the way the command prints its results (errors.go). Main returns the
// exit code so that tests can run the whole command in process.
package cli
