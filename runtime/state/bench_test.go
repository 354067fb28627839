package state

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// BenchmarkRecordStep measures what one run of a large flow costs the
// store: 10,000 RecordStep and 10,000 CachePut calls, then Flush. ns/row is
// the wall time divided by the 20,000 rows; the writer commits while the
// calls are still being made, as it does under the runtime.
func BenchmarkRecordStep(b *testing.B) {
	const n = 10_000
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()

	outputs := json.RawMessage(`{"count":42,"text":"the quick brown fox jumps over the lazy dog"}`)
	usage := json.RawMessage(`{"prompt_tokens":120,"completion_tokens":80}`)
	instances := make([]string, n)
	for i := range instances {
		instances[i] = fmt.Sprint(i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		run := &Run{Flow: "bench", Status: "running"}
		if err := s.CreateRun(run); err != nil {
			b.Fatal(err)
		}
		keys := make([]string, n)
		for j := range keys {
			// Cache keys are hashes: random, as far as the index is concerned.
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
		if err := s.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*2*n), "ns/row")
}
