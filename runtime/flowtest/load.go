package flowtest

import (
	"context"
	"regexp"
	"sync"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/lang"
	"github.com/hashicorp/hcl/v2"
)

// LoadOptions are how Load compiles the flows of the tests.
type LoadOptions struct {
	// Registries are the registry directories of the flows' blocks.
	Registries []string
	// GoEngine builds the flows' go blocks (compiler.Options.GoEngine).
	GoEngine string
	// FlowDiags reports the problems of a flow that does not compile;
	// without it only its tests are left out (the caller reports its
	// flows).
	FlowDiags bool
}

// Load decodes the tests of the test files (*.test.hcl) among files,
// compiles each test's flow (once per flow) and checks the tests against
// it. A flow that does not compile is reported (unless o.FlowDiags is
// false), and its tests are left out.
func Load(parser *lang.Parser, files []string, o LoadOptions) ([]*compiler.Test, hcl.Diagnostics) {
	var diags hcl.Diagnostics
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
			flow, d := compiler.TestFlowFile(file, def)
			diags = append(diags, d...)
			if d.HasErrors() || broken[flow] {
				continue
			}
			prog := progs[flow]
			if prog == nil {
				p, d := compiler.Compile(flow, compiler.Options{Parser: parser, RegistryDirs: o.Registries, GoEngine: o.GoEngine, Build: true})
				if o.FlowDiags {
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

// RunOptions choose which tests RunAll runs, how often and how many at a
// time.
type RunOptions struct {
	Options
	// Filter, when set, selects the tests whose names it matches
	// (flowctl test --run).
	Filter *regexp.Regexp
	// Parallelism is how many runs at a time (at least 1).
	Parallelism int
	// Repeat runs each test this many times (at least 1), its result
	// aggregated with MinPassRate (Aggregate).
	Repeat      int
	MinPassRate float64
}

// RunAll runs the tests whose names match o.Filter, each o.Repeat times,
// o.Parallelism runs at a time, and returns their results in order.
func RunAll(ctx context.Context, tests []*compiler.Test, o RunOptions) []Result {
	var selected []*compiler.Test
	for _, t := range tests {
		if o.Filter == nil || o.Filter.MatchString(t.Def.Name) {
			selected = append(selected, t)
		}
	}
	repeat := max(o.Repeat, 1)
	runs := make([][]Result, len(selected))
	slots := make(chan struct{}, max(o.Parallelism, 1))
	var wg sync.WaitGroup
	for i, t := range selected {
		runs[i] = make([]Result, repeat)
		for n := range repeat {
			wg.Go(func() {
				slots <- struct{}{}
				defer func() { <-slots }()
				runs[i][n] = Run(ctx, t, o.Options)
			})
		}
	}
	wg.Wait()
	results := make([]Result, len(selected))
	for i, r := range runs {
		if repeat == 1 {
			results[i] = r[0]
		} else {
			results[i] = Aggregate(r, o.MinPassRate)
		}
	}
	return results
}
