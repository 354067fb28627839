package state

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestTemporalRuns: a run of the temporal engine waits, goes on, is
// interrupted when Temporal lost it, and is either started again on
// Temporal or reopened by a process, which makes it that process's.
func TestTemporalRuns(t *testing.T) {
	s := openStoreIn(t, t.TempDir())
	run := &Run{Flow: "f", Origin: OriginTemporal}
	if err := s.CreateRun(run); err != nil {
		t.Fatal(err)
	}
	get := func() *Run {
		t.Helper()
		r, err := s.Run(run.ID)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if err := s.ContinueOnTemporal(run.ID, nil); !errors.Is(err, ErrNotResumable) {
		t.Errorf("a running run goes on: %v", err)
	}
	// Waiting, then going on.
	if err := s.FinishRun(&Run{ID: run.ID, Status: "waiting"}); err != nil {
		t.Fatal(err)
	}
	if err := s.ContinueOnTemporal(run.ID, nil); err != nil {
		t.Fatal(err)
	}
	if r := get(); r.Status != "running" || !r.FinishedAt.IsZero() || r.Origin != OriginTemporal {
		t.Errorf("gone on: %+v", r)
	}
	// Lost by Temporal while running: interrupted, with the cause.
	changed, err := s.InterruptTemporal(run.ID, "lost")
	if err != nil || !changed {
		t.Fatalf("interrupting: %v, %v", changed, err)
	}
	if r := get(); r.Status != StatusInterrupted || r.Error != "lost" || r.FinishedAt.IsZero() {
		t.Errorf("interrupted: %+v", r)
	}
	if changed, err := s.InterruptTemporal(run.ID, "again"); err != nil || changed {
		t.Errorf("interrupting an interrupted run: %v, %v", changed, err)
	}
	// Started again on Temporal, with the fingerprints of its program.
	fps := json.RawMessage(`{"a":"1"}`)
	if err := s.ContinueOnTemporal(run.ID, fps); err != nil {
		t.Fatal(err)
	}
	if r := get(); r.Status != "running" || r.Error != "" || string(r.Fingerprints) != `{"a":"1"}` {
		t.Errorf("started again: %+v", r)
	}
	// Lost while waiting, then resumed by a process: no longer a run on
	// Temporal, so InterruptTemporal leaves it alone.
	if err := s.FinishRun(&Run{ID: run.ID, Status: "waiting"}); err != nil {
		t.Fatal(err)
	}
	if changed, err := s.InterruptTemporal(run.ID, "lost"); err != nil || !changed {
		t.Fatalf("interrupting a waiting run: %v, %v", changed, err)
	}
	if err := s.ReopenRun(run.ID, nil); err != nil {
		t.Fatal(err)
	}
	if r := get(); r.Status != "running" || r.Origin != "" {
		t.Errorf("reopened by a process: %+v", r)
	}
	if changed, err := s.InterruptTemporal(run.ID, "lost"); err != nil || changed {
		t.Errorf("a run a process took over was interrupted as Temporal's: %v, %v", changed, err)
	}
	// A run of another origin is never Temporal's.
	other := &Run{Flow: "f", Origin: "serve"}
	if err := s.CreateRun(other); err != nil {
		t.Fatal(err)
	}
	if changed, err := s.InterruptTemporal(other.ID, "lost"); err != nil || changed {
		t.Errorf("a run of serve interrupted as Temporal's: %v, %v", changed, err)
	}
}
