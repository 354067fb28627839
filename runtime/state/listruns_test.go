package state

import (
	"testing"
	"time"
)

// TestListRunsTopLevel: a list of top-level runs leaves out the runs that
// runs started (a sub-flow's, a tool call's), and its limit counts only
// the runs it lists.
func TestListRunsTopLevel(t *testing.T) {
	s := openStore(t)
	t0 := time.Unix(1_700_000_000, 0)
	add := func(id, flow, parent string, sec int) {
		r := &Run{ID: id, Flow: flow, StartedAt: t0.Add(time.Duration(sec) * time.Second), ParentRun: parent}
		if parent != "" {
			r.ParentStep, r.Origin = "count[0]", "flow"
		}
		if err := s.CreateRun(r); err != nil {
			t.Fatal(err)
		}
		if err := s.FinishRun(&Run{ID: id, Status: "ok"}); err != nil {
			t.Fatal(err)
		}
	}
	add("p1", "parent", "", 1)
	add("c1", "wordstats", "p1", 2)
	add("c2", "wordstats", "p1", 3)
	add("w1", "wordstats", "", 4)
	add("p2", "parent", "", 5)
	add("c3", "wordstats", "p2", 6)

	ids := func(f RunFilter, limit int) string {
		t.Helper()
		runs, err := s.ListRuns(f, limit)
		if err != nil {
			t.Fatal(err)
		}
		out := ""
		for _, r := range runs {
			out += r.ID + " "
		}
		return out
	}
	if flows, err := s.RunFlows(""); err != nil || len(flows) != 2 || flows[0] != "parent" || flows[1] != "wordstats" {
		t.Errorf("RunFlows: %q, %v", flows, err)
	}
	if flows, err := s.RunFlows("bob"); err != nil || len(flows) != 0 {
		t.Errorf("RunFlows of bob: %q, %v", flows, err)
	}
	for _, c := range []struct {
		f     RunFilter
		limit int
		want  string
	}{
		{RunFilter{TopLevel: true}, 0, "p2 w1 p1 "},
		{RunFilter{TopLevel: true}, 2, "p2 w1 "},
		{RunFilter{}, 2, "c3 p2 "},
		{RunFilter{TopLevel: true, Flow: "wordstats"}, 0, "w1 "},
		{RunFilter{Flow: "wordstats"}, 0, "c3 w1 c2 c1 "},
		{RunFilter{TopLevel: true, Status: "ok", Flow: "parent"}, 1, "p2 "},
	} {
		if got := ids(c.f, c.limit); got != c.want {
			t.Errorf("ListRuns(%+v, %d) = %q, want %q", c.f, c.limit, got, c.want)
		}
	}
}
