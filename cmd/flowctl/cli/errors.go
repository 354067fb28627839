package cli

import (
	"errors"
	"fmt"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/lang"

	"github.com/flowctl/flowctl/compiler"
	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"
)

// How a command ends with an error. A command returns one of these, and Run
// prints it the way the command prints its results: for people, on
// standard error; with --json, as one diagnostics object on standard
// output, so that a script reading the JSON never finds it empty.
//
//   - *arguments.UsageError: the command line is wrong (exit 2);
//   - diagsError: problems found before or instead of the command's work:
//     a flow that does not compile, a bad input value, a missing secret or
//     file, a stale plan, a state that cannot be opened (exit 1);
//   - exitError: the command has already printed what went wrong (a failed
//     run, files that need formatting) and only the exit code is left;
//   - any other error: a failure of the system, printed as a diagnostic
//     without a source range (exit 1).

// exitError ends a command with a given exit code, after the command has
// printed whatever explains it.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// usagef ends a command with a usage error found when it runs, such as
// a bad value of an environment variable that stands for a flag.
func usagef(format string, args ...any) error { return arguments.Usagef(format, args...) }

// diagsError ends a command with diagnostics. files are the parsed files,
// for the source snippets.
type diagsError struct {
	diags hcl.Diagnostics
	files map[string]*hcl.File
	// trailer, when set, is a line printed after the diagnostics for
	// people, such as "Test failed: 2 errors, 0 warnings."
	trailer string
}

// Error is the diagnostics' errors as sentences (hcl's Diagnostics.Error
// printed "<nil>: " for a diagnostic without a range).
func (e *diagsError) Error() string { return lang.ErrorSummary(e.diags) }

// failDiags ends a command with diagnostics (errors, and the warnings that
// came with them).
func failDiags(files map[string]*hcl.File, diags hcl.Diagnostics) error {
	return &diagsError{diags: compiler.Normalize(diags), files: files}
}

// failf ends a command with one diagnostic without a source range.
func failf(summary, format string, args ...any) error {
	return failDiags(nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...)}})
}

// report prints the error a command ended with and returns the exit code.
// started says whether cobra accepted the command line: errors before that
// are its own, about flags, commands and argument counts.
func report(s streams, cmd *cobra.Command, args []string, err error, started bool) int {
	jsonOut := cmd != nil && arguments.JSONRequested(cmd.Flags(), args)
	if errors.Is(err, views.ErrReported) {
		return exitFailure
	}
	var vf views.Failure
	if errors.As(err, &vf) {
		err = failf(vf.Summary, "%s", vf.Detail)
	}
	var ee exitError
	var ue *arguments.UsageError
	var de *diagsError
	switch {
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &de):
		if jsonOut {
			views.WriteDiagnosticsJSON(s.out, de.files, de.diags)
		} else {
			writeHumanDiagnostics(s.err, de.files, de.diags)
			if de.trailer != "" {
				fmt.Fprintln(s.err, de.trailer)
			}
		}
		return exitFailure
	case errors.As(err, &ue) || !started:
		help := fmt.Sprintf("Run '%s --help' for usage.", commandPath(cmd))
		if jsonOut {
			views.WriteDiagnosticsJSON(s.out, nil, hcl.Diagnostics{{
				Severity: hcl.DiagError, Summary: "Invalid command line", Detail: sentence(err.Error()) + " " + help,
			}})
		} else {
			fmt.Fprintf(s.err, "Error: %s\n%s\n", err, help)
		}
		return exitUsage
	}
	if jsonOut {
		views.WriteDiagnosticsJSON(s.out, nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Command failed", Detail: sentence(err.Error())}})
	} else {
		fmt.Fprintf(s.err, "Error: %s\n", err)
	}
	return exitFailure
}

func commandPath(cmd *cobra.Command) string {
	if cmd == nil {
		return "flowctl"
	}
	return cmd.CommandPath()
}

// sentence makes an error message a sentence (lang.Sentence).
func sentence(msg string) string { return lang.Sentence(msg) }
