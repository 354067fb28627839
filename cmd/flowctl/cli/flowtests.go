package cli

import (
	"context"
	"path/filepath"
	goruntime "runtime"
	"sync"

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

// loadFlowTests finds the test files (*.test.hcl) under the paths, decodes
// their tests, compiles each test's flow (once per flow) and checks the
// tests against it. A flow that does not compile is reported (unless
// flowDiags is false: the caller reports its flows), and its tests are
// left out.
func loadFlowTests(parser *lang.Parser, paths, registries []string, goEngine string, flowDiags bool) ([]*compiler.Test, hcl.Diagnostics) {
	files, diags := project.Find(paths, lang.IsTestFile)
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
		if absPath(t.Program.Filename) == absPath(v.flow) {
			tests = append(tests, t)
		}
	}
	results := runFlowTests(v.ctx, tests, v.ex, testFlags{parallelism: 4 * goruntime.GOMAXPROCS(0)})
	v.Watch.Tests(fin.Cycle, results, parser.Files(), diags)
}
