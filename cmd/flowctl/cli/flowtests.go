package cli

import (
	"context"
	"path/filepath"
	goruntime "runtime"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/views"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/project"
	"github.com/flowctl/flowctl/runtime/flowtest"
	"github.com/flowctl/flowctl/runtime/watch"
	"github.com/hashicorp/hcl/v2"
)

// loadFlowTests finds the test files (*.test.hcl) under the paths and
// loads their tests (flowtest.Load): a flow that does not compile is
// reported (unless flowDiags is false: the caller reports its flows), and
// its tests are left out.
func loadFlowTests(parser *lang.Parser, paths, registries []string, goEngine string, flowDiags bool) ([]*compiler.Test, hcl.Diagnostics) {
	files, diags := project.Find(paths, lang.IsTestFile)
	tests, d := flowtest.Load(parser, files, flowtest.LoadOptions{Registries: registries, GoEngine: goEngine, FlowDiags: flowDiags})
	return tests, append(diags, d...)
}

// runFlowTests runs the tests as the test flags say (flowtest.RunAll).
func runFlowTests(ctx context.Context, tests []*compiler.Test, ex *blocks.Executors, tf testFlags) []flowtest.Result {
	return flowtest.RunAll(ctx, tests, flowtest.RunOptions{
		Options: flowtest.Options{Executors: ex, Live: tf.live},
		Filter:  tf.filter, Parallelism: tf.parallelism, Repeat: tf.repeat, MinPassRate: tf.minPassRate,
	})
}

// watchTests is a watch view that, after each cycle that applied the flow
// successfully, runs the tests of the flow in its directory and shows
// their results: lines and counts, or with --json a tests_finished event.
type watchTests struct {
	views.Watch
	ctx  context.Context
	flow string
	f    *arguments.Run
	ex   *blocks.Executors
}

func (v *watchTests) Event(e any) {
	v.Watch.Event(e)
	fin, ok := e.(watch.CycleFinished)
	if !ok || fin.Status != "ok" {
		return
	}
	parser := lang.NewParser()
	all, diags := loadFlowTests(parser, []string{filepath.Dir(v.flow)}, v.f.Registries, v.f.GoEngine, true)
	var tests []*compiler.Test
	for _, t := range all {
		if lang.AbsPath(t.Program.Filename) == lang.AbsPath(v.flow) {
			tests = append(tests, t)
		}
	}
	results := runFlowTests(v.ctx, tests, v.ex, testFlags{parallelism: 4 * goruntime.GOMAXPROCS(0)})
	v.Watch.Tests(fin.Cycle, results, parser.Files(), diags)
}
