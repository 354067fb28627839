package runtime

import (
	"cmp"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime/state"
)

// runs show lists a run's steps in the flow's order — by stage (a step
// after the steps it depends on), then as the file has them — and each
// step's instances in order (a[2] before a[10]), whatever order they
// started or finished in. The order is the flow file's as it is now: a
// step the file no longer has comes after the others, in the order it
// started.

// StepOrders compiles the flow files of runs, once each, for their order.
// The zero value is not ready: make one with StepOrders{}.
type StepOrders map[string]map[string]int

// Sort sorts the step results of t and of the runs it started. stateDir
// is the directory of the state the runs were read from ("" for a
// database): a run's relative flow file is found from the project's
// directory, its parent.
func (o StepOrders) Sort(t *state.RunTree, stateDir string) {
	rank := o.of(t.Run, stateDir)
	key := func(sr *state.StepResult) int {
		if r, ok := rank[sr.Step]; ok {
			return r
		}
		// After every rank of the file's steps: a rank is stage ×
		// steps + index, and may well exceed the number of steps.
		return math.MaxInt
	}
	slices.SortStableFunc(t.Steps, func(a, b *state.StepResult) int {
		if ka, kb := key(a), key(b); ka != kb {
			return cmp.Compare(ka, kb)
		}
		switch {
		case a.Step != b.Step:
			return 0 // steps the file lacks keep their order
		case t.Summaries[a] != nil:
			return -1 // a summarized step's row, then the instances listed
		case t.Summaries[b] != nil:
			return 1
		}
		return CompareLabels(a.Label(), b.Label())
	})
	for _, kids := range t.Children {
		for _, k := range kids {
			o.Sort(k, stateDir)
		}
	}
}

// of is the rank of each step of a run's flow: its place in the flow's
// order. It is empty when the flow file cannot be read; a file with errors
// (a block of a registry the command was not given) is ranked in source
// order as far as it was read.
func (o StepOrders) of(run *state.Run, stateDir string) map[string]int {
	file := run.FlowFile
	if file == "" {
		return nil
	}
	if _, err := os.Stat(file); err != nil && !filepath.IsAbs(file) && stateDir != "" {
		// The runs of a project are listed from anywhere in it.
		file = filepath.Join(filepath.Dir(stateDir), file)
	}
	if rank, ok := o[file]; ok {
		return rank
	}
	rank := map[string]int{}
	o[file] = rank
	if _, err := os.Stat(file); err != nil {
		return rank
	}
	prog, diags := compiler.Compile(file, compiler.Options{SkipCode: true})
	if prog == nil {
		return rank
	}
	if !diags.HasErrors() {
		for _, stage := range prog.Stages {
			for _, s := range stage {
				rank[s.Name] = s.Stage*len(prog.Steps) + s.Index
			}
		}
	}
	if len(rank) == 0 {
		for _, s := range prog.Steps {
			rank[s.Name] = s.Index
		}
	}
	return rank
}
