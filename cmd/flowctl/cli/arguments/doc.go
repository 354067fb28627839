// Package arguments reads flowctl's command lines: one file per command
// (apply.go, plan.go, validate.go, …) with a struct of the command's flags
// and positional arguments. A struct's Flags adds its flags to a
// pflag.FlagSet, bound to its fields, and its Args checks the positional
// arguments and what the flags say together: every mistake in a command
// line is a *UsageError found here, before the command does anything. It
// opens no file and reads no environment variable; what depends on them
// is decided when the command runs.
//
// Its siblings: package cli builds the cobra commands, calls a struct's
// Flags with the command's flag set and its Args in the command's RunE,
// and hands the struct to the code that runs the command; cli's report
// prints a *UsageError with exit code 2. Like Terraform's
// internal/command/arguments, it never imports a view.
package arguments
