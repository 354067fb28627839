package cli

import (
	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/project"
	"github.com/spf13/cobra"
)

func newFmtCommand(s streams) *cobra.Command {
	var a arguments.Fmt
	cmd := &cobra.Command{
		Use:   "fmt [PATH...]",
		Short: "Rewrite flow and block files in canonical style",
		Long: `Fmt rewrites every *.hcl file under the paths (default: the current
directory), recursively, in canonical HCL style and lists the files it changed.
With --check it changes nothing, lists the files that would change and exits 1
if there are any. With --diff it also prints the changes as a unified diff.
The path - formats standard input to standard output.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			return runFmt(s, a.Paths, a.Check, a.Diff)
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}

func runFmt(s streams, paths []string, check, diff bool) error {
	res := project.Format(paths, s.in, !check)
	changed := views.WriteFormatted(s.out, res.Files, check, diff)
	diags := compiler.Normalize(res.Diags)
	writeHumanDiagnostics(s.err, res.Parsed, diags)
	if diags.HasErrors() || (check && changed > 0) {
		return exitError{exitFailure}
	}
	return nil
}
