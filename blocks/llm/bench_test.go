package llm

import (
	"sync"
	"testing"
	"time"
)

// BenchmarkParallelLatency runs 50 calls at once against a server that
// takes 200ms per request, with Concurrency 10: five waves, so about
// 1000ms a batch. It reports ms/batch.
//
//	go test -run '^$' -bench ParallelLatency -benchtime 3x ./blocks/llm
func BenchmarkParallelLatency(b *testing.B) {
	s := newServer(b, ok("hi"))
	s.delay = 200 * time.Millisecond
	cfg := testConfig(s)
	cfg.Concurrency = 10
	e := NewExecutor(cfg)
	ctx := testCtx(b)
	start := time.Now()
	for b.Loop() {
		var wg sync.WaitGroup
		for range 50 {
			wg.Go(func() {
				if _, err := e.Execute(ctx, builtinCall(b, "hi")); err != nil {
					b.Error(err)
				}
			})
		}
		wg.Wait()
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N), "ms/batch")
	b.ReportMetric(float64(s.maxInFlight.Load()), "max-in-flight")
}
