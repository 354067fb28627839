package state

import (
	"errors"
	"testing"
	"time"
)

func TestApprovalsAndReopen(t *testing.T) {
	dir := t.TempDir()
	s := openStoreIn(t, dir)
	run := &Run{Flow: "f", Origin: "serve"}
	if err := s.CreateRun(run); err != nil {
		t.Fatal(err)
	}
	if err := s.ReopenRun(run.ID, nil); !errors.Is(err, ErrNotResumable) {
		t.Errorf("reopening a running run: %v", err)
	}
	now := time.Now()
	if err := s.RequestApproval(&Approval{RunID: run.ID, Step: "review", Message: "ok?", RequestedAt: now, Deadline: now.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRun(&Run{ID: run.ID, Status: "waiting"}); err != nil {
		t.Fatal(err)
	}
	open, err := s.Approvals("")
	if err != nil || len(open) != 1 || open[0].Message != "ok?" || open[0].Decided() || !open[0].Deadline.Equal(now.Add(time.Hour)) {
		t.Fatalf("open approvals: %+v, %v", open, err)
	}
	if _, err := s.DecideApproval(run.ID, "nope", "", true, "", ""); !errors.Is(err, ErrNotWaiting) {
		t.Errorf("deciding an unknown step: %v", err)
	}
	a, err := s.DecideApproval(run.ID, "review", "", true, "fine", "ana")
	if err != nil || !a.Approved || a.By != "ana" || a.Comment != "fine" || !a.Decided() {
		t.Fatalf("decided: %+v, %v", a, err)
	}
	if _, err := s.DecideApproval(run.ID, "review", "", false, "", "bob"); !errors.Is(err, ErrNotWaiting) {
		t.Errorf("deciding twice: %v", err)
	}
	if err := s.CloseApproval(run.ID, "review", ""); err != nil {
		t.Fatal(err)
	}
	if open, _ := s.Approvals(""); len(open) != 0 {
		t.Errorf("closed approvals are open: %+v", open)
	}
	// A new request of the same instance starts undecided.
	if err := s.RequestApproval(&Approval{RunID: run.ID, Step: "review", Message: "again?", RequestedAt: now}); err != nil {
		t.Fatal(err)
	}
	if a, _ := s.Approval(run.ID, "review", ""); a.Decided() || a.Closed || a.Message != "again?" || !a.Deadline.IsZero() {
		t.Errorf("asked again: %+v", a)
	}
	if err := s.ReopenRun(run.ID, nil); err != nil {
		t.Fatal(err)
	}
	r, err := s.Run(run.ID)
	if err != nil || r.Status != "running" || !r.FinishedAt.IsZero() || r.Origin != "serve" {
		t.Errorf("reopened: %+v, %v", r, err)
	}
	// Another store (process) finds it owned, not interrupted.
	if r, _ := openStoreIn(t, dir).Run(run.ID); r.Status != "running" {
		t.Errorf("a reopened run seen from another store: %s", r.Status)
	}
}
