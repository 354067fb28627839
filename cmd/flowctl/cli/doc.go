// Package cli wires the flowctl commands, and holds nothing else: one
// short file per subcommand (validate.go, plan.go, apply.go, …) that
// reads its command line with package arguments (arguments.Validate,
// arguments.Plan, …: the flags, the positional arguments and every usage
// error), calls the packages below (project, compiler, runtime and its
// engine, state, flowtest and terminal, thinker, server), and hands the
// results to the command's view in package views (views.NewPlan:
// planHuman and planJSON behind the views.Plan interface); resume.go is
// the resume flow apply --resume, approve and runs retry share. What a view is told rather than finds out — the
// terminal's colours, the default model, the working directory — is
// decided here (views.go). Errors that end a command go back to Run,
// which prints them the way the command prints its results (errors.go).
// Main returns the exit code so that tests can run the whole command in
// process.
package cli
