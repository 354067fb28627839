// Package cli implements the flowctl commands, one file per subcommand.
// Each command parses its flags, calls the compiler (and later the runtime),
// and renders the result through a view with a human and a machine
// implementation. Main returns the exit code so that tests can run the whole
// command in-process.
package cli
