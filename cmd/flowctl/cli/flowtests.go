package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	goruntime "runtime"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/flowtest"
	"github.com/flowctl/flowctl/runtime/watch"
	"github.com/hashicorp/hcl/v2"
)

// loadFlowTests finds the test files (*.test.hcl) under the paths and
// loads their tests (flowtest.Load): a flow that does not compile is
// reported (unless flowDiags is false: the caller reports its flows), and
// its tests are left out.
func loadFlowTests(parser *lang.Parser, paths, registries []string, goEngine string, flowDiags bool) ([]*compiler.Test, hcl.Diagnostics) {
	files, diags := findFiles(paths, lang.IsTestFile)
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

// testPlace is where a test is: FILE:LINE.
func testPlace(r flowtest.Result) string {
	return fmt.Sprintf("%s:%d", relPath(r.Range.Filename), r.Range.Start.Line)
}

// watchTests is a watch view that, after each cycle that applied the flow
// successfully, runs the tests of the flow in its directory and shows
// their results: lines and counts, or with --json a tests_finished event.
type watchTests struct {
	watchView
	ctx  context.Context
	flow string
	s    streams
	f    *runFlags
	ex   *blocks.Executors
	json bool
}

// jsonTestsFinished is the event of --json after a cycle's tests.
type jsonTestsFinished struct {
	jsonHead
	Cycle int `json:"cycle"`
	testCounts
	Results []any `json:"results"`
}

func (v *watchTests) Event(e any) {
	v.watchView.Event(e)
	fin, ok := e.(watch.CycleFinished)
	if !ok || fin.Status != "ok" {
		return
	}
	parser := lang.NewParser()
	all, diags := loadFlowTests(parser, []string{filepath.Dir(v.flow)}, v.f.registries, v.f.goEngine, true)
	var tests []*compiler.Test
	for _, t := range all {
		if absPath(t.Program.Filename) == absPath(v.flow) {
			tests = append(tests, t)
		}
	}
	results := runFlowTests(v.ctx, tests, v.ex, testFlags{parallelism: 4 * goruntime.GOMAXPROCS(0)})
	if v.json {
		tj := newTestJSON(io.Discard)
		tj.Tests(results, parser.Files())
		out := jsonTestsFinished{jsonHead: jsonHead{"tests_finished", jsonTime(time.Now())}, Cycle: fin.Cycle, testCounts: tj.out.testCounts, Results: tj.out.Results}
		if j, ok := v.watchView.(*watchJSON); ok {
			j.write(out)
		}
		return
	}
	writeHumanDiagnostics(v.s.err, parser.Files(), diags)
	h := newTestHuman(v.s.out)
	h.Tests(results, parser.Files())
	c := h.counts
	fmt.Fprintf(v.s.out, "  tests: %d passed, %d failed, %d errored\n\n", c.Passed, c.Failed, c.Errored)
}
