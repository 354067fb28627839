package cli

import (
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/project"
	"github.com/hashicorp/hcl/v2"
)

// flowLoader compiles the flow a command works on. Errors end the command
// as a diagsError, which Run prints as the command prints its results;
// warnings go to standard error at once.
type flowLoader struct {
	s          streams
	registries []string
	parser     *lang.Parser
	goEngine   string // --go-engine, resolved
	// skipCode compiles a flow for its shape (its name, its steps) without
	// checking or building its blocks' code (compiler.Options.SkipCode).
	skipCode bool
}

func newFlowLoader(s streams, registries []string) *flowLoader {
	return &flowLoader{s: s, registries: registries, parser: lang.NewParser()}
}

// compile compiles the FLOW argument (project.Compile).
func (l *flowLoader) compile(arg string) (*compiler.Program, error) {
	prog, diags := project.Compile(arg, compiler.Options{Parser: l.parser, RegistryDirs: l.registries, GoEngine: l.goEngine, Release: true, SkipCode: l.skipCode})
	if err := l.check(diags); err != nil {
		return nil, err
	}
	return prog, nil
}

// check ends the command when diags has errors, and prints warnings.
func (l *flowLoader) check(diags hcl.Diagnostics) error {
	if diags.HasErrors() {
		return l.fail(diags)
	}
	l.warn(diags)
	return nil
}

// fail ends the command with diags, printed with the parsed files'
// snippets.
func (l *flowLoader) fail(diags hcl.Diagnostics) error {
	return failDiags(l.parser.Files(), diags)
}

func (l *flowLoader) warn(diags hcl.Diagnostics) {
	if len(diags) > 0 {
		writeHumanDiagnostics(l.s.err, l.parser.Files(), compiler.Normalize(diags))
	}
}
