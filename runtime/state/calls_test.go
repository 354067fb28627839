package state

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// TestCalls: a run's model calls are kept in order, read by step and in
// pages after a number, numbered on from the last after a restart of the
// run, and deleted with their run.
func TestCalls(t *testing.T) {
	s := openStore(t)
	run := createRun(t, s, "", "f", time.Now().Add(-48*time.Hour))
	for i := 1; i <= rowsPerStatement+3; i++ {
		step := "a"
		if i%2 == 0 {
			step = "b"
		}
		s.RecordCall(Call{RunID: run.ID, Seq: int64(i), Step: step, Instance: "", Data: json.RawMessage(fmt.Sprintf(`{"try":%d}`, i))})
	}
	flush(t, s)
	all, err := s.Calls(run.ID, "", 0, 0)
	if err != nil || len(all) != rowsPerStatement+3 || all[0].Seq != 1 || string(all[4].Data) != `{"try":5}` {
		t.Fatalf("%d calls, %v", len(all), err)
	}
	bs, err := s.Calls(run.ID, "b", 2, 3)
	if err != nil || len(bs) != 3 || bs[0].Seq != 4 || bs[2].Seq != 8 || bs[1].Step != "b" {
		t.Errorf("b's after 2, 3 of them: %+v, %v", bs, err)
	}
	if n, err := s.LastCall(run.ID); err != nil || n != int64(rowsPerStatement+3) {
		t.Errorf("last call %d, %v", n, err)
	}
	if err := s.FinishRun(&Run{ID: run.ID, Status: "ok", FinishedAt: time.Now().Add(-47 * time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prune(context.Background(), PruneOptions{Before: time.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if left, err := s.Calls(run.ID, "", 0, 0); err != nil || len(left) != 0 {
		t.Errorf("a pruned run's calls: %d, %v", len(left), err)
	}
}
