package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	goruntime "runtime"
	"sync"
	"time"

	"github.com/flowctl/flowctl/blocks"
	"github.com/flowctl/flowctl/cmd/flowctl/cli/arguments"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/flowctl/flowctl/runtime/flowtest"
	"github.com/flowctl/flowctl/runtime/watch"
	"github.com/hashicorp/hcl/v2"
)

// loadFlowTests finds the test files (*.test.hcl) under the paths, decodes
// their tests, compiles each test's flow (once per flow) and checks the
// tests against it. A flow that does not compile is reported (unless
// flowDiags is false: the caller reports its flows), and its tests are
// left out.
func loadFlowTests(parser *lang.Parser, paths, registries []string, goEngine string, flowDiags bool) ([]*compiler.Test, hcl.Diagnostics) {
	files, diags := findFiles(paths, lang.IsTestFile)
	progs := map[string]*compiler.Program{}
	broken := map[string]bool{}
	var out []*compiler.Test
	for _, file := range files {
		if !lang.IsTestFile(file) {
			continue
		}
		f, d := parser.ParseFile(file)
		diags = append(diags, d...)
		if d.HasErrors() {
			continue
		}
		defs, d := lang.DecodeTestFile(f)
		diags = append(diags, d...)
		for _, def := range defs {
			flow, d := testFlow(file, def)
			diags = append(diags, d...)
			if d.HasErrors() || broken[flow] {
				continue
			}
			prog := progs[flow]
			if prog == nil {
				p, d := compiler.Compile(flow, compiler.Options{Parser: parser, RegistryDirs: registries, GoEngine: goEngine, Build: true})
				if flowDiags {
					diags = append(diags, d...)
				}
				if d.HasErrors() {
					broken[flow] = true
					continue
				}
				prog, progs[flow] = p, p
			}
			t, d := compiler.CompileTest(prog, def)
			diags = append(diags, d...)
			if !d.HasErrors() {
				out = append(out, t)
			}
		}
	}
	return out, diags
}

// testFlow is the flow file a test runs (compiler.TestFlowFile).
func testFlow(file string, def *lang.TestDef) (string, hcl.Diagnostics) {
	return compiler.TestFlowFile(file, def)
}

// runFlowTests runs the tests whose names match --run, each --repeat
// times, --parallelism runs at a time, and returns their results in
// order.
func runFlowTests(ctx context.Context, tests []*compiler.Test, ex *blocks.Executors, tf testFlags) []flowtest.Result {
	var selected []*compiler.Test
	for _, t := range tests {
		if tf.filter == nil || tf.filter.MatchString(t.Def.Name) {
			selected = append(selected, t)
		}
	}
	repeat := max(tf.repeat, 1)
	runs := make([][]flowtest.Result, len(selected))
	slots := make(chan struct{}, max(tf.parallelism, 1))
	var wg sync.WaitGroup
	for i, t := range selected {
		runs[i] = make([]flowtest.Result, repeat)
		for n := range repeat {
			wg.Go(func() {
				slots <- struct{}{}
				defer func() { <-slots }()
				runs[i][n] = flowtest.Run(ctx, t, flowtest.Options{Executors: ex, Live: tf.live})
			})
		}
	}
	wg.Wait()
	results := make([]flowtest.Result, len(selected))
	for i, r := range runs {
		if repeat == 1 {
			results[i] = r[0]
		} else {
			results[i] = flowtest.Aggregate(r, tf.minPassRate)
		}
	}
	return results
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
	f    *arguments.Run
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
	all, diags := loadFlowTests(parser, []string{filepath.Dir(v.flow)}, v.f.Registries, v.f.GoEngine, true)
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
