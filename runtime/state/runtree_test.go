package state

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestLoadRunTree: a run is read with its steps, a step of more than
// MaxListedInstances instances as one summary row (by its first start,
// with its counts) followed by the instances that did not succeed, and
// the runs its step instances started under their labels.
func TestLoadRunTree(t *testing.T) {
	s := openStore(t)
	t0 := time.Unix(1700000000, 0)
	createRun(t, s, "r1", "f", t0)
	s.RecordStep(&StepResult{RunID: "r1", Step: "first", Status: "ok", Attempts: 1, StartedAt: t0, FinishedAt: t0.Add(time.Second)})
	for i := range MaxListedInstances + 10 {
		st := "ok"
		if i%20 == 7 {
			st = "failed"
		}
		at := t0.Add(2*time.Second + time.Duration(i)*time.Millisecond)
		s.RecordStep(&StepResult{RunID: "r1", Step: "wide", Instance: fmt.Sprint(i), Status: st, Attempts: 1 + i%3, StartedAt: at, FinishedAt: at.Add(time.Millisecond)})
	}
	s.RecordStep(&StepResult{RunID: "r1", Step: "call", Instance: "a", Status: "ok", Attempts: 1, StartedAt: t0.Add(5 * time.Second), FinishedAt: t0.Add(6 * time.Second)})
	kid := &Run{ID: "r2", Flow: "g", StartedAt: t0.Add(5 * time.Second), ParentRun: "r1", ParentStep: "call[a]"}
	if err := s.CreateRun(kid); err != nil {
		t.Fatal(err)
	}
	s.RecordStep(&StepResult{RunID: "r2", Step: "inner", Status: "ok", Attempts: 1, StartedAt: t0.Add(5 * time.Second), FinishedAt: t0.Add(6 * time.Second)})
	flush(t, s)

	run, err := s.Run("r1")
	if err != nil {
		t.Fatal(err)
	}
	tree, err := s.LoadRunTree(run, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sr := range tree.Steps {
		line := sr.Label()
		if sm := tree.Summaries[sr]; sm != nil {
			line = fmt.Sprintf("%s[*] %d instances, %d ok, %d listed, %d attempts, %s-%s", sm.Step, sm.Instances, sm.Succeeded(), sm.Listed,
				sm.Attempts(), sm.First().Sub(t0), sm.Last().Sub(t0))
		}
		got = append(got, line)
	}
	want := "first\nwide[*] 60 instances, 57 ok, 3 listed, 3 attempts, 2s-2.06s\nwide[7]\nwide[27]\nwide[47]\ncall[a]"
	if strings.Join(got, "\n") != want {
		t.Errorf("steps:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
	kids := tree.Children["call[a]"]
	if len(kids) != 1 || kids[0].Run.ID != "r2" || len(kids[0].Steps) != 1 || kids[0].Steps[0].Step != "inner" {
		t.Errorf("children: %+v", tree.Children)
	}

	runs, depths, err := s.RunsBelow([]*Run{run}, MaxRunDepth)
	if err != nil || len(runs) != 2 || runs[1].ID != "r2" || depths["r2"] != 1 || depths["r1"] != 0 {
		t.Errorf("RunsBelow: %v, %d runs, depths %v", err, len(runs), depths)
	}
	if runs, _, _ := s.RunsBelow([]*Run{run}, 0); len(runs) != 1 {
		t.Errorf("RunsBelow with depth 0: %d runs, want 1", len(runs))
	}
}

// TestWaits: the approvals not decided are what a run waits for; a
// decided one is not, nor one of a run that is not waiting.
func TestWaits(t *testing.T) {
	s := openStore(t)
	t0 := time.Unix(1700000000, 0)
	createRun(t, s, "r1", "f", t0)
	for _, step := range []string{"a", "b"} {
		if err := s.RequestApproval(&Approval{RunID: "r1", Step: step, Message: "ok?", RequestedAt: t0}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.DecideApproval("r1", "b", "", true, "", "me"); err != nil {
		t.Fatal(err)
	}
	waits, err := s.Waits()
	if err != nil || len(waits["r1"]) != 1 || waits["r1"][0].Step != "a" {
		t.Fatalf("Waits: %v %v", waits, err)
	}
	run, _ := s.Run("r1")
	if ws, err := s.RunWaits(run); err != nil || len(ws) != 0 {
		t.Errorf("RunWaits of a running run: %v %v", ws, err)
	}
	run.Status = "waiting"
	if ws, err := s.RunWaits(run); err != nil || len(ws) != 1 || ws[0].Step != "a" {
		t.Errorf("RunWaits of a waiting run: %v %v", ws, err)
	}
}
