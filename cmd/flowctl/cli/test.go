package cli

import (
	"fmt"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"sort"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/blocks/blocktest"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/project"
	"github.com/flowctl/flowctl/runtime/engine"
	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"
)

func newTestCommand(s streams) *cobra.Command {
	var jsonOut bool
	var format string
	var registries registryFlags
	var sandbox, goEngine, run string
	var unconfined bool
	var httpAllow []string
	var tf testFlags
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
			if sandbox != sandboxIsolated && sandbox != sandboxInProcess {
				return usagef("unknown --sandbox %q: use isolated or inprocess", sandbox)
			}
			goEngine, err := resolveGoEngine(goEngine)
			if err != nil {
				return err
			}
			if len(args) == 0 {
				args = []string{"."}
			}
			if run != "" {
				re, err := regexp.Compile(run)
				if err != nil {
					return usagef("--run %q is not a regular expression: %v", run, err)
				}
				tf.filter = re
			}
			if tf.parallelism < 0 {
				return usagef("--parallelism must be at least 1")
			}
			if tf.repeat < 1 {
				return usagef("--repeat must be at least 1")
			}
			if tf.minPassRate < 0 || tf.minPassRate > 1 {
				return usagef("--min-pass-rate must be between 0 and 1")
			}
			switch {
			case jsonOut && format != "" && format != "json":
				return usagef("--json and --format %s disagree", format)
			case jsonOut:
				format = "json"
			case format == "":
				format = "human"
			case format != "human" && format != "json" && format != "github":
				return usagef("unknown --format %q: use human, json or github", format)
			}
			tf.format = format
			return runTest(s, args, registries, engine.Options{Sandbox: sandbox, GoEngine: goEngine, HTTPAllow: httpAllow, Unconfined: unconfined}, tf)
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the results as one JSON object (--format json)")
	cmd.Flags().StringVar(&format, "format", "", "output format: human, json, or github (the human report and a workflow command per failure, which GitHub shows as annotations)")
	cmd.Flags().StringVar(&tf.junit, "junit", "", "also write the results as JUnit XML to this file, one testsuite per file")
	registries.registerTo(cmd, "add to the registry and test")
	cmd.Flags().BoolVar(&unconfined, "unconfined", false, unconfinedUsage)
	cmd.Flags().StringVar(&sandbox, "sandbox", sandboxIsolated, "where go and js blocks run: isolated (worker processes) or inprocess (in flowctl itself, with the same allowlists and timeouts, for reviewed code)")
	cmd.Flags().StringVar(&goEngine, "go-engine", "", goEngineUsage)
	cmd.Flags().StringVar(&run, "run", "", "run only the flow tests whose names match this regular expression")
	cmd.Flags().IntVar(&tf.parallelism, "parallelism", 0, "how many flow tests run at once (default: 4 per processor; waiting for I/O does not count)")
	cmd.Flags().BoolVar(&tf.live, "live", false, "let flow tests call models and the network through steps they do not mock")
	cmd.Flags().StringArrayVar(&httpAllow, "http-allow", nil, "with --live, where http and scrape steps may connect, as for apply (default: "+envHTTPAllow+", else anywhere but link-local addresses)")
	cmd.Flags().IntVar(&tf.repeat, "repeat", 1, "run each flow test this many times and report its pass count and pass^N (whether every run passed)")
	cmd.Flags().Float64Var(&tf.minPassRate, "min-pass-rate", 0, "with --repeat, a test passes when at least this fraction of its runs (0 to 1) passed; default: all of them")
	return cmd
}

// testFlags are the flags of flowctl test about flow tests.
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
	found, diags := loadTestBlocks(parser, paths, registries, eo.GoEngine)
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

// loadTestBlocks finds the flow and block files under the paths, as
// validate does, and returns the user blocks they define, in the blocks/
// directories next to the flows and in the registries: each once, ordered
// by file and position. Diagnostics report definitions that do not
// decode, check or compile; a flow's steps are not compiled.
func loadTestBlocks(parser *lang.Parser, paths, registries []string, goEngine string) ([]*blocks.Block, hcl.Diagnostics) {
	flows, blockFiles, diags := project.FindFlowsAndBlocks(paths, len(registries) > 0)

	found := map[string]*blocks.Block{}
	loaded := map[string]bool{}
	collect := func(r *blocks.Registry) {
		for _, f := range r.Files() {
			loaded[absPath(f)] = true
		}
		for _, b := range r.All() {
			if b.Def == nil {
				continue
			}
			key := fmt.Sprintf("%s:%d", absPath(b.Def.DeclRange.Filename), b.Def.DeclRange.Start.Byte)
			if _, ok := found[key]; !ok {
				found[key] = b
			}
		}
	}
	for _, flow := range flows {
		inline, d := lang.DecodeFlowBlockDefs(parser, flow)
		diags = append(diags, d...)
		if d.HasErrors() && inline == nil {
			continue
		}
		r, d := blocks.Load(blocks.LoadOptions{Parser: parser, FlowFile: flow, Inline: inline, RegistryDirs: registries})
		diags = append(diags, d...)
		collect(r)
	}
	if len(flows) == 0 {
		r := blocks.NewRegistry()
		for _, dir := range registries {
			diags = append(diags, r.LoadDir(parser, dir, true)...)
		}
		collect(r)
	}
	for _, bf := range blockFiles {
		if loaded[absPath(bf)] {
			continue
		}
		defs, d := blocks.ParseBlockFile(parser, bf)
		diags = append(diags, d...)
		r := blocks.NewRegistry()
		diags = append(diags, r.AddDefs(defs)...)
		collect(r)
	}

	out := make([]*blocks.Block, 0, len(found))
	for _, b := range found {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Def.DeclRange, out[j].Def.DeclRange
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Start.Byte < b.Start.Byte
	})
	defs := make([]*lang.BlockDef, len(out))
	for i, b := range out {
		defs[i] = b.Def
	}
	diags = append(diags, compiler.CheckCode(defs, goEngine)...)
	return out, diags
}
