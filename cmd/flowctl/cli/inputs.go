package cli

import (
	"os"

	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/compiler/inputs"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// inputValues reads the flags (inputs.Given): --input-file values first, in
// order, then each --input, so that a flag overrides a file; the
// environment's FLOWCTL_INPUT_* come before both. The files are read with
// p, which keeps them for the diagnostics' snippets.
func inputValues(f *arguments.Inputs, p *lang.Parser) (map[string]compiler.InputValue, hcl.Diagnostics, error) {
	given, diags, err := inputs.Given(p, os.Environ(), f.Files, f.Pairs)
	if err != nil {
		return nil, nil, usagef("%s", err)
	}
	return given, diags, nil
}
