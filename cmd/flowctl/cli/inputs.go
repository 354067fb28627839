package cli

import (
	"os"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/compiler/inputs"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"
)

// inputFlags are the --input and --input-file flags of plan, apply and
// watch.
type inputFlags struct {
	pairs []string
	files []string
}

func (f *inputFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&f.pairs, "input", nil, "set an input: NAME=VALUE, VALUE an HCL literal or else a string (repeatable)")
	cmd.Flags().StringArrayVar(&f.files, "input-file", nil, "read input values from a file: JSON (*.json, one object) or HCL attributes (name = \"ada\", as a .tfvars file; any other name) (repeatable)")
}

// values parses the flags (inputs.Given): --input-file values first, in
// order, then each --input, so that a flag overrides a file; the
// environment's FLOWCTL_INPUT_* come before both. The files are read with
// p, which keeps them for the diagnostics' snippets.
func (f *inputFlags) values(p *lang.Parser) (map[string]compiler.InputValue, hcl.Diagnostics, error) {
	given, diags, err := inputs.Given(p, os.Environ(), f.files, f.pairs)
	if err != nil {
		return nil, nil, usageError{err.Error()}
	}
	return given, diags, nil
}
