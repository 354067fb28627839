package state

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// BenchmarkRecordStep measures what a large run costs the store: 10,000
// RecordStep and 10,000 CachePut calls, then Flush, into a database that
// keeps the earlier iterations' runs (as a state directory keeps its
// history). It reports
//
//   - ns/row: the wall time from the first call to Flush's return, divided
//     by the 20,000 rows: the writer's throughput, since it commits while
//     the calls are still being made, as it does under the runtime;
//   - handoff-ns/row: the time the calls themselves take, divided by the
//     rows: what the runtime's goroutines pay.
//
// Run it with
//
//	go test ./runtime/state -run '^$' -bench RecordStep -benchtime 10x -count 5
func BenchmarkRecordStep(b *testing.B) {
	const n = 10_000
	s := openStore(b)
	outputs := json.RawMessage(`{"count":42,"text":"the quick brown fox jumps over the lazy dog"}`)
	usage := json.RawMessage(`{"prompt_tokens":120,"completion_tokens":80}`)
	instances := make([]string, n)
	for i := range instances {
		instances[i] = fmt.Sprint(i)
	}
	keys := make([]string, n)
	var handoff time.Duration
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		run := &Run{Flow: "bench"}
		if err := s.CreateRun(run); err != nil {
			b.Fatal(err)
		}
		for j := range keys {
			// Cache keys are hashes: random, as far as the index is
			// concerned.
			sum := sha256.Sum256(fmt.Appendf(nil, "%s/%d", run.ID, j))
			keys[j] = hex.EncodeToString(sum[:])
		}
		start := time.Now()
		b.StartTimer()

		for j := range n {
			s.RecordStep(&StepResult{
				RunID: run.ID, Step: "work", Instance: instances[j], Status: "ok",
				Attempts: 1, StartedAt: start, FinishedAt: start,
				Outputs: outputs, CacheKey: keys[j], Usage: usage,
			})
			s.CachePut(keys[j], "bench", "work", outputs)
		}
		handoff += time.Since(start)
		if err := s.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	rows := float64(b.N * 2 * n)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/rows, "ns/row")
	b.ReportMetric(float64(handoff.Nanoseconds())/rows, "handoff-ns/row")
}
