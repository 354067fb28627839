package state

import (
	"strings"
	"testing"
	"time"
)

// TestFollowLogs: the finished instances that printed, in the order they
// started, of all steps or of one step or one instance; an instance
// still running is not shown, and following a run that ended shows what
// finished with it.
func TestFollowLogs(t *testing.T) {
	s := openStore(t)
	t0 := time.Unix(1700000000, 0)
	run := createRun(t, s, "r1", "f", t0)
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Second) }
	s.RecordStep(&StepResult{RunID: "r1", Step: "a", Status: "ok", StartedAt: at(1), FinishedAt: at(2), Log: "one"})
	s.RecordStep(&StepResult{RunID: "r1", Step: "each", Instance: "x", Status: "ok", StartedAt: at(3), FinishedAt: at(4), Log: "two"})
	s.RecordStep(&StepResult{RunID: "r1", Step: "each", Instance: "y", Status: "failed", StartedAt: at(5), FinishedAt: at(6), Log: "three"})
	s.RecordStep(&StepResult{RunID: "r1", Step: "quiet", Status: "ok", StartedAt: at(7), FinishedAt: at(8)})
	s.RecordStep(&StepResult{RunID: "r1", Step: "late", Status: "running", StartedAt: at(9), Log: "not yet"})
	flush(t, s)
	logs := func(step string, follow bool) string {
		var got []string
		if err := s.FollowLogs(run, step, follow, func(sr *StepResult) { got = append(got, sr.Label()+"="+sr.Log) }); err != nil {
			t.Fatal(err)
		}
		return strings.Join(got, " ")
	}
	for step, want := range map[string]string{
		"":        "a=one each[x]=two each[y]=three",
		"each":    "each[x]=two each[y]=three",
		"each[y]": "each[y]=three",
		"quiet":   "",
	} {
		if got := logs(step, false); got != want {
			t.Errorf("logs of %q: %q, want %q", step, got, want)
		}
	}
	run.Status = "failed"
	if err := s.FinishRun(run); err != nil {
		t.Fatal(err)
	}
	flush(t, s)
	if got := logs("", true); got != "a=one each[x]=two each[y]=three" {
		t.Errorf("following an ended run: %q", got)
	}
}
