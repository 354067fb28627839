package state

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestStepCountsAndPages: a run of a for_each is read as counts by step
// and status, and a step's instances a page at a time, in the order of
// their keys (numbers numerically), filtered by status.
func TestStepCountsAndPages(t *testing.T) {
	s := openStore(t)
	t0 := time.Unix(1700000000, 0)
	createRun(t, s, "r1", "f", t0)
	s.RecordStep(&StepResult{RunID: "r1", Step: "first", Status: "ok", Attempts: 1, StartedAt: t0, FinishedAt: t0.Add(time.Second)})
	for i := 0; i < 25; i++ {
		st, att := "ok", 1
		if i%10 == 3 {
			st, att = "failed", 3
		}
		at := t0.Add(2*time.Second + time.Duration(i)*time.Millisecond)
		s.RecordStep(&StepResult{RunID: "r1", Step: "each", Instance: fmt.Sprint(i), Status: st, Attempts: att,
			StartedAt: at, FinishedAt: at.Add(time.Millisecond), Outputs: []byte(fmt.Sprintf(`{"i":%d}`, i))})
	}
	s.RecordStep(&StepResult{RunID: "r1", Step: "never", Status: "skipped"})
	flush(t, s)

	counts, err := s.StepCounts("r1")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range counts {
		line := fmt.Sprintf("%s %s %d×%d", c.Step, c.Status, c.Instances, c.Attempts)
		if !c.Started.IsZero() {
			line += fmt.Sprintf(" %s-%s", c.Started.Sub(t0), c.Finished.Sub(t0))
		}
		got = append(got, line)
	}
	want := []string{
		"first ok 1×1 0s-1s",
		"each failed 3×3 2.003s-2.024s",
		"each ok 22×1 2s-2.025s",
		"never skipped 1×0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("counts:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Every instance of each, ten at a time.
	var keys []string
	after := ""
	for page := 0; page < 5; page++ {
		rs, err := s.StepResults("r1", StepQuery{Step: "each", After: after, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) == 0 {
			break
		}
		for _, r := range rs {
			keys = append(keys, r.Instance)
		}
		after = rs[len(rs)-1].Instance
	}
	if want := "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24"; strings.Join(keys, " ") != want {
		t.Errorf("pages: %s", strings.Join(keys, " "))
	}
	failed, err := s.StepResults("r1", StepQuery{Step: "each", Statuses: []string{"failed", "cancelled"}})
	if err != nil || len(failed) != 3 || failed[2].Instance != "23" || string(failed[0].Outputs) != `{"i":3}` {
		t.Errorf("failed: %v %+v", err, failed)
	}
	rest, err := s.StepResults("r1", StepQuery{Except: []string{"each"}})
	if err != nil || len(rest) != 2 || rest[0].Step != "first" || rest[1].Step != "never" {
		t.Errorf("except each: %v %+v", err, rest)
	}
	all, err := s.Steps("r1")
	if err != nil || len(all) != 27 {
		t.Errorf("Steps: %v, %d results", err, len(all))
	}
}
