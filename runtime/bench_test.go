package runtime

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/flowctl/flowctl/bench/flowgen"
	"github.com/flowctl/flowctl/compiler"
	"github.com/flowctl/flowctl/runtime/state"
	"github.com/zclconf/go-cty/cty"
)

func compileBench(b testing.TB, src []byte) *compiler.Program {
	b.Helper()
	path := filepath.Join(b.TempDir(), "bench.flow.hcl")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		b.Fatal(err)
	}
	prog, diags := compiler.Compile(path, compiler.Options{})
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	return prog
}

// BenchmarkApply10k applies 100 chains of 100 value steps with --no-cache,
// recording every result (and cache entry) in the state: the figure is
// the run time per step.
func BenchmarkApply10k(b *testing.B) {
	prog := compileBench(b, flowgen.Chains(100, 100))
	inputs, _ := prog.ResolveInputs(nil)
	st, err := state.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := Apply(context.Background(), prog, Options{Inputs: inputs, Store: st, NoCache: true})
		if err != nil || res.Status != StatusOK {
			b.Fatalf("%v %v", err, res.Diagnostics)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/10000, "µs/step")
}

// BenchmarkSkewed runs chain A (10 × 30ms) beside chain B (300ms, then
// 9 × 1ms): the critical path is 309ms; running stage by stage would take
// about 1.8 times that. The figure is the run time over the critical path.
func BenchmarkSkewed(b *testing.B) {
	prog := compileBench(b, flowgen.Skewed())
	inputs, _ := prog.ResolveInputs(nil)
	b.ResetTimer()
	for b.Loop() {
		res, err := Apply(context.Background(), prog, Options{Inputs: inputs, NoCache: true})
		if err != nil || res.Status != StatusOK {
			b.Fatalf("%v %v", err, res.Diagnostics)
		}
	}
	per := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(per)/float64(309*time.Millisecond), "x-critical-path")
}

// BenchmarkFanOut20 and BenchmarkFanOut1000 run a for_each of 20 and
// 1,000 × sleep 200ms with default options.
func BenchmarkFanOut20(b *testing.B)   { benchFanOut(b, 20) }
func BenchmarkFanOut1000(b *testing.B) { benchFanOut(b, 1000) }

func benchFanOut(b *testing.B, n int) {
	prog := compileBench(b, flowgen.FanOut(n, "200ms"))
	inputs, _ := prog.ResolveInputs(nil)
	b.ResetTimer()
	for b.Loop() {
		res, err := Apply(context.Background(), prog, Options{Inputs: inputs, NoCache: true})
		if err != nil || res.Status != StatusOK {
			b.Fatalf("%v %v", err, res.Diagnostics)
		}
	}
	b.ReportMetric(float64((b.Elapsed() / time.Duration(b.N)).Milliseconds()), "ms/run")
}

// BenchmarkForEach2k and BenchmarkForEach8k run one for_each value step
// over 2,000 and 8,000 records with --no-cache, recording every instance
// in the state: the figure is the run time per instance, which must not
// grow with the number of instances.
func BenchmarkForEach2k(b *testing.B) { benchForEach(b, 2000) }
func BenchmarkForEach8k(b *testing.B) { benchForEach(b, 8000) }

func benchForEach(b *testing.B, n int) {
	prog := compileBench(b, flowgen.ForEach(false))
	items := make([]cty.Value, n)
	for i := range items {
		items[i] = cty.ObjectVal(map[string]cty.Value{"id": cty.NumberIntVal(int64(i)), "name": cty.StringVal(fmt.Sprintf("item %d", i))})
	}
	inputs, diags := prog.ResolveInputs(map[string]compiler.InputValue{"items": {Value: cty.ListVal(items), Source: "bench"}})
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	st, err := state.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := Apply(context.Background(), prog, Options{Inputs: inputs, Store: st, NoCache: true, Observe: func(Event) {}})
		if err != nil || res.Status != StatusOK {
			b.Fatalf("%v %v", err, res.Diagnostics)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(n), "µs/instance")
}
