package state

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

func benchParts(b *testing.B, doSteps, doCache bool) {
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
	for b.Loop() {
		b.StopTimer()
		run := &Run{Flow: "bench", Status: "running"}
		s.CreateRun(run)
		keys := make([]string, n)
		for j := range keys {
			sum := sha256.Sum256(fmt.Appendf(nil, "%s/%d", run.ID, j))
			keys[j] = hex.EncodeToString(sum[:])
		}
		start := time.Now()
		b.StartTimer()
		for j := range n {
			if doSteps {
				s.RecordStep(&StepResult{RunID: run.ID, Step: "work", Instance: instances[j], Status: "ok", Attempts: 1, StartedAt: start, FinishedAt: start, Outputs: outputs, CacheKey: keys[j], Usage: usage})
			}
			if doCache {
				s.CachePut(keys[j], "bench", "work", outputs)
			}
		}
		if err := s.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/row")
}

func BenchmarkZSteps(b *testing.B) { benchParts(b, true, false) }
func BenchmarkZCache(b *testing.B) { benchParts(b, false, true) }

func TestZCommits(t *testing.T) {
	s, _ := Open(t.TempDir())
	defer s.Close()
	run := &Run{Flow: "bench"}
	s.CreateRun(run)
	outputs := json.RawMessage(`{"count":42,"text":"the quick brown fox jumps over the lazy dog"}`)
	for it := range 3 {
		c0 := s.w.commits
		start := time.Now()
		for j := range 10000 {
			s.RecordStep(&StepResult{RunID: run.ID, Step: "work", Instance: fmt.Sprint(it, "/", j), Status: "ok", Attempts: 1, StartedAt: start, FinishedAt: start, Outputs: outputs})
		}
		t1 := time.Since(start)
		s.Flush()
		t.Logf("push %v total %v commits %d", t1, time.Since(start), s.w.commits-c0)
	}
}
