package cli

import (
	"fmt"
	"path/filepath"
	"regexp"
	goruntime "runtime"

	"github.com/flowctl/flowctl/blocks/blocktest"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/engine"
	"github.com/flowctl/flowctl/runtime/flowtest"
	"github.com/spf13/cobra"
)

func newTestCommand(s streams) *cobra.Command {
	var a arguments.Test
	cmd := &cobra.Command{
		Use:   "test [PATH...]",
		Short: "Run the tests of flows (*.test.hcl) and the examples of blocks",
		Long: `Test runs every example of every block defined in the flows (*.flow.hcl) and
block files (*.block.hcl) under the paths (default: the current directory),
in the blocks/ directories next to the flows and in the --registry
directories. Each example calls its block with the example's inputs; it passes
when the outputs the example gives equal what the block returns, and fails
with a diff of the fields that differ. Examples of llm blocks are skipped: a
model's reply is not deterministic. Test exits 1 when any example fails or a
block definition has errors.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := a.Args(args); err != nil {
				return err
			}
			goEngine, err := resolveGoEngine(a.GoEngine)
			if err != nil {
				return err
			}
			return runTest(s, a.Paths, a.Registries, engine.Options{Sandbox: a.Sandbox, GoEngine: goEngine, HTTPAllow: a.HTTPAllow, Unconfined: a.Unconfined}, testFlags{
				filter: a.Filter, parallelism: a.Parallelism, live: a.Live, repeat: a.Repeat, minPassRate: a.MinPassRate, format: a.Format, junit: a.JUnit,
			})
		},
	}
	a.Flags(cmd.Flags())
	return cmd
}

// testFlags are how flowctl test runs flow tests (arguments.Test).
type testFlags struct {
	filter      *regexp.Regexp // --run
	parallelism int
	live        bool
	repeat      int
	minPassRate float64
	format      string // human, json or github
	junit       string // --junit FILE
}

func runTest(s streams, paths, registries []string, eo engine.Options, tf testFlags) error {
	parser := lang.NewParser()
	found, diags := flowtest.LoadBlocks(parser, paths, registries, eo.GoEngine)
	tests, d := loadFlowTests(parser, paths, registries, eo.GoEngine, true)
	diags = append(diags, d...)
	diags = compiler.Normalize(diags)
	if diags.HasErrors() {
		errs, warns := views.CountDiags(diags)
		return &diagsError{diags: diags, files: parser.Files(),
			trailer: fmt.Sprintf("Test failed: %s, %s.", views.Plural(errs, "error", "errors"), views.Plural(warns, "warning", "warnings"))}
	}
	writeHumanDiagnostics(s.err, parser.Files(), diags)

	view := views.NewTest(s.out, tf.format, workDir(), saveJUnit(tf.junit))
	examples := 0
	for _, b := range found {
		examples += len(b.Def.Examples)
	}
	if examples == 0 && len(tests) == 0 {
		return view.Done(len(found))
	}
	eo.Warnings = s.err
	ex, release, err := executors(eo)
	if err != nil {
		return err
	}
	defer release()
	ctx, stop := interruptible()
	defer stop()
	for _, b := range found {
		if len(b.Def.Examples) == 0 {
			continue
		}
		view.Block(blocktest.Run(ctx, b, ex, blocktest.Options{
			Dir: filepath.Dir(b.Def.DeclRange.Filename),
			Log: func(block, line string) { fmt.Fprintf(s.err, "%s: %s\n", block, line) },
		}))
	}
	if len(tests) > 0 {
		if tf.parallelism == 0 {
			tf.parallelism = 4 * goruntime.GOMAXPROCS(0)
		}
		view.Tests(runFlowTests(ctx, tests, ex, tf), parser.Files())
	}
	err = view.Done(len(found))
	if ctx.Err() != nil {
		fmt.Fprintln(s.err, "Test cancelled.")
		return exitError{exitFailure}
	}
	return err
}
