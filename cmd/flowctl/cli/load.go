package cli

import (
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// flowLoader compiles the flow a command works on and prints problems the
// way the command prints its results.
type flowLoader struct {
	s          streams
	jsonOut    bool
	registries []string
	parser     *lang.Parser
}

func newFlowLoader(s streams, jsonOut bool, registries []string) *flowLoader {
	return &flowLoader{s: s, jsonOut: jsonOut, registries: registries, parser: lang.NewParser()}
}

// compile compiles the FLOW argument. On errors it prints them and returns
// an exitError.
func (l *flowLoader) compile(arg string) (*compiler.Program, error) {
	path, diags := flowPath(arg)
	if diags.HasErrors() {
		return nil, l.fail(diags)
	}
	prog, diags := compiler.Compile(path, compiler.Options{Parser: l.parser, RegistryDirs: l.registries})
	if diags.HasErrors() {
		return nil, l.fail(diags)
	}
	l.warn(diags)
	return prog, nil
}

// check prints diagnostics: errors end the command, warnings go to stderr.
func (l *flowLoader) check(diags hcl.Diagnostics) error {
	if diags.HasErrors() {
		return l.fail(diags)
	}
	l.warn(diags)
	return nil
}

func (l *flowLoader) fail(diags hcl.Diagnostics) error {
	diags = compiler.Normalize(diags)
	if l.jsonOut {
		writeJSON(l.s.out, newJSONValidate(l.parser.Files(), diags))
	} else {
		writeHumanDiagnostics(l.s.err, l.parser.Files(), diags)
	}
	return exitError{exitFailure}
}

func (l *flowLoader) warn(diags hcl.Diagnostics) {
	if len(diags) > 0 {
		writeHumanDiagnostics(l.s.err, l.parser.Files(), diags)
	}
}
