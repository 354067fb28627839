package jsrun

import (
	"context"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/zclconf/go-cty/cty"
)

// BenchmarkTrivialCall measures one call of a trivial block through
// Executor.Execute: a fresh runtime, the inputs in, the outputs out.
func BenchmarkTrivialCall(b *testing.B) {
	e := NewExecutor()
	blk := jsBlock(b, `function execute(input, ctx) { return { out: input.in + 1 } }`)
	call := newCall(blk, cty.NumberIntVal(41))
	ctx := context.Background()
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		if _, err := e.Execute(ctx, call); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e3/float64(b.N), "µs/call")
	// The process's CPU time, garbage collection included: steadier than
	// wall time on a shared machine.
	b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/1e3/float64(b.N), "cpu-µs/call")
}

// BenchmarkForEach2000 runs a 2,000-item for_each over a js block, two
// calls at a time, as the runtime would with a concurrency of 2.
func BenchmarkForEach2000(b *testing.B) {
	const items, workers = 2000, 2
	e := NewExecutor()
	blk := jsBlock(b, `
function execute(input, ctx) {
  const words = input.in.text.split(" ")
  return { out: { n: input.in.n, words: words.length, first: words[0].toUpperCase() } }
}`)
	inputs := make([]cty.Value, items)
	for i := range inputs {
		inputs[i] = cty.ObjectVal(map[string]cty.Value{
			"n": cty.NumberIntVal(int64(i)), "text": cty.StringVal("the quick brown fox jumps over the lazy dog"),
		})
	}
	ctx := context.Background()
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for {
					i := next.Add(1) - 1
					if i >= items {
						return
					}
					if _, err := e.Execute(ctx, newCall(blk, inputs[i])); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
	}
	b.ReportMetric(float64(items*b.N)/b.Elapsed().Seconds(), "calls/s")
	b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/1e3/float64(items*b.N), "cpu-µs/call")
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
