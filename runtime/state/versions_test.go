package state

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestRunVersions: the sources of a version are stored once for the runs
// that run it, read back whole, and deleted with the last run that names
// it; a run recorded without one has none.
func TestRunVersions(t *testing.T) {
	s := openStoreIn(t, t.TempDir())
	old := time.Now().Add(-48 * time.Hour)
	v1 := &FlowVersion{Hash: "h1", Files: map[string][]byte{"f.flow.hcl": []byte(`flow "f" {}`), "blocks/b.block.hcl": []byte("block")}}
	v2 := &FlowVersion{Hash: "h2", Files: map[string][]byte{"f.flow.hcl": []byte(`flow "f" { }`)}}
	for _, r := range []struct {
		id      string
		v       *FlowVersion
		started time.Time
	}{{"a", v1, old}, {"b", v1, old}, {"c", v2, time.Now()}, {"d", nil, time.Now()}} {
		createRun(t, s, r.id, "f", r.started)
		if r.v != nil {
			if err := s.SetRunVersion(r.id, r.v, "0123456789abcdef0123456789abcdef01234567"); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.FinishRun(&Run{ID: r.id, Status: "ok"}); err != nil {
			t.Fatal(err)
		}
	}
	count := func() int {
		var n int
		if err := s.db.QueryRowContext(context.Background(), `SELECT count(*) FROM flow_versions`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 2 {
		t.Errorf("%d versions stored for 3 runs of 2 versions", n)
	}
	if rv, err := s.RunVersion("b"); err != nil || rv == nil || rv.Hash != "h1" || rv.Commit == "" {
		t.Errorf("run b's version: %+v, %v", rv, err)
	}
	if rv, err := s.RunVersion("d"); err != nil || rv != nil {
		t.Errorf("a run without a version: %+v, %v", rv, err)
	}
	if v, err := s.FlowVersion("h1"); err != nil || v == nil || string(v.Files["blocks/b.block.hcl"]) != "block" || len(v.Files) != 2 {
		t.Errorf("version h1: %+v, %v", v, err)
	}
	// An upgrade names the new version.
	if err := s.SetRunVersion("b", v2, ""); err != nil {
		t.Fatal(err)
	}
	if rv, _ := s.RunVersion("b"); rv == nil || rv.Hash != "h2" {
		t.Errorf("run b upgraded: %+v", rv)
	}
	if _, err := s.Prune(context.Background(), PruneOptions{Before: time.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if v, err := s.FlowVersion("h1"); err != nil || v != nil || count() != 1 {
		t.Errorf("after the runs of h1 were pruned: %+v, %v, %d versions", v, err, count())
	}
}

// TestPauseRun: a run that has not finished is paused once (the first
// pause kept) and resumed; a finished one cannot be paused.
func TestPauseRun(t *testing.T) {
	s := openStoreIn(t, t.TempDir())
	createRun(t, s, "r", "f", time.Now())
	if p, err := s.Paused("r"); err != nil || p != nil {
		t.Fatalf("before a pause: %+v, %v", p, err)
	}
	if err := s.PauseRun("r", "ana"); err != nil {
		t.Fatal(err)
	}
	if err := s.PauseRun("r", "bob"); err != nil {
		t.Fatal(err)
	}
	if p, err := s.Paused("r"); err != nil || p == nil || p.By != "ana" {
		t.Fatalf("paused: %+v, %v", p, err)
	}
	if was, err := s.ResumeRun("r"); err != nil || !was {
		t.Fatalf("resumed: %v, %v", was, err)
	}
	if was, err := s.ResumeRun("r"); err != nil || was {
		t.Fatalf("resumed again: %v, %v", was, err)
	}
	if err := s.FinishRun(&Run{ID: "r", Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	if err := s.PauseRun("r", "ana"); !errors.Is(err, ErrNotPausable) {
		t.Errorf("pausing a finished run: %v", err)
	}
}
