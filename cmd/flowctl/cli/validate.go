package cli

import (
	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/project"
	"github.com/flowctl/flowctl/runtime/evaluate"
	"github.com/spf13/cobra"
)

func newValidateCommand(s streams) *cobra.Command {
	var a arguments.Validate
	cmd := &cobra.Command{
		Use:   "validate [PATH...]",
		Short: "Check flows and block files for errors",
		Long: `Validate checks syntax, references, types, cycles and block definitions of
every flow (*.flow.hcl), block file (*.block.hcl) and test file (*.test.hcl)
under the paths (default: the current directory), recursively, and says how
many of each it checked. It exits 1 when there are errors.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			goEngine, err := resolveGoEngine(a.GoEngine)
			if err != nil {
				return err
			}
			return runValidate(s, a.Paths, a.Format, a.Registries, goEngine)
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}

func runValidate(s streams, paths []string, format string, registries []string, goEngine string) error {
	parser := lang.NewParser()
	flows, blockFiles, diags := project.FindFlowsAndBlocks(paths, false)
	loaded := map[string]bool{}
	for _, flow := range flows {
		prog, d := compiler.Compile(flow, compiler.Options{Parser: parser, RegistryDirs: registries, GoEngine: goEngine, Release: true, Build: true})
		diags = append(diags, d...)
		if prog.Registry != nil {
			for _, f := range prog.Registry.Files() {
				loaded[lang.AbsPath(f)] = true
			}
		}
	}
	for _, bf := range blockFiles {
		if loaded[lang.AbsPath(bf)] {
			continue
		}
		defs, d := blocks.ParseBlockFile(parser, bf)
		diags = append(diags, d...)
		d = blocks.NewRegistry().AddDefs(defs)
		diags = append(diags, d...)
		if !d.HasErrors() {
			diags = append(diags, compiler.CheckCode(defs, goEngine)...)
		}
	}
	_, d := loadFlowTests(parser, paths, registries, goEngine, false)
	_, de := evaluate.Find(parser, paths, evaluate.LoadOptions{Registries: registries, GoEngine: goEngine})
	diags = append(append(diags, d...), de...)
	diags = compiler.ForChecking(compiler.Normalize(diags))

	testFiles := 0
	for name := range parser.Files() {
		if lang.IsTestFile(name) {
			testFiles++
		}
	}
	if err := views.NewValidate(s.out, s.err, colorTerminal(s.err), format).Result(parser.Files(), diags, len(flows), len(blockFiles), testFiles); err != nil {
		return err
	}
	if diags.HasErrors() {
		return exitError{exitFailure}
	}
	return nil
}
