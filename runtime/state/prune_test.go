package state

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestClaimScheduleFire: several stores (servers) claiming one tick of a
// schedule at once: exactly one wins, on either backend.
func TestClaimScheduleFire(t *testing.T) {
	dir := t.TempDir()
	stores := []*Store{openStoreIn(t, dir), openStoreIn(t, dir), openStoreIn(t, dir)}
	start := time.Unix(1_700_000_000, 0)
	if won, err := stores[0].ClaimScheduleFire("f", "hourly", time.Time{}, start); err != nil || !won {
		t.Fatalf("first claim of a new schedule = %v, %v", won, err)
	}
	if won, err := stores[1].ClaimScheduleFire("f", "hourly", time.Time{}, start.Add(time.Second)); err != nil || won {
		t.Fatalf("a second first claim = %v, %v; want lost", won, err)
	}
	prev := start
	for tick := range 20 {
		at := prev.Add(time.Hour)
		var wins atomic.Int32
		var wg sync.WaitGroup
		for _, s := range stores {
			for range 3 {
				wg.Go(func() {
					won, err := s.ClaimScheduleFire("f", "hourly", prev, at)
					if err != nil {
						t.Error(err)
					}
					if won {
						wins.Add(1)
					}
				})
			}
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Fatalf("tick %d: %d claims won, want 1", tick, wins.Load())
		}
		got, ok, err := stores[2].ScheduleFired("f", "hourly")
		if err != nil || !ok || !got.Equal(at) {
			t.Fatalf("tick %d: fired %v, %v, %v; want %v", tick, got, ok, err, at)
		}
		prev = at
	}
}

// TestApplyPlan: a saved plan is applied once.
func TestApplyPlan(t *testing.T) {
	s := openStore(t)
	if err := s.ApplyPlan("plan-1", "run-1"); err != nil {
		t.Fatal(err)
	}
	err := s.ApplyPlan("plan-1", "run-2")
	var pe *PlanAppliedError
	if !errors.As(err, &pe) || pe.RunID != "run-1" || pe.At.IsZero() || !errors.Is(err, ErrPlanApplied) {
		t.Fatalf("second ApplyPlan = %v, want a PlanAppliedError of run-1", err)
	}
	if err := s.ApplyPlan("plan-2", "run-3"); err != nil {
		t.Fatal(err)
	}
}

// TestPrune deletes old runs with what is theirs, keeps the newest of
// each flow, never a running or waiting run, and reports what it freed;
// a dry run deletes nothing and reports the same.
func TestPrune(t *testing.T) {
	dir := t.TempDir()
	s := openStoreIn(t, dir)
	base := time.Now().Add(-100 * 24 * time.Hour)
	day := func(n int) time.Time { return base.Add(time.Duration(n) * 24 * time.Hour) }
	ended := func(id, flow, status string, started time.Time) *Run {
		r := &Run{ID: id, Flow: flow, StartedAt: started}
		if err := s.CreateRun(r); err != nil {
			t.Fatal(err)
		}
		s.RecordStep(&StepResult{RunID: id, Step: "a", Status: "ok", Log: "hello\n"})
		s.RecordStep(&StepResult{RunID: id, Step: "b", Status: "ok"})
		s.RecordEvent(Event{RunID: id, Seq: 1, Type: "run_started", Data: json.RawMessage(`{}`)})
		if status != "running" {
			if err := s.FinishRun(&Run{ID: id, Status: status}); err != nil {
				t.Fatal(err)
			}
		}
		return r
	}
	ended("old1", "f", "ok", day(1))
	ended("old2", "f", "failed", day(2))
	ended("oldg", "g", "ok", day(3))
	ended("oldrun", "f", "running", day(4))
	ended("oldwait", "f", "waiting", day(5))
	ended("new1", "f", "ok", day(90))
	ended("new2", "f", "ok", day(95))
	// A sub-flow run of old1's, pruned with it.
	kid := &Run{ID: "kid", Flow: "sub", StartedAt: day(1), ParentRun: "old1", ParentStep: "call"}
	if err := s.CreateRun(kid); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRun(&Run{ID: "kid", Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	flush(t, s)
	ctx := context.Background()
	if _, err := s.Prune(ctx, PruneOptions{}); err == nil {
		t.Fatal("Prune without a choice: no error")
	}

	before := time.Now().Add(-30 * 24 * time.Hour)
	dry, err := s.Prune(ctx, PruneOptions{Before: before, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	want := PruneResult{Runs: 4, Steps: 6, Events: 3, LogBytes: 18}
	if *dry != want {
		t.Fatalf("dry run = %+v, want %+v", *dry, want)
	}
	if _, err := s.Run("old1"); err != nil {
		t.Fatalf("a dry run deleted: %v", err)
	}
	// --keep 2 of flow f: new1 and new2 are the newest two anyway; of g
	// the only run is kept.
	got, err := s.Prune(ctx, PruneOptions{Before: before, Keep: 1, Flow: "f"})
	if err != nil {
		t.Fatal(err)
	}
	if want := (PruneResult{Runs: 3, Steps: 4, Events: 2, LogBytes: 12}); *got != want {
		t.Fatalf("prune = %+v, want %+v", *got, want)
	}
	for id, present := range map[string]bool{
		"old1": false, "kid": false, "old2": false, "oldg": true, "oldrun": true, "oldwait": true, "new1": true, "new2": true,
	} {
		_, err := s.Run(id)
		if present != (err == nil) {
			t.Errorf("run %s: present %v, err %v", id, present, err)
		}
		if !present {
			if steps, _ := s.Steps(id); len(steps) != 0 {
				t.Errorf("run %s: %d step results left", id, len(steps))
			}
			if evs, _ := s.Events(id, 0, 0); len(evs) != 0 {
				t.Errorf("run %s: %d events left", id, len(evs))
			}
		}
	}
}

// TestPruneBlobs: the blob files of pruned runs go, those a kept run or
// a cache entry refers to stay (SQLite: PostgreSQL keeps values in rows).
func TestPruneBlobs(t *testing.T) {
	dir := t.TempDir()
	s := openSQLiteIn(t, dir)
	big := func(c string) json.RawMessage { return json.RawMessage(`"` + strings.Repeat(c, BlobThreshold+1) + `"`) }
	old := time.Now().Add(-48 * time.Hour)
	for _, r := range []struct {
		id, value string
		started   time.Time
	}{{"gone", "a", old}, {"kept", "b", time.Now()}, {"cached", "c", old}} {
		if err := s.CreateRun(&Run{ID: r.id, Flow: "f", StartedAt: r.started}); err != nil {
			t.Fatal(err)
		}
		s.RecordStep(&StepResult{RunID: r.id, Step: "s", Status: "ok", Outputs: big(r.value)})
		if err := s.FinishRun(&Run{ID: r.id, Status: "ok"}); err != nil {
			t.Fatal(err)
		}
	}
	s.CachePut("k", "f", "s", big("c"))
	flush(t, s)
	// The files are older than the grace a prune leaves new files.
	var files []string
	filepath.WalkDir(filepath.Join(dir, "blobs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
			os.Chtimes(p, old, old)
		}
		return nil
	})
	if len(files) != 3 {
		t.Fatalf("%d blob files, want 3", len(files))
	}
	ctx := context.Background()
	o := PruneOptions{Before: time.Now().Add(-24 * time.Hour)}
	for _, dry := range []bool{true, false} {
		o.DryRun = dry
		got, err := s.Prune(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		if got.Runs != 2 || got.Blobs != 1 || got.BlobBytes != int64(len(big("a"))) {
			t.Fatalf("dry run %v: %+v; want 2 runs and 1 blob of %d bytes", dry, *got, len(big("a")))
		}
	}
	left := 0
	for _, f := range files {
		if _, err := os.Stat(f); err == nil {
			left++
		}
	}
	if left != 2 {
		t.Fatalf("%d blob files left, want 2 (the kept run's, the cache entry's)", left)
	}
	if v, ok, err := s.CacheGet("k"); err != nil || !ok || len(v) != len(big("c")) {
		t.Fatalf("the cache entry's blob: %d bytes, %v, %v", len(v), ok, err)
	}
}
